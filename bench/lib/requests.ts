/** Signed requests of the hot kinds, as autocannon request definitions and as plain requests. */
import { randomBytes } from "node:crypto";
import { signRequest } from "@satang/sdk";
import type autocannon from "autocannon";

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface PlainRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

let sequence = 0;
const run = randomBytes(4).toString("hex");
export function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}-${run}-${sequence}`;
}

function signed(credentials: Credentials, method: "GET" | "POST", path: string, body = ""): PlainRequest {
  // v2, as the SDK client signs: a v1 read also records its signature (one insert). The time is
  // the clock's: the SDK's own timestamps step one millisecond per request, and a load's
  // requests are made ahead of it (lib/load.ts), faster than one per millisecond. Two writes
  // in one millisecond still differ: their bodies carry unique references.
  const headers: Record<string, string> = signRequest({
    ...credentials,
    body,
    method,
    path,
    timestamp: Date.now(),
  });
  if (body) headers["content-type"] = "application/json";
  return body ? { method, path, headers, body } : { method, path, headers };
}

export function createPayment(credentials: Credentials): PlainRequest {
  const body = JSON.stringify({
    amount: "10000.00",
    referenceId: unique("bench-pay"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: "1234567890",
    customerBankCode: "004",
  });
  return signed(credentials, "POST", "/api/v1/payments", body);
}

/**
 * A withdraw of `amount` (by default "10.00", one amount for every request) to a payee no other
 * request names; `"distinct"` gives each request an amount of its own.
 */
export function createWithdraw(credentials: Credentials, amount = "10.00"): PlainRequest {
  const body = JSON.stringify({
    amount: amount === "distinct" ? String(1_000 + (sequence % 1_000_000)) : amount,
    currency: "THB",
    referenceId: unique("bench-wd"),
    destinationType: "bank_account",
    // Distinct names, so the duplicate-payout guard never holds one back.
    customerBankAccountName: `Payee ${randomBytes(6).toString("hex")}`,
    customerBankAccountNumber: "123-456-7890",
    customerBankCode: "004",
  });
  return signed(credentials, "POST", "/api/v1/withdraws", body);
}

export function getSigned(credentials: Credentials, path: string): PlainRequest {
  return signed(credentials, "GET", path);
}

export function baselineInsert(): PlainRequest {
  const body = JSON.stringify({ amount: "10000.00", referenceId: unique("base") });
  return { method: "POST", path: "/rows", headers: { "content-type": "application/json" }, body };
}

export function baselineSelect(rowId: string): PlainRequest {
  return { method: "GET", path: `/rows/${rowId}`, headers: {} };
}

/** An autocannon request that builds a fresh request (signature, unique ids) each time. */
export function cannon(make: () => PlainRequest): autocannon.Request {
  const first = make();
  return {
    method: first.method,
    path: first.path,
    setupRequest: (request) => {
      const next = make();
      return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body };
    },
  };
}

/** The parts of an answer the bench reads. */
interface Answer {
  data: { id: string; total: number };
}

/** Sends one request to `base`; its status and parsed JSON body. */
export async function sendOnce(
  base: string,
  request: PlainRequest,
): Promise<{ status: number; json: Answer }> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body ? { body: request.body } : {}),
  });
  return { status: response.status, json: (await response.json()) as Answer };
}
