/**
 * Refund helpers for tests: a succeeded payment to refund, refund bodies, and the refund calls.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Credentials, TestResponse, TestService } from "./harness.ts";
import { createPayment, simulatePaymentRequest } from "./lifecycle.ts";

let counter = 0;

export function refundReference(prefix = "rf"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString("hex")}`;
}

export function refundBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: "100.00", referenceId: refundReference(), ...overrides };
}

/** A payment of `amount` (satang, wire form) that has succeeded (its amount awaits settlement). */
export async function succeededPayment(
  svc: TestService,
  credentials: Credentials,
  amount = "1000.00",
): Promise<any> {
  const payment = await createPayment(svc, credentials, { amount });
  const res = await simulatePaymentRequest(svc, credentials, payment.id, "succeeded");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

export function createRefundRequest(
  svc: TestService,
  credentials: Credentials,
  paymentId: string,
  body: unknown,
): Promise<TestResponse> {
  return svc.request("POST", `/api/v1/payments/${paymentId}/refunds`, body, { credentials });
}

export async function createRefund(
  svc: TestService,
  credentials: Credentials,
  paymentId: string,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await createRefundRequest(svc, credentials, paymentId, refundBody(overrides));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

export function simulateRefundRequest(
  svc: TestService,
  credentials: Credentials,
  id: string,
  outcome: string,
): Promise<TestResponse> {
  return svc.request("POST", `/api/v1/sandbox/refunds/${id}/simulate`, { outcome }, { credentials });
}

export async function settleNow(svc: TestService, credentials: Credentials): Promise<void> {
  const res = await svc.request("POST", "/api/v1/sandbox/settlements/run", {}, { credentials });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
