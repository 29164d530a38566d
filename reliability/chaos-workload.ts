/**
 * The chaos harness's mixed workload: merchants with limits and funded wallets, then workers
 * sending payments (create, simulate, idempotent retries), withdraws (create, cancel, operator
 * approve, idempotent retries), refunds of succeeded payments (create with idempotent retries,
 * cancel, the simulated bank's outcomes), balance reads and webhook endpoints, while the server
 * is killed.
 *
 * Every answer is counted by status; every acknowledged (2xx) write is remembered, so the
 * checks afterwards can find it in the database.
 */
import { randomBytes } from "node:crypto";
import { signRequest } from "@satang/sdk";
import { ADMIN_TOKEN } from "./chaos-server.ts";

export interface Merchant {
  id: string;
  apiKey: string;
  apiSecret: string;
  dailyLimitSatang: bigint;
  monthlyLimitSatang: bigint;
}

export interface Acknowledged {
  kind: "payment" | "withdraw" | "refund";
  id: string;
  merchantId: string;
  idempotencyKey: string;
  amountSatang: bigint;
}

export class Tally {
  requests = 0;
  byStatus: Record<string, number> = {};
  /** Answers with status 500 or more that are not 503: the harness wants none. */
  serverErrors: string[] = [];
  /** Requests that got no answer at all (connection cut by a kill, refused while down). */
  noAnswer = 0;
  acknowledged: Acknowledged[] = [];
  /** Idempotency key -> the id every acknowledged answer for it named. */
  idsByKey = new Map<string, string>();
  /** A key answered with two different ids: an idempotency failure seen from outside. */
  keyConflicts: string[] = [];
  /** Every secret the run sent or was given (API and webhook secrets, client secrets, account
   * numbers): none may appear in the server's log. */
  secrets = new Set<string>();

  count(status: number, label: string, body: string): void {
    this.requests += 1;
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (status >= 500 && status !== 503 && this.serverErrors.length < 50)
      this.serverErrors.push(`${status} ${label}: ${body.slice(0, 200)}`);
  }

  /** Remembers the secrets a request carried and its answer named. */
  noteSecrets(body: unknown, answer: unknown): void {
    const sent = (body as { customerBankAccountNumber?: unknown } | undefined)?.customerBankAccountNumber;
    if (typeof sent === "string") this.secrets.add(sent);
    const data = (answer as { data?: Record<string, unknown> } | undefined)?.data;
    for (const field of ["apiSecret", "clientSecret", "secret"]) {
      const value = data?.[field];
      if (typeof value === "string" && value.length >= 8) this.secrets.add(value);
    }
  }

  remember(ack: Acknowledged): void {
    const seen = this.idsByKey.get(`${ack.merchantId}/${ack.kind}/${ack.idempotencyKey}`);
    if (seen && seen !== ack.id) this.keyConflicts.push(ack.idempotencyKey);
    this.idsByKey.set(`${ack.merchantId}/${ack.kind}/${ack.idempotencyKey}`, ack.id);
    this.acknowledged.push(ack);
  }
}

interface Answer {
  status: number;
  body: { data?: Record<string, unknown>; error?: { code: string } } | undefined;
  text: string;
}

export class Client {
  constructor(
    readonly baseUrl: () => string,
    readonly tally: Tally,
  ) {}

