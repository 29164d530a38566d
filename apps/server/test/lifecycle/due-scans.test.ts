/**
 * The jobs' due scans read only what can be due (lifecycle/business-time-sql.ts): the expiry
 * claim's index scan stops at the latest business now of any merchant instead of reading every
 * open payment, and a merchant whose test clock runs ahead still has its due payments found.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CompiledQuery } from "kysely";
import { withTransaction } from "../../src/db/handles.ts";
import { claimDuePayments, duePaymentsQuery } from "../../src/lifecycle/store.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { advanceClock, createPayment, MINUTE_MS } from "../helpers/lifecycle.ts";

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

  it("claims exactly the due payments, the one due by its merchant's clock ahead included", async () => {
    const claimed = await withTransaction(svc.deps.db, (trx) =>
      claimDuePayments(trx, { now: svc.clock.now(), limit: 100 }),
    );
    assert.deepEqual(claimed.map(({ row }) => row.id).sort(), [...due].sort());
  });
});
