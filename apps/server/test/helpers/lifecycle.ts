/**
 * Lifecycle helpers for tests: create payments and withdraws over the API, simulate the bank,
 * and read the events and ledger rows a transition left behind.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Db } from "../../src/db/handles.ts";
import type { Credentials, TestResponse, TestService } from "./harness.ts";
import { withdrawBody } from "./withdraws.ts";

let counter = 0;

export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    amount: "1000.00",
    referenceId: `pay-${process.pid}-${counter}-${randomBytes(3).toString("hex")}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    // A new customer account each time, so PromptPay reuse never returns an earlier payment.
    customerBankAccountNumber: String(4_000_000_000 + counter * 7 + Math.floor(Math.random() * 5)),
    customerBankCode: "014",
    ...overrides,
  };
}

export async function createPayment(
  svc: TestService,
  credentials: Credentials,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await svc.request("POST", "/api/v1/payments", paymentBody(overrides), { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

export async function createWithdraw(
  svc: TestService,
  credentials: Credentials,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody(overrides), { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

export function simulatePaymentRequest(
  svc: TestService,
  credentials: Credentials,
  id: string,
  outcome: string,
): Promise<TestResponse> {
  return svc.request("POST", `/api/v1/sandbox/payments/${id}/simulate`, { outcome }, { credentials });
}

export function simulateWithdrawRequest(
  svc: TestService,
  credentials: Credentials,
  id: string,
  outcome: string,
): Promise<TestResponse> {
  return svc.request("POST", `/api/v1/sandbox/withdraws/${id}/simulate`, { outcome }, { credentials });
}

export async function advanceClock(
  svc: TestService,
  credentials: Credentials,
  seconds: number,
): Promise<string> {
  const res = await svc.request("POST", "/api/v1/sandbox/clock/advance", { seconds }, { credentials });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.now;
}

export interface StoredEvent {
  type: string;
  status: string;
  object: any;
  createdAt: Date;
}

/**
 * The events of one payment or withdraw in the order they happened. Events of one transaction
 * share a timestamp; those are ordered by type, so the order is stable.
 */
export async function eventsOf(db: Db, objectId: string): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom("events")
    .select(["type", "data", "created_at"])
    .where("object_id", "=", objectId)
    .orderBy("created_at")
    .orderBy("type")
    .execute();
  return rows.map((row) => {
    const object = (row.data as { object: any }).object;
    return { type: row.type, status: object.status, object, createdAt: row.created_at };
  });
}

export async function eventTypes(db: Db, objectId: string): Promise<string[]> {
  return (await eventsOf(db, objectId)).map((event) => event.type);
}

/** The kinds of the ledger transactions booked for one payment or withdraw, sorted. */
export async function ledgerKinds(db: Db, subjectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("ledger_transactions")
    .select("kind")
    .where("subject_id", "=", subjectId)
    .orderBy("kind")
    .execute();
  return rows.map((row) => row.kind);
}

export async function anomaliesOf(db: Db, subjectId: string): Promise<{ reason: string; report: string }[]> {
  return db
    .selectFrom("provider_anomalies")
    .select(["reason", "report"])
    .where("subject_id", "=", subjectId)
    .orderBy("created_at")
    .execute();
}

export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

/** A withdraw's payout attempt record. */
export function withdrawPayoutOf(db: Db, withdrawId: string) {
  return db.selectFrom("payouts").selectAll().where("withdraw_id", "=", withdrawId).executeTakeFirstOrThrow();
}
