/**
 * The jobs' due scans read only what can be due (lifecycle/business-time-sql.ts): the expiry
 * claim's index scan stops at the latest business now of any merchant instead of reading every
 * open payment, and a merchant whose test clock runs ahead still has its due payments found.
 *
 * Each claim's generic plan (the plan PostgreSQL may keep for a named statement, made without
 * its parameters' values) reads the claimed table through the partial index made for the claim
 * (lifecycle/store.ts). With the statuses sent as parameters it could not: in a young database
 * the expiry claim's generic plan read every open payment of each merchant every second.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CompiledQuery as Compiled, CompiledQuery } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import { withTransaction } from "../../src/db/handles.ts";
import { cancelPendingDeliveriesOf } from "../../src/events/store.ts";
import { claimDueCollections, dueConfirmationRechecks } from "../../src/lifecycle/collections-store.ts";
import {
  claimDuePayments,
  claimDuePayouts,
  claimDueSettlements,
  claimDueVerifications,
  claimPendingRefunds,
  claimPendingWithdraws,
  duePaymentsQuery,
  merchantsDueSettlement,
  merchantsDueVerificationExpiry,
} from "../../src/lifecycle/store.ts";
import { countUndecided } from "../../src/lifecycle/undecided-store.ts";
import { claimPendingForBatch, claimPendingRefundsForBatch } from "../../src/payout-desk/store.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { advanceClock, createPayment, MINUTE_MS } from "../helpers/lifecycle.ts";
import { recordingDb } from "../helpers/recording-db.ts";

let svc: TestService;
let shop: Credentials;
let ahead: Credentials;
const due: string[] = [];

before(async () => {
  svc = await startService();
  shop = await svc.newMerchant();
  ahead = await svc.newMerchant();
  for (let i = 0; i < 3; i += 1) due.push((await createPayment(svc, shop, { expiresInMinutes: 5 })).id);
  for (let i = 0; i < 40; i += 1) await createPayment(svc, shop, { expiresInMinutes: 60 });
  // Due only by its own clock: its test clock runs 45 minutes ahead, then its payment is made
  // to expire in 5 minutes of that clock, which the 10 minutes below pass.
  await advanceClock(svc, ahead, 45 * 60);
  due.push((await createPayment(svc, ahead, { expiresInMinutes: 5 })).id);
  svc.clock.advance(10 * MINUTE_MS);
});
after(async () => {
  await svc.close();
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  Plans?: PlanNode[];
}

function scansOf(node: PlanNode, table: string): PlanNode[] {
  const own = node["Relation Name"] === table ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(child, table))];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The statement a call sends, caught by a database that answers nothing. */
async function statementOf(call: (db: Db) => Promise<unknown>): Promise<Compiled> {
  const { db, sent } = recordingDb();
  // A call that expects a row (a count) fails on the empty answer, after its statement is caught.
  await call(db as unknown as Db).catch(() => undefined);
  assert.equal(sent.length, 1);
  return sent[0]!;
}

/** A parameter's value written as an SQL literal, for EXECUTE. */
function literal(value: unknown): string {
  if (value === null) return "NULL";
  if (value instanceof Date) return `'${value.toISOString()}'::timestamptz`;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`no literal for ${String(value)}`);
}

/**
 * The generic plan of `statement` as it ran (EXPLAIN ANALYZE EXECUTE of it prepared, with
 * `plan_cache_mode = force_generic_plan`), rolled back. Sequential scans are off, as a table of
 * thousands of rows would have the planner choose: on these few rows it might read the table
 * whole either way.
 */
async function genericPlan(db: Db, statement: Compiled): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  await withTransaction(db, async (trx) => {
    await trx.executeQuery(CompiledQuery.raw("SET LOCAL plan_cache_mode = force_generic_plan"));
    await trx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
    await trx.executeQuery(CompiledQuery.raw(`PREPARE due_scan_claim AS ${statement.sql}`));
    try {
      const values = statement.parameters.map(literal).join(", ");
      const explain = `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE due_scan_claim${values ? `(${values})` : ""}`;
      const { rows } = await trx.executeQuery<{ "QUERY PLAN": unknown }>(CompiledQuery.raw(explain));
      const raw = rows[0]?.["QUERY PLAN"];
      plan = ((typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[])[0]!.Plan;
    } finally {
      // After a failed EXPLAIN the transaction refuses every statement: the EXPLAIN's error is
      // the one to see, not this one's.
      await trx.executeQuery(CompiledQuery.raw("DEALLOCATE due_scan_claim")).catch(() => undefined);
    }
    // Nothing a claim locked stays locked.
    throw new RolledBack();
  }).catch((error: unknown) => {
    if (!(error instanceof RolledBack)) throw error;
  });
  return plan!;
}

class RolledBack extends Error {}

/** Asserts that every read of `table` in `plan` goes through `index` (the claim named `name`). */
function assertReadsThrough(name: string, plan: PlanNode, table: string, index: string): void {
  const scans = scansOf(plan, table);
  assert.ok(scans.length > 0, `${name}: no read of ${table}: ${JSON.stringify(plan)}`);
  for (const scan of scans) {
    const through = scan["Index Name"] ?? nodesOf(scan).find((node) => node["Index Name"])?.["Index Name"];
    const read = `${scan["Node Type"]} ${through ?? ""}`;
    assert.equal(through, index, `${name}: ${table} read by ${read}: ${JSON.stringify(plan)}`);
  }
}

