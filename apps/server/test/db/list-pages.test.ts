/**
 * Page statements of the payments and withdraws lists, built once per shape and page window
 * (db/pages.ts, db/compiled.ts): every request answers its own rows and total whatever was
 * listed before it (other merchants, filters, pages, date ranges and orders), and a shape
 * listed again is not built again. A page's limit and offset are written into its statement
 * up to LITERAL_OFFSET_MAX, so PostgreSQL keeps one generic plan for it instead of planning
 * every call; deeper pages share the shape's one statement with parameters.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import {
  LITERAL_OFFSET_MAX,
  MERCHANT_PAGE_STATEMENTS_MAX,
  merchantPageStatementsBuilt,
} from "../../src/db/pages.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant, payeeName, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let counter = 0;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

/** The fields of a listed payment or withdraw that the queries below filter and sort by. */
interface Listed {
  id: string;
  amount: string;
  status: string;
  createdAt: string;
  [field: string]: unknown;
}

interface Query {
  status?: string;
  /** The list's variant filter: paymentMethod or destinationType, by `variantField`. */
  variant?: string;
  /** Indexes into the merchant's records, by creation: its createdAt is the bound. */
  from?: number;
  to?: number;
  sortBy: "amount" | "createdAt";
  sortOrder: "asc" | "desc";
}

const LIMIT = 2;

function queryString(query: Query, variantField: string, records: Listed[], page: number): string {
  const parts = [`sortBy=${query.sortBy}`, `sortOrder=${query.sortOrder}`, `limit=${LIMIT}`, `page=${page}`];
  if (query.status !== undefined) parts.push(`status=${query.status}`);
  if (query.variant !== undefined) parts.push(`${variantField}=${query.variant}`);
  if (query.from !== undefined) parts.push(`dateFrom=${encodeURIComponent(records[query.from]!.createdAt)}`);
  if (query.to !== undefined) parts.push(`dateTo=${encodeURIComponent(records[query.to]!.createdAt)}`);
  return parts.join("&");
}

/** The page and total a query must answer, worked out from the records (amounts and times all differ). */
function expected(query: Query, variantField: string, records: Listed[], page: number) {
  const time = (i: number) => Date.parse(records[i]!.createdAt);
  const matching = records.filter(
    (r) =>
      (query.status === undefined || r.status === query.status) &&
      (query.variant === undefined || r[variantField] === query.variant) &&
      (query.from === undefined || Date.parse(r.createdAt) >= time(query.from)) &&
      (query.to === undefined || Date.parse(r.createdAt) < time(query.to)),
  );
  const key = (r: Listed) => (query.sortBy === "amount" ? Number(r.amount) : Date.parse(r.createdAt));
  const sign = query.sortOrder === "asc" ? 1 : -1;
  const sorted = matching.sort((a, b) => sign * (key(a) - key(b)));
  return { ids: sorted.slice((page - 1) * LIMIT, page * LIMIT).map((r) => r.id), total: matching.length };
}

/** One of the two lists: where it is, its variant filter, how its merchants and records are made. */
interface ListUnderTest {
  path: string;
  variantField: string;
  variants: [string, string];
  newMerchant: () => Promise<Credentials>;
  body: (amount: string, variant: string) => Record<string, unknown>;
  merchants: Array<{ credentials: Credentials; records: Listed[] }>;
}

const PAYMENTS: ListUnderTest = {
  path: "/api/v1/payments",
  variantField: "paymentMethod",
  variants: ["promptpay", "bank_transfer"],
  newMerchant: () => svc.newMerchant(),
  body: (amount, paymentMethod) => {
    counter += 1;
    return {
      amount,
      referenceId: `pages-${counter}`,
      paymentMethod,
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: String(6_000_000_000 + counter),
      customerBankCode: "014",
    };
  },
  merchants: [],
};

const WITHDRAWS: ListUnderTest = {
  path: "/api/v1/withdraws",
  variantField: "destinationType",
  variants: ["bank_account", "wallet"],
  newMerchant: () => fundedMerchant(svc),
  body: (amount, destinationType) =>
    withdrawBody({ amount, destinationType, customerBankAccountName: payeeName() }),
  merchants: [],
};

/**
 * A merchant with `count` records a second apart, amounts apart and out of creation order,
 * variants alternating, every third canceled.
 */
