/**
 * The database scenarios of the chaos harness (PostgreSQL): the database cut off for a few
 * seconds (a TCP proxy between server and PostgreSQL stops passing traffic; the shared cluster
 * itself is never stopped), one merchant's wallet row locked from outside, and a deadlock
 * between an outside transaction and the service.
 */
import pg from "pg";
import type { TcpProxy } from "../apps/server/test/helpers/tcp-proxy.ts";
import type { Client, Merchant } from "./chaos-workload.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface DatabaseStoppedResult {
  downMs: number;
  /** From the proxy passing traffic again to the first 200 of a balance read. */
  recoveryMs: number;
}

export async function databaseStopped(proxy: TcpProxy, client: Client, merchant: Merchant, downMs: number) {
  proxy.stop();
  await sleep(downMs);
  proxy.start();
  const back = Date.now();
  for (;;) {
    const answer = await client.send("GET", "/api/v1/balance", undefined, merchant);
    if (answer?.status === 200) break;
    if (Date.now() - back > 60_000) throw new Error("the service did not recover within 60 s");
    await sleep(20);
  }
  return { downMs, recoveryMs: Date.now() - back } satisfies DatabaseStoppedResult;
}

const WALLET_ROW = "select id from ledger_accounts where merchant_id = $1 and kind = $2 for update";

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await work();
  return { ms: Date.now() - started, value };
}

/** Sends the other merchant's balance reads and withdraws until `until`, timing each. */
async function otherMerchantLoop(client: Client, other: Merchant, until: number) {
  const latencies: number[] = [];
  const statuses: number[] = [];
  while (Date.now() < until) {
    for (const [method, path, body] of [
      ["GET", "/api/v1/balance", undefined],
      ["POST", "/api/v1/withdraws", withdrawOf()],
    ] as const) {
      const { ms, value } = await timed(() => client.send(method, path, body, other));
      latencies.push(ms);
      statuses.push(value?.status ?? 0);
    }
  }
  return { latencies, statuses };
}

/**
 * Holds merchant `locked`'s wallet row for `holdMs` from outside; meanwhile another merchant's
 * balance read and withdraw, and the locked merchant's withdraw, are timed. The same requests
 * of the other merchant are first timed for `holdMs` with no lock held: the baseline that tells
 * the lock's effect apart from the machine's load.
 */
export async function lockHeld(
  databaseUrl: string,
  client: Client,
  locked: Merchant,
  other: Merchant,
  holdMs: number,
) {
  const baseline = await otherMerchantLoop(client, other, Date.now() + holdMs);
  const outside = new pg.Client({ connectionString: databaseUrl });
  await outside.connect();
  let otherLatencies: number[] = [];
  let otherStatuses: number[] = [];
  const lockedStatuses: number[] = [];
  let lockedMaxMs = 0;
  try {
    await outside.query("begin");
    await outside.query(WALLET_ROW, [locked.id, "wallet_available"]);
    const until = Date.now() + holdMs;
    const lockedLoop = (async () => {
      while (Date.now() < until) {
        const { ms, value } = await timed(() =>
          client.send("POST", "/api/v1/withdraws", withdrawOf(), locked),
        );
        lockedMaxMs = Math.max(lockedMaxMs, ms);
        lockedStatuses.push(value?.status ?? 0);
      }
    })();
    ({ latencies: otherLatencies, statuses: otherStatuses } = await otherMerchantLoop(client, other, until));
    await lockedLoop;
  } finally {
    await outside.query("rollback").catch(() => {});
    await outside.end();
  }
  return {
    holdMs,
    baselineRequests: baseline.latencies.length,
    baselineMaxMs: Math.max(0, ...baseline.latencies),
    baselineMedianMs: median(baseline.latencies),
    otherRequests: otherLatencies.length,
    otherMaxMs: Math.max(0, ...otherLatencies),
    otherMedianMs: median(otherLatencies),
    otherStatuses: countOf(otherStatuses),
    lockedRequests: lockedStatuses.length,
    lockedMaxMs,
    lockedStatuses: countOf(lockedStatuses),
  };
}

/**
 * An outside transaction locks the merchant's held-funds row, the service's withdraw locks the
 * wallet and waits for that row, then the outside transaction asks for the wallet row: a
 * deadlock. PostgreSQL ends one side; the service retries when it is its side, so its answer is
 * 201 (or a refusal on the merits), never 500.
 */
export async function deadlock(databaseUrl: string, client: Client, merchant: Merchant) {
  const outside = new pg.Client({ connectionString: databaseUrl });
  await outside.connect();
  let victim = "service";
  let status = 0;
  try {
    await outside.query("begin");
    await outside.query(WALLET_ROW, [merchant.id, "wallet_held"]);
    const request = client.send("POST", "/api/v1/withdraws", withdrawOf(), merchant);
    await sleep(300);
    try {
      await outside.query(WALLET_ROW, [merchant.id, "wallet_available"]);
      await sleep(100);
    } catch (error) {
      if ((error as { code?: string }).code === "40P01") victim = "outside";
      else victim = `outside (${(error as { code?: string }).code})`;
    }
    await outside.query("rollback").catch(() => {});
    status = (await request)?.status ?? 0;
  } finally {
    await outside.end();
  }
  return { victim, serviceStatus: status };
}

function withdrawOf() {
  const key = `chaos-lock-${Math.random().toString(36).slice(2)}`;
  return {
    amount: "100.00",
    currency: "THB",
    referenceId: key,
    destinationType: "bank_account",
    customerBankAccountName: `Lock payee ${key.slice(-6)}`,
    customerBankAccountNumber: String(1_000_000_000 + Math.floor(Math.random() * 999_999_999)),
    customerBankCode: "004",
    idempotencyKey: key,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function countOf(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
