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

/** How a request is signed: v1 as the README shows, v2 as the SDK's client does. */
export type Signing = "v1" | "v2";

/**
 * Each request's timestamp is the clock's, minus a step of its own: the SDK's timestamps step
 * one millisecond per request, and a load's requests are made ahead of it (lib/load.ts), faster
 * than one per millisecond, so two v1 reads (whose signatures cover only the timestamp and the
 * empty body) would otherwise carry one signature. Steps stay within 100 s of the tolerance's
 * 300 s.
 */
let stamp = 0;
function timestampOf(): number {
  stamp += 1;
  return Date.now() - (stamp % 100_000);
}

function signed(
  credentials: Credentials,
  method: "GET" | "POST",
  path: string,
  body: string,
  signing: Signing,
): PlainRequest {
  const headers: Record<string, string> = signRequest({
    ...credentials,
    body,
    method,
    path,
    version: signing,
    timestamp: timestampOf(),
  });
  if (body) headers["content-type"] = "application/json";
  return body ? { method, path, headers, body } : { method, path, headers };
}

/** A customer account no other create of the run names: PromptPay reuse stays a new payment's. */
let customer = 0;
function customerAccount(): string {
  customer += 1;
  return String(1_000_000_000 + customer);
}

/**
 * A promptpay create; each names a customer of its own (as a shop's checkouts do), so with
 * PromptPay reuse on (the default) each is a new payment. `repeatCustomer` names one customer
 * and amount for every request: after the first, each is a reuse. Signed v2 it carries an
 * `idempotencyKey` of its own, as the SDK's `payments.create` always does; signed v1 it is the
 * README's curl example, which sends none.
 */
export function createPayment(
  credentials: Credentials,
  signing: Signing = "v2",
  repeatCustomer = false,
): PlainRequest {
  const body = JSON.stringify({
    amount: "10000.00",
    referenceId: unique("bench-pay"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: repeatCustomer ? "1234567890" : customerAccount(),
    customerBankCode: "004",
    ...(signing === "v2" ? { idempotencyKey: unique("bench-key") } : {}),
  });
  return signed(credentials, "POST", "/api/v1/payments", body, signing);
}

/**
 * A withdraw of `amount` (by default "10.00", one amount for every request) to a payee no other
 * request names; `"distinct"` gives each request an amount of its own. Signed v1 it is the
 * README's way (no idempotency key); signed v2 it carries an `idempotencyKey` of its own, as the
 * SDK's `withdraws.create` always does.
 */
export function createWithdraw(
  credentials: Credentials,
  amount = "10.00",
  signing: Signing = "v1",
): PlainRequest {
  const body = JSON.stringify({
    // Distinct amounts cycle over 10,000 values, 1,000 to 10,999 satang (10 to 109.99 THB):
    // whatever number of requests the earlier loads made (the sequence counts them all), ten
    // thousand withdraws (about 600,000 THB) stay inside the bench wallet's 1,000,000 THB. With
    // amounts that grew with the sequence, R5 after R1 ran its wallet dry within a second and
    // every later create was refused (INSUFFICIENT_BALANCE).
    amount: amount === "distinct" ? String(1_000 + (sequence % 10_000)) : amount,
    currency: "THB",
    referenceId: unique("bench-wd"),
    destinationType: "bank_account",
    // Distinct names, so the duplicate-payout guard never holds one back.
    customerBankAccountName: `Payee ${randomBytes(6).toString("hex")}`,
    customerBankAccountNumber: "123-456-7890",
    customerBankCode: "004",
    ...(signing === "v2" ? { idempotencyKey: unique("bench-wd-key") } : {}),
  });
  return signed(credentials, "POST", "/api/v1/withdraws", body, signing);
}

export function getSigned(credentials: Credentials, path: string, signing: Signing = "v2"): PlainRequest {
  return signed(credentials, "GET", path, "", signing);
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
