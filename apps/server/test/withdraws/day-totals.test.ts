/**
 * The per-day limit capacity the database keeps (migration 0070_withdraw_day_totals): after any
 * mix of inserts across days and months, status moves into and out of the counted statuses,
 * deletes and folds, the kept day and month totals equal summing the withdraws in
 * LIMIT_COUNTED_STATUSES; the limit check reads them; the migration totals what a store holds.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import { statements as dayTotalsMigration } from "../../src/db/migrations/0070_withdraw_day_totals.ts";
import { utcDay, utcMonth } from "../../src/withdraws/limits.ts";
import { LIMIT_COUNTED_STATUSES } from "../../src/withdraws/statuses.ts";
import { foldWithdrawDayTotals, usedCapacityInWindows } from "../../src/withdraws/store.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let counter = 0;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

const STATUSES = ["awaiting_verification", "pending", "processing", "paid", "failed", "canceled", "expired"];

/** Summing the withdraws themselves: what the kept totals must equal. */
async function summed(db: Db, merchantId: string, now: Date) {
  const day = utcDay(now);
  const month = utcMonth(now);
  const found = await sql<{ daily: string; monthly: string }>`
    SELECT coalesce(sum(amount_satang) FILTER (WHERE created_at >= ${day.from} AND created_at < ${day.to}), 0) AS daily,
      coalesce(sum(amount_satang), 0) AS monthly
    FROM withdraws WHERE merchant_id = ${merchantId} AND created_at >= ${month.from} AND created_at < ${month.to}
      AND status IN (${sql.join([...LIMIT_COUNTED_STATUSES])})`.execute(db);
  return { dailySatang: BigInt(found.rows[0]!.daily), monthlySatang: BigInt(found.rows[0]!.monthly) };
}

async function assertKeptEqualsSummed(merchantId: string, instants: Date[]) {
  for (const now of instants) {
    const kept = await usedCapacityInWindows(svc.deps.db, {
      merchantId,
      day: utcDay(now),
      month: utcMonth(now),
    });
    assert.deepEqual(kept, await summed(svc.deps.db, merchantId, now), now.toISOString());
  }
}

/** The stamps a status needs (paid_at, canceled_at, verification_expires_at), as SET columns. */
function stamps(status: string) {
  return sql`paid_at = ${status === "paid" ? sql`coalesce(paid_at, now())` : sql`paid_at`},
    canceled_at = ${status === "canceled" ? sql`coalesce(canceled_at, now())` : sql`canceled_at`},
    verification_expires_at = ${status === "awaiting_verification" ? sql`coalesce(verification_expires_at, now())` : sql`verification_expires_at`}`;
}

/** `n` copies of the template withdraw in one statement, created `dayOffset` days after it. */
async function cloneWithdraws(
  templateId: string,
  n: number,
  status: string,
  dayOffset: number,
  amount: number,
) {
  counter += 1;
  await sql`INSERT INTO withdraws (id, merchant_id, integration_id, amount_satang, currency, status,
      reference_id, destination_type, destination_id, bank_account_name, bank_account_number, bank_code,
      idempotency_key, request_hash, created_at, updated_at)
    SELECT gen_random_uuid(), merchant_id, integration_id, ${amount}, currency, 'failed',
      'clone-' || ${counter} || '-' || g, destination_type, destination_id, bank_account_name,
      bank_account_number, bank_code, 'clone-' || ${counter} || '-' || g, request_hash,
      created_at + make_interval(days => ${dayOffset}, hours => g), updated_at
    FROM withdraws, generate_series(1, ${n}) g WHERE id = ${templateId}`.execute(svc.deps.db);
  // Inserted as failed (no stamps needed), then moved in a second statement when asked: both
  // statements' changes must add up.
  if (status !== "failed")
    await sql`UPDATE withdraws SET status = ${status}, ${stamps(status)}
      WHERE reference_id LIKE ${`clone-${counter}-%`}`.execute(svc.deps.db);
}

async function moveWithdraws(merchantId: string, n: number, status: string) {
  await sql`UPDATE withdraws SET status = ${status}, ${stamps(status)}
    WHERE id IN (SELECT id FROM withdraws WHERE merchant_id = ${merchantId} AND reference_id LIKE 'clone-%'
      ORDER BY md5(id::text) LIMIT ${n})`.execute(svc.deps.db);
}

async function deleteWithdraws(merchantId: string, n: number) {
  await sql`DELETE FROM withdraws WHERE id IN (SELECT id FROM withdraws
    WHERE merchant_id = ${merchantId} AND reference_id LIKE 'clone-%' ORDER BY md5(id::text) LIMIT ${n})`.execute(
    svc.deps.db,
  );
}

