/**
 * Counts what the database executes for one request of each hot kind: every statement the
 * driver sends (BEGIN and COMMIT included) and the commits among them, counted at the driver
 * (pg's Client.query, PGlite's query), not estimated. The app runs in this process and is
 * driven with Fastify's inject, after one warm-up request of each kind.
 *
 *   node --import tsx bench/count.ts                 # embedded store (PGlite)
 *   BENCH_DATABASE_URL=postgres://... node --import tsx bench/count.ts
 *   COUNT_VERBOSE=1 ...                              # also print each statement (its first
 *                                                    # COUNT_VERBOSE_CHARS characters, default 160)
 *
 * `countRequests()` is what bench/run.ts prints beside its load figures.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { signRequest } from "@satang/sdk";
import pg from "pg";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps } from "../apps/server/src/deps.ts";
import { createIntegration } from "../apps/server/src/integrations/service.ts";
import { adjustWallet } from "../apps/server/src/ledger/adjustments.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { createMerchant } from "../apps/server/src/merchants/service.ts";

interface Recorded {
  statements: string[];
  /** Statements sent while the connection had none unanswered: each starts a round trip. */
  roundTrips: number;
  /** With EXPLAIN on: each parameterised statement's plan, asked just before it on its connection. */
  plans?: Promise<string>[];
}

let recording: Recorded | undefined;

function textOf(first: unknown): string {
  if (typeof first === "string") return first;
  if (first && typeof first === "object" && "text" in first) return String((first as { text: unknown }).text);
  return String(first);
}

function valuesOf(args: unknown[]): unknown[] {
  const first = args[0];
  if (first && typeof first === "object" && "values" in first) return (first as { values: unknown[] }).values;
  return Array.isArray(args[1]) ? args[1] : [];
}

/**
 * The plan of a statement, asked on the same connection just before the statement runs (so in
 * its transaction): reads are run (EXPLAIN ANALYZE), writes only planned.
 */
function explainOn(
  original: (...args: unknown[]) => unknown,
  self: unknown,
  args: unknown[],
): Promise<string> {
  const text = textOf(args[0]);
  const analyze = /^\s*select\b/i.test(text) && !/\bfor (update|share|no key update)\b/i.test(text);
  const explain = `EXPLAIN (${analyze ? "ANALYZE, " : ""}COSTS OFF) ${text}`;
  const answer = original.call(self, explain, valuesOf(args)) as Promise<{ rows: Record<string, string>[] }>;
  return answer.then(
    (result) =>
      `${text.replace(/\s+/g, " ").trim()}\n${result.rows.map((row) => Object.values(row)[0]).join("\n")}`,
    (error: Error) => `${text.replace(/\s+/g, " ").trim()}\n(no plan: ${error.message})`,
  );
}

/** Whether a pg connection has a statement sent and not answered yet (sent together, db/pg-driver.ts). */
function inFlight(client: unknown): boolean {
  const state = client as { _activeQuery?: unknown; _sentQueryQueue?: unknown[] };
  return Boolean(state._activeQuery) || (state._sentQueryQueue?.length ?? 0) > 0;
}

function wrap<T extends object>(proto: T, method: keyof T): void {
  const original = proto[method] as unknown as (...args: unknown[]) => unknown;
  (proto as Record<string, unknown>)[method as string] = function (this: unknown, ...args: unknown[]) {
    if (recording && !inFlight(this)) recording.roundTrips += 1;
    recording?.statements.push(textOf(args[0]).replace(/\s+/g, " ").trim());
    if (recording?.plans && valuesOf(args).length > 0) recording.plans.push(explainOn(original, this, args));
    return original.apply(this, args);
  };
}

/** Runs `work` while recording its statements and, with `explain`, their plans. */
export async function recorded<T>(
  work: () => Promise<T>,
  explain = false,
): Promise<{ result: T; statements: string[]; roundTrips: number; plans: string[] }> {
  install();
  const current: Recorded = { statements: [], roundTrips: 0, ...(explain ? { plans: [] } : {}) };
  recording = current;
  try {
    const result = await work();
    return {
      result,
      statements: current.statements,
      roundTrips: current.roundTrips,
      plans: await Promise.all(current.plans ?? []),
    };
  } finally {
    recording = undefined;
  }
}

let installed = false;
function install(): void {
  if (installed) return;
  installed = true;
  wrap(pg.Client.prototype, "query");
  wrap(PGlite.prototype, "query");
}

export interface RequestCount {
  name: string;
  status: number;
  statements: number;
  /** Round trips to the database (statements sent together share one: db/pg-driver.ts). */
  roundTrips: number;
  commits: number;
  texts: string[];
  /** With `explain`: the plan of each parameterised statement. */
  plans: string[];
}

