/**
 * The counts the database keeps for list totals (migration 0050_list_counts, db/list-counts.ts):
 * after any mix of inserts (one row or many per statement), status and method changes, deletes
 * and folds, concurrent or not, the kept total of every filter equals counting the rows. The
 * list routes read it; a date range still counts rows; the migration counts what the tables
 * already hold.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import { type CountedFilters, countedTotal, foldListCounts } from "../../src/db/list-counts.ts";
import { statements as listCountsMigration } from "../../src/db/migrations/0050_list_counts.ts";
import type { CountedList } from "../../src/db/types.ts";
import { keptTotalsFoldJob } from "../../src/jobs/kept-totals.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let counter = 0;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

const PAYMENT_STATUSES = ["requires_action", "processing", "succeeded", "expired", "canceled"] as const;
const PAYMENT_METHODS = ["promptpay", "bank_transfer", null] as const;

function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    amount: "1000.00",
    referenceId: `count-${counter}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(5_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function createPayment(credentials: Credentials, overrides: Record<string, unknown> = {}) {
  const res = await svc.request("POST", "/api/v1/payments", paymentBody(overrides), { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string };
}

async function keptTotal(db: Db, filters: CountedFilters): Promise<number> {
  const found = await sql<{ n: string }>`SELECT ${countedTotal(filters)} AS n`.execute(db);
  return Number(found.rows[0]!.n);
}

async function rowCount(db: Db, filters: CountedFilters): Promise<number> {
  const table = filters.resource;
  const variant = table === "payments" ? sql`coalesce(payment_method, '')` : sql.ref("destination_type");
  const status = filters.status === undefined ? sql`` : sql` AND status = ${filters.status}`;
  const kind = filters.variant === undefined ? sql`` : sql` AND ${variant} = ${filters.variant}`;
  const found = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}
    WHERE merchant_id = ${filters.merchantId}${status}${kind}`.execute(db);
  return Number(found.rows[0]!.n);
}

/** Every filter a list can combine without a date range, for `merchants`, kept == counted. */
async function assertTotalsExact(
  resource: CountedList,
  merchants: string[],
  statuses: readonly string[],
  variants: readonly string[],
) {
  const db = svc.deps.db;
  for (const merchantId of merchants) {
    for (const status of [undefined, ...statuses]) {
      for (const variant of [undefined, ...variants]) {
        const filters = { resource, merchantId, status, variant };
        assert.equal(await keptTotal(db, filters), await rowCount(db, filters), JSON.stringify(filters));
      }
    }
  }
}

/** A bank transfer's instructions (each row its own reference), or none for another method. */
function transferColumns(method: string | null) {
  return method === "bank_transfer"
    ? sql`'T' || replace(gen_random_uuid()::text, '-', ''), '014', '1234567890', 'Satang Collection'`
    : sql`NULL, NULL, NULL, NULL`;
}

/** One of those instructions' values for a row moved to `method`. */
function transfer(method: string | null, value: ReturnType<typeof sql>) {
  return method === "bank_transfer" ? value : sql`NULL`;
}

/** Inserts `n` copies of `templateId` (a payment) in one statement, with a status and method. */
async function clonePayments(templateId: string, n: number, status: string, method: string | null) {
  counter += 1;
  await sql`INSERT INTO payments (id, merchant_id, integration_id, amount_satang, currency, status,
      payment_method, reference_id, client_secret, customer_bank_account_name,
      customer_bank_account_number, customer_bank_code, idempotency_key, request_hash, canceled_at,
      bank_transfer_reference, transfer_bank_code, transfer_account_number, transfer_account_name,
      created_at, updated_at)
    SELECT gen_random_uuid(), merchant_id, integration_id, amount_satang, currency, ${status},
      ${method}, 'clone-' || ${counter} || '-' || g, client_secret, customer_bank_account_name,
      customer_bank_account_number, customer_bank_code, 'clone-' || ${counter} || '-' || g, request_hash,
      CASE WHEN ${status} = 'canceled' THEN now() END, ${transferColumns(method)}, created_at, updated_at
    FROM payments, generate_series(1, ${n}) g WHERE id = ${templateId}`.execute(svc.deps.db);
}

/** Moves up to `n` of the merchant's cloned payments to a status and method, in one statement. */
async function movePayments(merchantId: string, n: number, status: string, method: string | null) {
  await sql`UPDATE payments SET status = ${status}, payment_method = ${method},
      canceled_at = CASE WHEN ${status} = 'canceled' THEN coalesce(canceled_at, now()) END,
      bank_transfer_reference = ${transfer(method, sql`'T' || replace(gen_random_uuid()::text, '-', '')`)},
      transfer_bank_code = ${transfer(method, sql`'014'`)},
      transfer_account_number = ${transfer(method, sql`'1234567890'`)},
      transfer_account_name = ${transfer(method, sql`'Satang Collection'`)}
    WHERE id IN (SELECT id FROM payments WHERE merchant_id = ${merchantId} AND reference_id LIKE 'clone-%'
      ORDER BY md5(id::text) LIMIT ${n})`.execute(svc.deps.db);
}