  async send(
    method: string,
    path: string,
    body: unknown,
    auth: Merchant | "admin",
  ): Promise<Answer | undefined> {
    const payload = body === undefined ? "" : JSON.stringify(body);
    const headers: Record<string, string> =
      auth === "admin"
        ? { authorization: `Bearer ${ADMIN_TOKEN}` }
        : {
            ...signRequest({
              apiKey: auth.apiKey,
              apiSecret: auth.apiSecret,
              body: payload,
              method,
              path,
              version: "v2",
            }),
          };
    if (payload !== "") headers["content-type"] = "application/json";
    try {
      const res = await fetch(`${this.baseUrl()}${path}`, {
        method,
        headers,
        ...(payload !== "" ? { body: payload } : {}),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      this.tally.count(res.status, `${method} ${path}`, text);
      let parsed: Answer["body"];
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      this.tally.noteSecrets(body, parsed);
      return { status: res.status, body: parsed, text };
    } catch {
      this.tally.noAnswer += 1;
      // The server is down (killed, restarting): do not spin.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return undefined;
    }
  }
}

const key = () => `chaos-${randomBytes(8).toString("hex")}`;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
// Amount strings are satang ("1000.00" is 1000 satang, CONTRACT 4).
const satangOf = (amount: string) => BigInt(amount.split(".")[0] ?? "0");

/** Creates `count` merchants with daily and monthly limits, an integration, and a funded wallet. */
export async function createMerchants(
  client: Client,
  count: number,
  webhookUrl: string,
): Promise<Merchant[]> {
  const merchants: Merchant[] = [];
  for (let i = 0; i < count; i++) {
    const dailyLimit = "20000.00";
    const monthlyLimit = "60000.00";
    const created = await client.send(
      "POST",
      "/admin/v1/merchants",
      {
        name: `Chaos merchant ${i}`,
        // PromptPay payments need the merchant's PromptPay id: one phone-style id per merchant.
        promptpayId: `0812${String(i).padStart(6, "0")}`,
        dailyWithdrawLimit: dailyLimit,
        monthlyWithdrawLimit: monthlyLimit,
      },
      "admin",
    );
    const id = String(created?.body?.data?.id ?? "");
    if (!id) throw new Error(`merchant not created: ${created?.text}`);
    const integration = await client.send("POST", `/admin/v1/merchants/${id}/integrations`, {}, "admin");
    const data = integration?.body?.data ?? {};
    const merchant: Merchant = {
      id,
      apiKey: String(data.apiKey),
      apiSecret: String(data.apiSecret),
      dailyLimitSatang: satangOf(dailyLimit),
      monthlyLimitSatang: satangOf(monthlyLimit),
    };
    await client.send(
      "POST",
      `/admin/v1/merchants/${id}/wallet/adjustments`,
      { amount: "+500000.00", reason: "chaos funding" },
      "admin",
    );
    await client.send("POST", "/api/v1/webhook-endpoints", { url: webhookUrl, events: ["*"] }, merchant);
    merchants.push(merchant);
  }
  return merchants;
}

/** Ids the workers act on next: payments to simulate, withdraws to cancel or approve. */
interface Pools {
  payments: Array<{ merchant: Merchant; id: string }>;
  withdraws: Array<{ merchant: Merchant; id: string }>;
  /** Payments the simulated customer paid, with their amounts: what refunds act on. */
  succeeded: Array<{ merchant: Merchant; id: string; amountSatang: bigint }>;
  refunds: Array<{ merchant: Merchant; id: string }>;
}

function paymentBody(idempotencyKey: string) {
  return {
    amount: `${100 + Math.floor(Math.random() * 900)}.00`,
    currency: "THB",
    referenceId: idempotencyKey,
    paymentMethod: "promptpay",
    customerBankAccountName: "Chaos Customer",
    customerBankAccountNumber: String(4_000_000_000 + Math.floor(Math.random() * 999_999_999)),
    customerBankCode: "014",
    idempotencyKey,
  };
}

function withdrawBody(idempotencyKey: string) {
  return {
    amount: `${100 + Math.floor(Math.random() * 2400)}.00`,
    currency: "THB",
    referenceId: idempotencyKey,
    destinationType: "bank_account",
    customerBankAccountName: `Payee ${randomBytes(3).toString("hex")}`,
    customerBankAccountNumber: String(1_000_000_000 + Math.floor(Math.random() * 999_999_999)),
    customerBankCode: "004",
    idempotencyKey,
  };
}

/** Sends a create, and on a cut connection or a 503 sends it again with the same key and body. */
async function createWithRetry(
  client: Client,
  merchant: Merchant,
  kind: "payment" | "withdraw",
  pools: Pools,
): Promise<void> {
  const idempotencyKey = key();
  const body = kind === "payment" ? paymentBody(idempotencyKey) : withdrawBody(idempotencyKey);
  const path = kind === "payment" ? "/api/v1/payments" : "/api/v1/withdraws";
  const tries = Math.random() < 0.3 ? 2 : 1;
  for (let attempt = 0; attempt < tries + 2; attempt++) {
    const answer = await client.send("POST", path, body, merchant);
    const id = answer?.body?.data?.id;
    if (answer && answer.status >= 200 && answer.status < 300 && typeof id === "string") {
      client.tally.remember({
        kind,
        id,
        merchantId: merchant.id,
        idempotencyKey,
        amountSatang: satangOf(body.amount),
      });
      (kind === "payment" ? pools.payments : pools.withdraws).push({ merchant, id });
      if (attempt + 1 >= tries) return;
    } else if (answer && answer.status !== 503) return;
  }
}

/**
 * Refunds a succeeded payment by a random part of its amount (sometimes more than is left, which
 * is refused), retrying like the other creates with the same key and body.
 */
async function refundWithRetry(client: Client, pools: Pools): Promise<void> {
  const target = pick(pools.succeeded);
  const idempotencyKey = key();
  const amountSatang = 1n + BigInt(Math.floor(Math.random() * Number(target.amountSatang)));
  const body = { amount: `${amountSatang}.00`, referenceId: idempotencyKey, reason: "chaos", idempotencyKey };
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await client.send("POST", `/api/v1/payments/${target.id}/refunds`, body, target.merchant);
    const id = answer?.body?.data?.id;
    if (answer && answer.status >= 200 && answer.status < 300 && typeof id === "string") {
      client.tally.remember({
        kind: "refund",
        id,
        merchantId: target.merchant.id,
        idempotencyKey,
        amountSatang,
      });
      pools.refunds.push({ merchant: target.merchant, id });
      return;
    }
    if (answer && answer.status !== 503) return;
  }
}

/** The simulated bank moves a refund, or the merchant cancels it. */
async function moveRefund(client: Client, pools: Pools): Promise<void> {
  const target = pick(pools.refunds);
  const roll = Math.random();
  if (roll < 0.2) {
    await client.send("POST", `/api/v1/refunds/${target.id}/cancel`, undefined, target.merchant);
    return;
  }
  const outcome = roll < 0.35 ? "processing" : roll < 0.8 ? "succeeded" : "failed";
  await client.send("POST", `/api/v1/sandbox/refunds/${target.id}/simulate`, { outcome }, target.merchant);
}

async function simulatePayment(client: Client, pools: Pools): Promise<void> {
  const target = pick(pools.payments);
  const answer = await client.send(
    "POST",
    `/api/v1/sandbox/payments/${target.id}/simulate`,
    { outcome: "succeeded" },
    target.merchant,
  );
  const amount = answer?.body?.data?.amount;
  if (answer?.status === 200 && typeof amount === "string") {
    pools.succeeded.push({ ...target, amountSatang: satangOf(amount) });
  }
}

async function oneOperation(client: Client, merchants: Merchant[], pools: Pools): Promise<void> {
  const merchant = pick(merchants);
  const roll = Math.random();
  if (roll < 0.2) return createWithRetry(client, merchant, "payment", pools);
  if (roll < 0.35) return createWithRetry(client, merchant, "withdraw", pools);
  if (roll < 0.48 && pools.payments.length > 0) return simulatePayment(client, pools);
  if (roll < 0.56 && pools.succeeded.length > 0) return refundWithRetry(client, pools);
  if (roll < 0.63 && pools.refunds.length > 0) return moveRefund(client, pools);
  if (roll < 0.68 && pools.withdraws.length > 0) {
    const target = pick(pools.withdraws);
    await client.send("POST", `/api/v1/withdraws/${target.id}/cancel`, undefined, target.merchant);
    return;
  }
  if (roll < 0.72 && pools.withdraws.length > 0) {
    const target = pick(pools.withdraws);
    await client.send("POST", `/admin/v1/withdraws/${target.id}/approve`, undefined, "admin");
    return;
  }
  await client.send("GET", "/api/v1/balance", undefined, merchant);
}

/** Runs `workers` loops of operations until `stop()` resolves true. */
export async function runWorkload(
  client: Client,
  merchants: Merchant[],
  workers: number,
  until: () => boolean,
): Promise<void> {
  const pools: Pools = { payments: [], withdraws: [], succeeded: [], refunds: [] };
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!until()) {
        await oneOperation(client, merchants, pools);
        if (pools.payments.length > 500) pools.payments.splice(0, 250);
        if (pools.withdraws.length > 500) pools.withdraws.splice(0, 250);
        if (pools.succeeded.length > 500) pools.succeeded.splice(0, 250);
        if (pools.refunds.length > 500) pools.refunds.splice(0, 250);
      }
    }),
  );
}