async function addMerchant(list: ListUnderTest, count: number, base: number): Promise<void> {
  const credentials = await list.newMerchant();
  const records: Listed[] = [];
  for (let i = 0; i < count; i += 1) {
    const body = list.body(String(base + ((i * 11) % count) * 10), list.variants[i % 2]!);
    const res = await svc.request("POST", list.path, body, { credentials });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const record = res.body.data as Listed;
    if (i % 3 === 1) {
      const canceled = await svc.request("POST", `${list.path}/${record.id}/cancel`, undefined, {
        credentials,
      });
      assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
      record.status = canceled.body.data.status;
    }
    records.push(record);
    svc.clock.advance(1000);
  }
  list.merchants.push({ credentials, records });
}

/** Lists every query for every merchant, pages 1 to 3 (the last often past the end), checking each answer. */
async function listAndCheck(list: ListUnderTest, queries: Query[]): Promise<void> {
  for (const query of queries) {
    for (const page of [1, 2, 3]) {
      for (const { credentials, records } of list.merchants) {
        const qs = queryString(query, list.variantField, records, page);
        const res = await svc.request("GET", `${list.path}?${qs}`, undefined, { credentials });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const got = { ids: res.body.data.data.map((r: Listed) => r.id), total: res.body.data.total };
        assert.deepEqual(got, expected(query, list.variantField, records, page), `${list.path}?${qs}`);
      }
    }
  }
}

describe("list pages of cached statements", () => {
  before(async () => {
    await addMerchant(PAYMENTS, 7, 100);
    await addMerchant(PAYMENTS, 6, 105);
    await addMerchant(WITHDRAWS, 5, 200);
    await addMerchant(WITHDRAWS, 6, 205);
    // Each filter below matches some records and not others.
    assert.ok(PAYMENTS.merchants[0]!.records.some((r) => r.status === "canceled"));
    assert.ok(PAYMENTS.merchants[0]!.records.some((r) => r.status === "requires_action"));
    assert.ok(WITHDRAWS.merchants[0]!.records.some((r) => r.status === "canceled"));
  });

  it("answers each merchant's own page and total for one shape, built once a page", async () => {
    const built = merchantPageStatementsBuilt();
    const query: Query = { status: "canceled", sortBy: "amount", sortOrder: "asc" };
    await listAndCheck(PAYMENTS, [query]);
    assert.equal(merchantPageStatementsBuilt(), built + 3, "two merchants, three pages: three statements");
    await listAndCheck(PAYMENTS, [query]);
    assert.equal(merchantPageStatementsBuilt(), built + 3, "listed again: none built");
    await listAndCheck(WITHDRAWS, [query]);
    assert.equal(merchantPageStatementsBuilt(), built + 6, "the withdraws list has statements of its own");
  });

  it("pages past LITERAL_OFFSET_MAX share the shape's one statement, and answer empty past the end", async () => {
    const built = merchantPageStatementsBuilt();
    const { credentials, records } = PAYMENTS.merchants[0]!;
    const deep = Math.floor(LITERAL_OFFSET_MAX / LIMIT) + 2;
    for (const page of [deep, deep + 1, deep + 7]) {
      const qs = `sortBy=createdAt&sortOrder=asc&limit=${LIMIT}&page=${page}`;
      const res = await svc.request("GET", `/api/v1/payments?${qs}`, undefined, { credentials });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.data, []);
      assert.equal(res.body.data.total, records.length);
    }
    assert.equal(merchantPageStatementsBuilt(), built + 1, "three deep pages: one statement");
  });

  it("answers every shape correctly after other shapes, and builds none again", async () => {
    // Pairs of shapes apart in one thing only: the sort field, the order, each filter, each date bound.
    const queries: Query[] = [
      { sortBy: "createdAt", sortOrder: "desc" },
      { status: "canceled", sortBy: "createdAt", sortOrder: "desc" },
      { sortBy: "createdAt", sortOrder: "asc" },
      { status: "canceled", sortBy: "createdAt", sortOrder: "asc" },
      { sortBy: "amount", sortOrder: "desc" },
      { variant: "bank_transfer", sortBy: "amount", sortOrder: "desc" },
      { status: "canceled", variant: "promptpay", sortBy: "createdAt", sortOrder: "asc" },
      { status: "requires_action", variant: "promptpay", sortBy: "amount", sortOrder: "desc" },
      { from: 2, sortBy: "createdAt", sortOrder: "desc" },
      { to: 4, sortBy: "createdAt", sortOrder: "desc" },
      { from: 1, to: 5, sortBy: "createdAt", sortOrder: "desc" },
      { status: "requires_action", from: 1, to: 5, sortBy: "amount", sortOrder: "desc" },
    ];
    const built = merchantPageStatementsBuilt();
    await listAndCheck(PAYMENTS, queries);
    const firstPass = merchantPageStatementsBuilt();
    assert.equal(firstPass - built, 3 * queries.length, "one statement a shape and page");
    await listAndCheck(PAYMENTS, [...queries].reverse());
    assert.equal(merchantPageStatementsBuilt(), firstPass, "the shapes listed again are built no more");
  });

  it("answers the withdraws list's shapes, each with its own values", async () => {
    const created = WITHDRAWS.merchants[0]!.records[0]!.status;
    const queries: Query[] = [
      { sortBy: "createdAt", sortOrder: "desc" },
      { variant: "wallet", sortBy: "amount", sortOrder: "asc" },
      { variant: "wallet", sortBy: "createdAt", sortOrder: "desc" },
      { status: created, sortBy: "createdAt", sortOrder: "desc" },
      { status: "canceled", sortBy: "createdAt", sortOrder: "desc" },
      { status: created, variant: "bank_account", from: 1, sortBy: "amount", sortOrder: "desc" },
      { from: 1, to: 4, sortBy: "amount", sortOrder: "asc" },
    ];
    await listAndCheck(WITHDRAWS, queries);
    await listAndCheck(WITHDRAWS, [...queries].reverse());
  });
});

