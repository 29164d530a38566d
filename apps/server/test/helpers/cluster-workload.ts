/**
 * Requests for the multi-node tests, over the chaos harness's client (reliability/): merchants
 * made through the operator API, creates retried with the same idempotency key on another
 * node, and withdraws racing for one wallet from every node at once.
 */
import { randomBytes } from "node:crypto";
import type { Client, Merchant, Tally } from "../../../../reliability/chaos-workload.ts";

// Amount strings as the chaos harness reads them (its satangOf): "1000.00" counts as 1000.
const units = (amount: string) => BigInt(amount.split(".")[0] ?? "0");

export interface MerchantSpec {
  dailyLimit: string;
  monthlyLimit: string;
  /** Credited to the wallet with the operator's adjustment, e.g. "+10000.00"; none when absent. */
  funding?: string;
  /** Subscribes an endpoint to every event when given. */
  webhookUrl?: string;
}

export interface TestMerchant extends Merchant {
  integrationId: string;
}

async function expectStatus(
  client: Client,
  what: string,
  status: number,
  ...args: Parameters<Client["send"]>
) {
  const answer = await client.send(...args);
  if (answer?.status !== status) throw new Error(`${what}: ${answer?.status} ${answer?.text}`);
  return answer.body?.data ?? {};
}

/** A merchant with limits, one integration, optionally a funded wallet and a webhook endpoint. */
export async function createMerchant(client: Client, spec: MerchantSpec): Promise<TestMerchant> {
  const created = await expectStatus(
    client,
    "create merchant",
    201,
    "POST",
    "/admin/v1/merchants",
    {
      name: `Cluster merchant ${randomBytes(3).toString("hex")}`,
      dailyWithdrawLimit: spec.dailyLimit,
      monthlyWithdrawLimit: spec.monthlyLimit,
      promptpayId: "0812345678",
    },
    "admin",
  );
  const id = String(created.id);
  const integration = await expectStatus(
    client,
    "create integration",
    201,
    "POST",
    `/admin/v1/merchants/${id}/integrations`,
    {},
    "admin",
  );
  const merchant: TestMerchant = {
    id,
    integrationId: String(integration.id),
    apiKey: String(integration.apiKey),
    apiSecret: String(integration.apiSecret),
    dailyLimitSatang: units(spec.dailyLimit),
    monthlyLimitSatang: units(spec.monthlyLimit),
  };
  if (spec.funding) {
    const path = `/admin/v1/merchants/${id}/wallet/adjustments`;
    await expectStatus(
      client,
      "fund wallet",
      201,
      "POST",
      path,
      { amount: spec.funding, reason: "cluster test funding" },
      "admin",
    );
  }
  if (spec.webhookUrl) {
    const body = { url: spec.webhookUrl, events: ["*"] };
    await expectStatus(client, "create endpoint", 201, "POST", "/api/v1/webhook-endpoints", body, merchant);
  }
  return merchant;
}

/** Sends until answered with anything but 503 (or no answer at all), at most 30 times. */
export async function sendAnswered(client: Client, ...args: Parameters<Client["send"]>) {
  for (let attempt = 0; attempt < 30; attempt++) {
    const answer = await client.send(...args);
    if (answer && answer.status !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${args[0]} ${args[1]}: no answer but 503 after 30 tries`);
}

export function paymentBody(idempotencyKey: string, amount: string) {
  return {
    amount,
    currency: "THB",
    referenceId: idempotencyKey,
    paymentMethod: "promptpay",
    customerBankAccountName: "Cluster Customer",
    customerBankAccountNumber: String(4_000_000_000 + Math.floor(Math.random() * 999_999_999)),
    customerBankCode: "014",
    idempotencyKey,
  };
}

export function withdrawBody(idempotencyKey: string, amount: string) {
  return {
    amount,
    currency: "THB",
    referenceId: idempotencyKey,
    destinationType: "bank_account",
    // Distinct names: the matching-payout guard refuses equal amounts to similar names.
    customerBankAccountName: `Payee ${randomBytes(5).toString("hex")}`,
    customerBankAccountNumber: String(1_000_000_000 + Math.floor(Math.random() * 999_999_999)),
    customerBankCode: "004",
    idempotencyKey,
  };
}

export interface IdempotencyOutcome {
  /** Every answer's status (with the body when not 2xx), per key. */
  statuses: Array<Array<number | string>>;
  /** Keys answered with more than one payment id. */
  conflicts: string[];
  paymentIds: string[];
}

/**
 * `keys` payments, each sent at once to every node with one key and one body, then once more
 * to the first node: every answer must name one payment. The ids go to the tally.
 */
export async function paymentsOnEveryNode(
  clients: Client[],
  merchant: Merchant,
  tally: Tally,
  keys: number,
): Promise<IdempotencyOutcome> {
  const outcome: IdempotencyOutcome = { statuses: [], conflicts: [], paymentIds: [] };
  await Promise.all(
    Array.from({ length: keys }, async (_, i) => {
      const key = `cluster-pay-${randomBytes(6).toString("hex")}`;
      const body = paymentBody(key, `${100 + i}.00`);
      const send = (client: Client) => sendAnswered(client, "POST", "/api/v1/payments", body, merchant);
      const answers = await Promise.all(clients.map(send));
      answers.push(await send(clients[0] as Client));
      outcome.statuses.push(answers.map((a) => (a.status < 300 ? a.status : `${a.status} ${a.text}`)));
      const ids = new Set(answers.map((a) => String(a.body?.data?.id)));
      if (ids.size !== 1) outcome.conflicts.push(key);
      const id = [...ids][0] as string;
      if (answers.every((a) => a.status === 200 || a.status === 201)) {
        tally.remember({
          kind: "payment",
          id,
          merchantId: merchant.id,
          idempotencyKey: key,
          amountSatang: units(body.amount),
        });
        outcome.paymentIds.push(id);
      }
    }),
  );
  return outcome;
}

/** `count` withdraws of `amount` for one wallet, sent at once, spread over every node. */
export async function racingWithdraws(
  clients: Client[],
  merchant: Merchant,
  tally: Tally,
  count: number,
  amount: string,
): Promise<{ admitted: number; refused: Record<string, number> }> {
  const refused: Record<string, number> = {};
  let admitted = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const key = `cluster-wd-${randomBytes(6).toString("hex")}`;
      const client = clients[i % clients.length] as Client;
      const answer = await sendAnswered(
        client,
        "POST",
        "/api/v1/withdraws",
        withdrawBody(key, amount),
        merchant,
      );
      if (answer.status === 201) {
        admitted += 1;
        const id = String(answer.body?.data?.id);
        tally.remember({
          kind: "withdraw",
          id,
          merchantId: merchant.id,
          idempotencyKey: key,
          amountSatang: units(amount),
        });
      } else {
        const code = `${answer.status} ${answer.body?.error?.code}`;
        refused[code] = (refused[code] ?? 0) + 1;
      }
    }),
  );
  return { admitted, refused };
}
