/**
 * EXPLAIN of the hot queries, as the service sends them: every parameterised statement of one
 * create payment, retrieve, list and create withdraw (planned on its own connection, inside its
 * transaction, just before it runs; reads also run: EXPLAIN ANALYZE), then the payments and
 * withdraws lists of the merchant with the most rows, for every sort field and a status filter.
 * Run it on a database a bench run kept (BENCH_KEEP=1), so the lists are the seeded ones.
 *
 *   BENCH_DATABASE_URL=postgres://.../satang_bench_run_123 node --import tsx bench/explain.ts
 */
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import type { ListParams } from "../apps/server/src/http/list-query.ts";
import { PAYMENT_SORT_FIELDS } from "../apps/server/src/payments/schemas.ts";
import { listPaymentRows } from "../apps/server/src/payments/store.ts";
import { usedCapacity } from "../apps/server/src/withdraws/limits.ts";
import { WITHDRAW_SORT_FIELDS } from "../apps/server/src/withdraws/schemas.ts";
import { listWithdrawRows } from "../apps/server/src/withdraws/store.ts";
import { countRequests, recorded } from "./count.ts";
import { query } from "./lib/database.ts";

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error("set BENCH_DATABASE_URL to a PostgreSQL database (one a bench run kept)");

function print(title: string, plans: string[]): void {
  console.log(`\n### ${title}\n`);
  for (const plan of plans) console.log(`${plan}\n`);
}

function params<S extends string>(sortBy: S, sortOrder: "asc" | "desc" = "desc"): ListParams<S> {
  return { page: 1, limit: 10, offset: 0, dateFrom: undefined, dateTo: undefined, sortBy, sortOrder };
}

async function largest(table: "payments" | "withdraws"): Promise<{ id: string; n: string } | undefined> {
  const rows = await query<{ id: string; n: string }>(
    url!,
    `SELECT merchant_id AS id, count(*) AS n FROM ${table} GROUP BY merchant_id ORDER BY count(*) DESC LIMIT 1`,
  );
  return rows[0];
}

for (const count of await countRequests(url, true))
  print(`${count.name} (HTTP ${count.status})`, count.plans);

const store = await openStore({ databaseUrl: url, poolSize: 2 });
await migrateToLatest(store.db);
try {
  const payer = await largest("payments");
  if (payer) {
    for (const sortBy of PAYMENT_SORT_FIELDS) {
      const none = { status: undefined, paymentMethod: undefined };
      const { plans } = await recorded(() => listPaymentRows(store.db, payer.id, none, params(sortBy)), true);
      print(`payments list of ${payer.n}, sortBy=${sortBy} desc`, plans);
    }
    const expired = { status: "expired" as const, paymentMethod: undefined };
    const { plans } = await recorded(
      () => listPaymentRows(store.db, payer.id, expired, params("createdAt")),
      true,
    );
    print(`payments list of ${payer.n}, status=expired`, plans);
  }
  const payee = await largest("withdraws");
  if (payee) {
    const sums = await recorded(() => usedCapacity(store.db, payee.id, new Date()), true);
    print(`withdraw limit sums (day and month) of ${payee.n}`, sums.plans);
    for (const sortBy of WITHDRAW_SORT_FIELDS) {
      const none = { status: undefined, destinationType: undefined };
      const { plans } = await recorded(
        () => listWithdrawRows(store.db, payee.id, none, params(sortBy)),
        true,
      );
      print(`withdraws list of ${payee.n}, sortBy=${sortBy} desc`, plans);
    }
  }
} finally {
  await store.close();
}