describe("list page statements kept", () => {
  it("keeps at most MERCHANT_PAGE_STATEMENTS_MAX windows; later pages share their shape's statement", async () => {
    // The withdraws list: the payments list's statements stay free for the plan test below.
    const { credentials } = WITHDRAWS.merchants[1]!;
    const list = (qs: string) => svc.request("GET", `/api/v1/withdraws?${qs}`, undefined, { credentials });
    // Windows of one shape until the list keeps as many statements as it may.
    for (let page = 1; page <= MERCHANT_PAGE_STATEMENTS_MAX; page++) {
      const res = await list(`sortBy=referenceId&sortOrder=desc&limit=2&page=${page}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const built = merchantPageStatementsBuilt();
    for (let page = 1; page <= 10; page++) {
      const res = await list(`sortBy=referenceId&sortOrder=desc&limit=3&page=${page}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    assert.ok(
      merchantPageStatementsBuilt() - built <= 1,
      "ten new windows: at most the shape's own statement",
    );
    const first = await list("sortBy=referenceId&sortOrder=desc&limit=3&page=1");
    assert.equal(first.body.data.data.length, 3, "still the right page");
  });
});

describeOnPostgres("list pages on PostgreSQL's plan cache", () => {
  it("a merchant's first pages run on a kept generic plan, not planned again on every call", async () => {
    // One connection, so the statements this test sends are the ones pg_prepared_statements shows.
    const single = await startService({ poolSize: 1 });
    try {
      const { credentials } = single;
      const res = await single.request(
        "POST",
        "/api/v1/payments",
        {
          amount: "1000.00",
          referenceId: "plan-template",
          paymentMethod: "promptpay",
          customerBankAccountName: "Somchai Jaidee",
          customerBankAccountNumber: "1234567890",
          customerBankCode: "014",
        },
        { credentials },
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      // Enough rows that a generic plan costing `LIMIT $n` as a tenth of them looks dearer than
      // the custom plans: the window in the text is what lets the generic plan be kept.
      const columns = (
        await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
          WHERE table_name = 'payments' ORDER BY ordinal_position`.execute(single.deps.db)
      ).rows.map((row) => row.column_name);
      const copied: Record<string, string> = {
        id: "gen_random_uuid()",
        reference_id: "'copy-' || g",
        idempotency_key: "'copy-' || g",
        status: "'expired'",
        created_at: "t.created_at - g * interval '1 second'",
      };
      const values = columns.map((column) => copied[column] ?? `t.${column}`);
      await sql
        .raw(`INSERT INTO payments (${columns.join(", ")})
          SELECT ${values.join(", ")} FROM payments t, generate_series(1, 20000) g
          WHERE t.id = '${res.body.data.id}'`)
        .execute(single.deps.db);
      await sql`ANALYZE payments`.execute(single.deps.db);
      for (let i = 0; i < 8; i++) {
        const listed = await single.request("GET", "/api/v1/payments", undefined, { credentials });
        assert.equal(listed.status, 200, JSON.stringify(listed.body));
        assert.equal(listed.body.data.total, 20_001);
      }
      const plans = await sql<{ generic_plans: string; custom_plans: string }>`
        SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%__page_total%'`.execute(
        single.deps.db,
      );
      assert.equal(plans.rows.length, 1, "one page statement prepared on the connection");
      const { generic_plans: generic, custom_plans: custom } = plans.rows[0]!;
      assert.ok(Number(generic) >= 3, `generic plans ${generic}, custom plans ${custom}`);
    } finally {
      await single.close();
    }
  });
});