/** Commits: each COMMIT, and each write sent outside a transaction (it commits on its own). */
function commitsOf(statements: string[]): number {
  let inTransaction = false;
  let commits = 0;
  for (const text of statements) {
    if (/^(begin|start transaction)\b/i.test(text)) inTransaction = true;
    else if (/^commit\b/i.test(text)) {
      commits += 1;
      inTransaction = false;
    } else if (/^rollback\b/i.test(text)) inTransaction = false;
    else if (!inTransaction && /^(with\b[\s\S]*\b)?(insert|update|delete)\b/i.test(text)) commits += 1;
  }
  return commits;
}

function countOf(
  name: string,
  status: number,
  recorded: { statements: string[]; roundTrips: number; plans: string[] },
): RequestCount {
  const { statements, roundTrips, plans } = recorded;
  return {
    name,
    status,
    statements: statements.length,
    roundTrips,
    commits: commitsOf(statements),
    texts: statements,
    plans,
  };
}

let sequence = 0;
function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${sequence}`;
}

/** A create for a customer of its own: with PromptPay reuse on (the merchant's default), a new payment. */
function paymentBody(): string {
  return JSON.stringify({
    amount: "100.00",
    referenceId: unique("count-pay"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(1_000_000_000 + sequence),
    customerBankCode: "004",
  });
}

function withdrawBody(): string {
  return JSON.stringify({
    amount: "10.00",
    currency: "THB",
    referenceId: unique("count-wd"),
    destinationType: "bank_account",
    // Distinct names, so the duplicate-payout guard never holds one back.
    customerBankAccountName: `Payee ${randomBytes(6).toString("hex")}`,
    customerBankAccountNumber: "123-456-7890",
    customerBankCode: "004",
  });
}

/** Statements and commits of one create payment, retrieve, list and create withdraw. */
export async function countRequests(
  databaseUrl: string | undefined,
  explain = false,
): Promise<RequestCount[]> {
  install();
  const store = await openStore(databaseUrl ? { databaseUrl, poolSize: 4 } : { memory: true });
  try {
    await migrateToLatest(store.db);
    const config = loadConfig({ RATE_LIMIT_PER_MINUTE: "10000000", ADMIN_TOKEN: "bench-admin-token-000000" });
    const deps = buildDeps({
      config,
      db: store.db,
      storeKind: store.kind,
      secrets: new SecretBox(Buffer.alloc(32, 3)),
    });
    const merchant = await createMerchant(deps, {
      name: "Count Shop",
      promptpayId: "0812345678",
      collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Count Shop" },
    });
    await adjustWallet(deps, merchant.id, { amountSatang: 100_000_000n, reason: "bench funding" });
    const { apiKey, apiSecret } = await createIntegration(deps, merchant.id);
    const app = await buildApp(deps);
    await app.ready();
    const send = async (method: "GET" | "POST", url: string, body = "", version: "v1" | "v2" = "v2") => {
      const headers: Record<string, string> = signRequest({
        apiKey,
        apiSecret,
        body,
        method,
        path: url,
        version,
      });
      if (body) headers["content-type"] = "application/json";
      return app.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
    };
    const measure = async (name: string, run: () => Promise<{ statusCode: number }>) => {
      await run(); // warm-up: caches filled, statements prepared
      // Let a warm-up's trailing work (notifications, sweeps) settle before counting.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const counted = await recorded(run, explain);
      return countOf(name, counted.result.statusCode, counted);
    };
    const created = await send("POST", "/api/v1/payments", paymentBody());
    const paymentId = (created.json() as { data: { id: string } }).data.id;
    const results = [
      await measure("create payment (default merchant, reuse on)", () =>
        send("POST", "/api/v1/payments", paymentBody()),
      ),
      await measure("retrieve payment", () => send("GET", `/api/v1/payments/${paymentId}`)),
      // A v1 read's signature is recorded, so that no write can use it later (docs/authentication.md).
      await measure("retrieve payment, v1 signed", () =>
        send("GET", `/api/v1/payments/${paymentId}`, "", "v1"),
      ),
      await measure("list payments (default)", () => send("GET", "/api/v1/payments")),
      await measure("create withdraw", () => send("POST", "/api/v1/withdraws", withdrawBody())),
    ];
    await app.close();
    return results;
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const results = await countRequests(databaseUrl);
  console.log(`store: ${databaseUrl ? "PostgreSQL" : "PGlite (embedded)"}`);
  for (const result of results) {
    console.log(
      `${result.name.padEnd(30)} HTTP ${result.status}  statements ${result.statements}  round trips ${result.roundTrips}  commits ${result.commits}`,
    );
    if (process.env.COUNT_VERBOSE)
      for (const text of result.texts)
        console.log(`    ${text.slice(0, Number(process.env.COUNT_VERBOSE_CHARS ?? 160))}`);
  }
}