const status = fc.constantFrom(...STATUSES);
const operation = fc.oneof(
  fc.record({
    op: fc.constant("insert" as const),
    n: fc.integer({ min: 1, max: 5 }),
    status,
    // Days after the template: the same day, later that month, the next months.
    dayOffset: fc.constantFrom(0, 1, 5, 27, 31, 45, 70),
    amount: fc.integer({ min: 1, max: 100_000 }),
  }),
  fc.record({ op: fc.constant("move" as const), n: fc.integer({ min: 1, max: 6 }), status }),
  fc.record({ op: fc.constant("delete" as const), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant("fold" as const), batch: fc.integer({ min: 1, max: 3 }) }),
);

async function createWithdraw(credentials: Awaited<ReturnType<typeof fundedMerchant>>, amount: string) {
  // Each to its own account, so the payout guard never takes one for a repeat of another.
  counter += 1;
  const account = String(7_000_000_000 + counter);
  return svc.request(
    "POST",
    "/api/v1/withdraws",
    withdrawBody({ amount, customerBankAccountNumber: account }),
    {
      credentials,
    },
  );
}

describe("kept withdraw day totals", () => {
  it("equal summing the counted withdraws of the day and month, after any inserts, moves, deletes and folds", async () => {
    const shop = await fundedMerchant(svc);
    const template = await createWithdraw(shop, "10.00");
    assert.equal(template.status, 201, JSON.stringify(template.body));
    const start = new Date(template.body.data.createdAt);
    const instants = [0, 1, 5, 27, 31, 45, 70, 100].map(
      (days) => new Date(start.getTime() + days * 86_400_000),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (ops) => {
        for (const step of ops) {
          if (step.op === "insert")
            await cloneWithdraws(template.body.data.id, step.n, step.status, step.dayOffset, step.amount);
          else if (step.op === "move") await moveWithdraws(shop.merchantId, step.n, step.status);
          else if (step.op === "delete") await deleteWithdraws(shop.merchantId, step.n);
          else await foldWithdrawDayTotals(svc.deps.db, step.batch);
        }
        await assertKeptEqualsSummed(shop.merchantId, instants);
      }),
      { numRuns: 12, endOnFailure: true },
    );
    while ((await foldWithdrawDayTotals(svc.deps.db, 3)) > 0);
    await assertKeptEqualsSummed(shop.merchantId, instants);
  });

  it("are what the limit check reads: capacity used by hand is capacity used", async () => {
    const shop = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n });
    assert.equal((await createWithdraw(shop, "400")).status, 201);
    const day = new Date(svc.clock.now()).toISOString().slice(0, 10);
    await sql`INSERT INTO withdraw_day_changes (merchant_id, day, amount_satang)
      VALUES (${shop.merchantId}, ${day}::date, 500)`.execute(svc.deps.db);
    // 400 + 500 satang used of 1,000: 100 fits exactly, one satang more does not.
    const over = await createWithdraw(shop, "101");
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(over.body.error.metadata.dailyTotal, "900.00");
    assert.equal((await createWithdraw(shop, "100")).status, 201);
  });

  it("leave the limits exact when a withdraw is canceled: its capacity comes back", async () => {
    const shop = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n });
    const first = await createWithdraw(shop, "1000");
    assert.equal(first.status, 201);
    assert.equal((await createWithdraw(shop, "1")).status, 400);
    const canceled = await svc.request("POST", `/api/v1/withdraws/${first.body.data.id}/cancel`, undefined, {
      credentials: shop,
    });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal((await createWithdraw(shop, "1000")).status, 201);
  });
});

describe("migration 0070_withdraw_day_totals", () => {
  it("totals the withdraws a store already holds", async () => {
    const shop = await fundedMerchant(svc);
    for (const amount of ["1200", "1300"]) assert.equal((await createWithdraw(shop, amount)).status, 201);
    const db = svc.deps.db;
    await db.transaction().execute(async (trx) => {
      await sql`DROP TABLE withdraw_day_totals, withdraw_day_changes`.execute(trx);
      await sql`DROP FUNCTION withdraws_day_totals() CASCADE`.execute(trx);
      for (const statement of dayTotalsMigration) await sql.raw(statement).execute(trx);
    });
    const now = new Date(svc.clock.now());
    const kept = await usedCapacityInWindows(db, {
      merchantId: shop.merchantId,
      day: utcDay(now),
      month: utcMonth(now),
    });
    assert.deepEqual(kept, { dailySatang: 2500n, monthlySatang: 2500n });
    assert.deepEqual(kept, await summed(db, shop.merchantId, now));
  });
});