async function deletePayments(merchantId: string, n: number) {
  await sql`DELETE FROM payments WHERE id IN (SELECT id FROM payments
    WHERE merchant_id = ${merchantId} AND reference_id LIKE 'clone-%' ORDER BY md5(id::text) LIMIT ${n})`.execute(
    svc.deps.db,
  );
}

const status = fc.constantFrom(...PAYMENT_STATUSES);
const method = fc.constantFrom(...PAYMENT_METHODS);
const operation = fc.oneof(
  fc.record({
    op: fc.constant("insert" as const),
    who: fc.nat(1),
    n: fc.integer({ min: 1, max: 6 }),
    status,
    method,
  }),
  fc.record({
    op: fc.constant("move" as const),
    who: fc.nat(1),
    n: fc.integer({ min: 1, max: 6 }),
    status,
    method,
  }),
  fc.record({ op: fc.constant("delete" as const), who: fc.nat(1), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant("fold" as const), batch: fc.integer({ min: 1, max: 4 }) }),
  // An update that changes neither status nor method appends nothing.
  fc.record({ op: fc.constant("touch" as const), who: fc.nat(1) }),
);

describe("kept list counts", () => {
  it("equal counting the rows after any inserts, moves, deletes and folds", async () => {
    const merchants = [await svc.newMerchant(), await svc.newMerchant()];
    const templates = [await createPayment(merchants[0]!), await createPayment(merchants[1]!)];
    const ids = merchants.map((m) => m.merchantId);
    const variants = ["promptpay", "bank_transfer", ""];
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (ops) => {
        for (const step of ops) {
          if (step.op === "insert")
            await clonePayments(templates[step.who]!.id, step.n, step.status, step.method);
          else if (step.op === "move") await movePayments(ids[step.who]!, step.n, step.status, step.method);
          else if (step.op === "delete") await deletePayments(ids[step.who]!, step.n);
          else if (step.op === "fold") await foldListCounts(svc.deps.db, step.batch);
          else
            await sql`UPDATE payments SET updated_at = updated_at WHERE merchant_id = ${ids[step.who]!}`.execute(
              svc.deps.db,
            );
        }
        await assertTotalsExact("payments", ids, [...PAYMENT_STATUSES, "requires_payment_method"], variants);
      }),
      { numRuns: 12, endOnFailure: true },
    );
    // Folding everything leaves the totals as they were and no change behind.
    while ((await foldListCounts(svc.deps.db, 3)) > 0);
    const left = await svc.deps.db
      .selectFrom("list_count_changes")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
    await assertTotalsExact("payments", ids, PAYMENT_STATUSES, variants);
  });

  it("an update that changes nothing counted appends no change", async () => {
    const shop = await svc.newMerchant();
    const payment = await createPayment(shop);
    const before = await changeCount(shop.merchantId);
    await sql`UPDATE payments SET updated_at = now(), description = 'x' WHERE id = ${payment.id}`.execute(
      svc.deps.db,
    );
    assert.equal(await changeCount(shop.merchantId), before);
    await sql`UPDATE payments SET status = 'processing' WHERE id = ${payment.id}`.execute(svc.deps.db);
    assert.equal(await changeCount(shop.merchantId), before + 2, "one change leaving, one entering");
  });

  it("count withdraws by status and destination type through create, cancel and bulk inserts", async () => {
    const shop = await fundedMerchant(svc);
    const made: string[] = [];
    for (const destinationType of ["bank_account", "wallet", "bank_account"] as const) {
      const body =
        destinationType === "wallet"
          ? withdrawBody({ destinationType, customerBankAccountNumber: "1112223333", amount: "14" })
          : withdrawBody({ amount: `${1000 + made.length}.00` });
      const res = await svc.request("POST", "/api/v1/withdraws", body, { credentials: shop });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      made.push(res.body.data.id);
    }
    const canceled = await svc.request("POST", `/api/v1/withdraws/${made[0]}/cancel`, undefined, {
      credentials: shop,
    });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    await sql`INSERT INTO withdraws (id, merchant_id, integration_id, amount_satang, currency, status,
        reference_id, destination_type, destination_id, bank_account_name, bank_account_number, bank_code,
        idempotency_key, request_hash, paid_at, created_at, updated_at)
      SELECT gen_random_uuid(), merchant_id, integration_id, amount_satang, currency, 'paid',
        'clone-' || g, destination_type, destination_id, bank_account_name, bank_account_number, bank_code,
        'clone-' || g, request_hash, now(), created_at, updated_at
      FROM withdraws, generate_series(1, 25) g WHERE id = ${made[1]!}`.execute(svc.deps.db);
    const statuses = [
      "pending",
      "processing",
      "paid",
      "failed",
      "canceled",
      "awaiting_verification",
      "expired",
    ];
    await assertTotalsExact("withdraws", [shop.merchantId], statuses, ["bank_account", "wallet"]);
    assert.equal(await keptTotal(svc.deps.db, { resource: "withdraws", merchantId: shop.merchantId }), 28);
  });

  it("stay exact under concurrent creates, cancels and folds", async () => {
    const shop = await svc.newMerchant();
    let folding = true;
    // Folds run in a loop of their own for as long as the requests do.
    const folder = (async () => {
      let folds = 0;
      while (folding) {
        await foldListCounts(svc.deps.db, 2);
        folds += 1;
        // The embedded store answers without a turn of the event loop: give the requests theirs.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return folds;
    })();
    try {
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          createPayment(shop, i % 2 === 0 ? {} : { paymentMethod: "bank_transfer" }),
        ),
      );
      await Promise.all(
        created
          .slice(0, 10)
          .map((p) =>
            svc.request("POST", `/api/v1/payments/${p.id}/cancel`, undefined, { credentials: shop }),
          ),
      );
    } finally {
      folding = false;
    }
    assert.ok((await folder) > 0);
    await assertTotalsExact("payments", [shop.merchantId], PAYMENT_STATUSES, ["promptpay", "bank_transfer"]);
    assert.equal(
      await keptTotal(svc.deps.db, { resource: "payments", merchantId: shop.merchantId, status: "canceled" }),
      10,
    );
  });

  it("are folded by the kept-totals-fold job, which says how many changes it moved", async () => {
    const shop = await svc.newMerchant();
    await createPayment(shop);
    await createPayment(shop);
    let moved = 0;
    for (
      let run = await keptTotalsFoldJob.runOnce(svc.deps);
      run > 0;
      run = await keptTotalsFoldJob.runOnce(svc.deps)
    )
      moved += run;
    assert.ok(moved >= 1);
    assert.equal(await changeCount(shop.merchantId), 0);
    assert.equal(await keptTotal(svc.deps.db, { resource: "payments", merchantId: shop.merchantId }), 2);
  });
});