describe("due scans", () => {
  it("the expiry claim's index scan reads the due payments, not every open one", async () => {
    await withTransaction(svc.deps.db, async (trx) => {
      // Force the index, as a table of thousands of open payments would: on these few rows the
      // planner might otherwise read the table whole either way.
      await trx.executeQuery(CompiledQuery.raw("SET LOCAL enable_seqscan = off"));
      const compiled = duePaymentsQuery(trx, { now: svc.clock.now(), limit: 100 }).compile();
      const { rows } = await trx.executeQuery<{ "QUERY PLAN": unknown }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${compiled.sql}`, [...compiled.parameters]),
      );
      const raw = rows[0]?.["QUERY PLAN"];
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      const scans = scansOf(plan[0]!.Plan, "payments");
      assert.equal(scans.length, 1, JSON.stringify(plan));
      const read = scans[0]!["Actual Rows"] * scans[0]!["Actual Loops"];
      assert.ok(read <= due.length, `the scan read ${read} payments for ${due.length} due (of 44 open)`);
    });
  });

  it("the expiry claim's generic plan reads the due payments through payments_expiry_due, in its order", async () => {
    const now = svc.clock.now();
    const plan = await genericPlan(
      svc.deps.db,
      await statementOf((db) => claimDuePayments(db, { now, limit: 100 })),
    );
    assertReadsThrough("expiry", plan, "payments", "payments_expiry_due");
    const [scan] = scansOf(plan, "payments");
    const read = scan!["Actual Rows"] * scan!["Actual Loops"];
    assert.ok(read <= due.length, `the scan read ${read} payments for ${due.length} due (of 44 open)`);
    // The index's order is the claim's: nothing is sorted, and the merchants are read per payment.
    assert.ok(!nodesOf(plan).some((node) => node["Node Type"] === "Sort"), JSON.stringify(plan));
  });

  it("every other job's scan has a generic plan that reads through the partial index made for it", async () => {
    const now = svc.clock.now();
    const claims: [string, (db: Db) => Promise<unknown>, string, string][] = [
      [
        "settlement",
        (db) => claimDueSettlements(db, { now, limit: 100 }),
        "payments",
        "payments_settlement_due",
      ],
      [
        "merchants to settle",
        (db) => merchantsDueSettlement(db, { now, limit: 100 }),
        "payments",
        "payments_settlement_due",
      ],
      [
        "payout dispatch",
        (db) => claimPendingWithdraws(db, { limit: 100 }),
        "withdraws",
        "withdraws_pending_dispatch",
      ],
      ["refund dispatch", (db) => claimPendingRefunds(db, { limit: 100 }), "refunds", "refunds_open_status"],
      [
        "verification expiry",
        (db) => claimDueVerifications(db, { now, limit: 100 }),
        "withdraws",
        "withdraws_verification_expiry",
      ],
      [
        "merchants with verifications due",
        (db) => merchantsDueVerificationExpiry(db, { now, limit: 100 }),
        "withdraws",
        "withdraws_verification_expiry",
      ],
      ["payout checks", (db) => claimDuePayouts(db, { now, limit: 100 }), "payouts", "payouts_due"],
      ["undecided payouts", (db) => countUndecided(db, now, 60_000), "payouts", "payouts_open_created"],
      [
        "collection checks",
        (db) =>
          claimDueCollections(db, {
            providers: ["scb"],
            now,
            firstCheckBefore: now,
            expiredSince: now,
            nextCheckAt: now,
            limit: 100,
          }),
        "payments",
        "payments_collection_open",
      ],
      [
        "confirmation re-checks",
        (db) => dueConfirmationRechecks(db, ["scb"], now, 100),
        "provider_confirmations",
        "provider_confirmations_recheck",
      ],
      [
        "an endpoint's pending deliveries",
        (db) => cancelPendingDeliveriesOf(db, "00000000-0000-4000-8000-000000000001", now),
        "webhook_deliveries",
        "webhook_deliveries_endpoint_due",
      ],
      [
        "payout desk withdraws",
        (db) => claimPendingForBatch(db, { limit: 100 }),
        "withdraws",
        "withdraws_pending_dispatch",
      ],
      [
        "payout desk refunds",
        (db) => claimPendingRefundsForBatch(db, { limit: 100 }),
        "refunds",
        "refunds_open_status",
      ],
    ];
    // Every scan is checked, and every one that reads otherwise is named.
    const misread: string[] = [];
    for (const [name, claim, table, index] of claims) {
      const plan = await genericPlan(svc.deps.db, await statementOf(claim));
      try {
        assertReadsThrough(name, plan, table, index);
      } catch (error) {
        misread.push((error as Error).message.slice(0, 240));
      }
    }
    assert.deepEqual(misread, []);
  });

  it("claims exactly the due payments, the one due by its merchant's clock ahead included", async () => {
    const claimed = await withTransaction(svc.deps.db, (trx) =>
      claimDuePayments(trx, { now: svc.clock.now(), limit: 100 }),
    );
    assert.deepEqual(claimed.map(({ row }) => row.id).sort(), [...due].sort());
  });
});