describe("list totals", () => {
  it("come from the kept count without a date range, and from the rows with one", async () => {
    const shop = await svc.newMerchant();
    for (let i = 0; i < 3; i += 1) await createPayment(shop);
    const list = async (query: string) => {
      const res = await svc.request("GET", `/api/v1/payments?${query}`, undefined, { credentials: shop });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as { total: number; data: unknown[] };
    };
    assert.equal((await list("limit=1")).total, 3);
    assert.equal((await list("limit=1&status=requires_action&paymentMethod=promptpay")).total, 3);
    // A count the list reads: moving it moves the answer (a page past the end too), while a
    // date range counts the rows themselves.
    await sql`INSERT INTO list_counts (merchant_id, resource, status, variant, n)
      VALUES (${shop.merchantId}, 'payments', 'requires_action', 'promptpay', 100)
      ON CONFLICT (merchant_id, resource, status, variant) DO UPDATE SET n = list_counts.n + 100`.execute(
      svc.deps.db,
    );
    assert.equal((await list("limit=1")).total, 103);
    assert.equal((await list("page=50&limit=1")).total, 103);
    assert.equal((await list("limit=1&dateFrom=2000-01-01T00:00:00Z")).total, 3);
    assert.equal((await list("limit=1&status=succeeded")).total, 0);
  });
});

describe("migration 0050_list_counts", () => {
  it("counts the payments and withdraws a store already holds", async () => {
    const shop = await fundedMerchant(svc);
    await createPayment(shop);
    await createPayment(shop, { paymentMethod: "bank_transfer" });
    const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: shop });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const db = svc.deps.db;
    await db.transaction().execute(async (trx) => {
      await sql`DROP TABLE list_counts, list_count_changes`.execute(trx);
      await sql`DROP FUNCTION payments_list_counts() CASCADE`.execute(trx);
      await sql`DROP FUNCTION withdraws_list_counts() CASCADE`.execute(trx);
      for (const statement of listCountsMigration) await sql.raw(statement).execute(trx);
    });
    assert.equal(await changeCount(shop.merchantId), 0);
    await assertTotalsExact("payments", [shop.merchantId], PAYMENT_STATUSES, ["promptpay", "bank_transfer"]);
    await assertTotalsExact("withdraws", [shop.merchantId], ["pending", "paid"], ["bank_account", "wallet"]);
    assert.equal(await keptTotal(db, { resource: "payments", merchantId: shop.merchantId }), 2);
  });
});

async function changeCount(merchantId: string): Promise<number> {
  const found = await svc.deps.db
    .selectFrom("list_count_changes")
    .where("merchant_id", "=", merchantId)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(found.n);
}
