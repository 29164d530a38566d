/**
 * CSV exports (CONTRACT 11): GET /api/v1/reports/{payments,withdraws,ledger}.csv. Content and
 * columns, RFC 4180 quoting, formula-injection guard, the 366-day bound, filters, merchant
 * isolation, and a 5,000-row export that streams in batches with ties across batch edges.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { EXPORT_BATCH_ROWS } from "../../src/lib/limits.ts";
import { exportPayments } from "../../src/reports/service.ts";
import { csvRecords, parseCsv } from "../helpers/csv.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

let svc: TestService;
let shop: Credentials;
let other: Credentials;
let start: number;
const payments: any[] = [];
const withdraws: any[] = [];
let counter = 0;

function paymentBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    amount: `${1000 + counter * 100}.00`,
    referenceId: `csv-${process.pid}-${counter}`,
    paymentMethod: counter % 2 === 0 ? "bank_transfer" : "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(6_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function api(method: string, path: string, body?: unknown, credentials = shop) {
  const res = await svc.request(method, path, body, { credentials });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const iso = (ms: number) => new Date(ms).toISOString();
const range = (from: number, to: number) =>
  `dateFrom=${encodeURIComponent(iso(from))}&dateTo=${encodeURIComponent(iso(to))}`;
const wide = () => range(start - DAY_MS, start + 10 * DAY_MS);

async function csv(path: string, credentials = shop) {
  const res = await svc.request("GET", path, undefined, { credentials });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  assert.equal(res.headers["content-type"], "text/csv; charset=utf-8");
  return { text: String(res.body), records: csvRecords(String(res.body)), res };
}

before(async () => {
  svc = await startService();
  start = svc.clock.now().getTime();
  shop = await fundedMerchant(svc);
  other = await fundedMerchant(svc);
  payments.push(
    await api(
      "POST",
      "/api/v1/payments",
      paymentBody({ description: 'Order 7, "blue", size L\nsecond line' }),
    ),
  );
  svc.clock.advance(60_000);
  payments.push(
    await api(
      "POST",
      "/api/v1/payments",
      paymentBody({ customerBankAccountName: '=HYPERLINK("http://x")', description: "+66 81 234 5678" }),
    ),
  );
  svc.clock.advance(60_000);
  payments.push(
    await api(
      "POST",
      "/api/v1/payments",
      paymentBody({ description: "-1+1", customerBankAccountName: "@SUM(A1)" }),
    ),
  );
  svc.clock.advance(60_000);
  payments.push(await api("POST", "/api/v1/payments", paymentBody({ description: "ค่าสินค้า ร้านสมชาย" })));
  await api("POST", `/api/v1/payments/${payments[3].id}/cancel`);
  for (let i = 0; i < 3; i++) {
    svc.clock.advance(60_000);
    withdraws.push(await api("POST", "/api/v1/withdraws", withdrawBody({ amount: `${(i + 1) * 1000}.00` })));
  }
  await api("POST", `/api/v1/withdraws/${withdraws[0].id}/cancel`);
  await api("POST", "/api/v1/payments", paymentBody(), other);
  await api("POST", "/api/v1/withdraws", withdrawBody(), other);
});

after(async () => {
  await svc?.close();
});

describe("payments.csv", () => {
  it("has a header row and one row per payment, oldest first, with THB amounts and both time zones", async () => {
    const { records, text, res } = await csv(`/api/v1/reports/payments.csv?${wide()}`);
    assert.match(
      String(res.headers["content-disposition"]),
      /^attachment; filename="payments-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv"$/,
    );
    assert.equal(parseCsv(text)[0]![0], "payment_id");
    assert.deepEqual(
      records.map((r) => r.payment_id),
      payments.map((p) => p.id),
    );
    const first = records[0]!;
    assert.equal(first.reference_id, payments[0].referenceId);
    assert.equal(first.status, "requires_action");
    assert.equal(first.amount_thb, (Number.parseInt(payments[0].amount, 10) / 100).toFixed(2));
    assert.equal(first.currency, "THB");
    assert.equal(first.customer_account, "******0001");
    assert.equal(first.customer_bank_code, "014");
    assert.equal(first.customer_bank, "SCB");
    const created = Date.parse(payments[0].createdAt);
    assert.equal(first.created_at_utc, iso(created).slice(0, 19).replace("T", " "));
    assert.equal(
      first.created_at_bangkok,
      iso(created + 7 * 3600_000)
        .slice(0, 19)
        .replace("T", " "),
    );
    assert.equal(first.paid_at_utc, "");
    assert.equal(records[3]!.status, "canceled");
    assert.notEqual(records[3]!.canceled_at_bangkok, "");
    assert.equal(records[3]!.description, "ค่าสินค้า ร้านสมชาย");
    assert.ok(!text.includes("6000000001"), "the account number never appears in clear");
  });

  it("quotes cells with commas, quotes and line breaks (RFC 4180)", async () => {
    const { text, records } = await csv(`/api/v1/reports/payments.csv?${wide()}`);
    assert.equal(records[0]!.description, 'Order 7, "blue", size L\nsecond line');
    assert.ok(text.includes('"Order 7, ""blue"", size L\nsecond line"'));
    assert.ok(text.endsWith("\r\n"));
  });

  it("prefixes text cells starting with = + - @ so spreadsheets show them as text", async () => {
    const { records } = await csv(`/api/v1/reports/payments.csv?${wide()}`);
    assert.equal(records[1]!.customer_name, '\'=HYPERLINK("http://x")');
    assert.equal(records[1]!.description, "'+66 81 234 5678");
    assert.equal(records[2]!.description, "'-1+1");
    assert.equal(records[2]!.customer_name, "'@SUM(A1)");
    assert.equal(records[0]!.customer_name, "Somchai Jaidee");
  });

  it("takes the list filters: status, paymentMethod and the date range", async () => {
    const canceled = await csv(`/api/v1/reports/payments.csv?${wide()}&status=canceled`);
    assert.deepEqual(
      canceled.records.map((r) => r.payment_id),
      [payments[3].id],
    );
    const transfers = await csv(`/api/v1/reports/payments.csv?${wide()}&paymentMethod=bank_transfer`);
    assert.deepEqual(
      transfers.records.map((r) => r.payment_id),
      payments.filter((p) => p.paymentMethod === "bank_transfer").map((p) => p.id),
    );
    const from = Date.parse(payments[1].createdAt);
    const to = Date.parse(payments[3].createdAt);
    const ranged = await csv(`/api/v1/reports/payments.csv?${range(from, to)}`);
    assert.deepEqual(
      ranged.records.map((r) => r.payment_id),
      [payments[1].id, payments[2].id],
    );
    const empty = await csv(`/api/v1/reports/payments.csv?${range(start - 3 * DAY_MS, start - 2 * DAY_MS)}`);
    assert.deepEqual(empty.records, []);
    assert.equal(parseCsv(empty.text).length, 1, "an empty export is the header row alone");
  });

  it("never shows another merchant's rows", async () => {
    const mine = await csv(`/api/v1/reports/payments.csv?${wide()}`);
    const theirs = await csv(`/api/v1/reports/payments.csv?${wide()}`, other);
    assert.equal(theirs.records.length, 1);
    const mineIds = new Set(mine.records.map((r) => r.payment_id));
    assert.ok(!mineIds.has(theirs.records[0]!.payment_id));
  });
});

describe("for spreadsheets", () => {
  it("starts with a UTF-8 byte-order mark only when bom=true, so Excel shows Thai correctly", async () => {
    for (const kind of ["payments", "withdraws", "ledger"]) {
      const plain = await csv(`/api/v1/reports/${kind}.csv?${wide()}`);
      assert.notEqual(plain.text.charCodeAt(0), 0xfeff, `${kind}: no mark by default`);
      const off = await csv(`/api/v1/reports/${kind}.csv?${wide()}&bom=false`);
      assert.equal(off.text, plain.text);
      const marked = await csv(`/api/v1/reports/${kind}.csv?${wide()}&bom=true`);
      assert.equal(marked.text.charCodeAt(0), 0xfeff, `${kind}: the mark comes first`);
      assert.equal(marked.text.slice(1), plain.text, `${kind}: and nothing else changes`);
      assert.equal(marked.res.headers["content-type"], "text/csv; charset=utf-8");
    }
    const thai = await csv(`/api/v1/reports/payments.csv?${wide()}&bom=true`);
    assert.ok(
      Buffer.from(thai.text, "utf8")
        .subarray(0, 3)
        .equals(Buffer.from([0xef, 0xbb, 0xbf])),
    );
    const bad = await svc.request("GET", `/api/v1/reports/payments.csv?${wide()}&bom=maybe`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(bad.body.error.metadata, { field: "bom" });
  });

  it("documents bom in the OpenAPI document of every export", async () => {
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    for (const kind of ["payments", "withdraws", "ledger"]) {
      const bom = doc.paths[`/api/v1/reports/${kind}.csv`].get.parameters.find((p: any) => p.name === "bom");
      assert.ok(bom, kind);
      assert.equal(bom.in, "query");
      assert.equal(bom.schema.type, "boolean");
      assert.match(bom.description ?? bom.schema.description, /byte-order mark/);
    }
  });

  it("names the file by the first and last Asia/Bangkok days of the range", async () => {
    const disposition = async (query: string) =>
      String((await csv(`/api/v1/reports/payments.csv?${query}`)).res.headers["content-disposition"]);
    // Bangkok days 1 to 26 November, as the dashboard asks for them: 31 October 17:00 UTC onwards.
    const bangkok = await disposition(
      `dateFrom=${encodeURIComponent("2026-11-01T00:00:00+07:00")}&dateTo=${encodeURIComponent("2026-11-27T00:00:00+07:00")}`,
    );
    assert.equal(bangkok, 'attachment; filename="payments-2026-11-01-2026-11-26.csv"');
    // UTC days keep the names they always had.
    assert.equal(
      await disposition("dateFrom=2026-01-01&dateTo=2026-02-01"),
      'attachment; filename="payments-2026-01-01-2026-02-01.csv"',
    );
    // The latest range there is: its last Bangkok day is in the year 10000.
    assert.equal(
      await disposition("dateFrom=9999-12-30&dateTo=9999-12-31T23:59:59.999Z"),
      'attachment; filename="payments-9999-12-30-10000-01-01.csv"',
    );
  });
});

describe("the date range", () => {
  const base = Date.UTC(2026, 0, 1);

  it("accepts exactly 366 days and refuses 366 days and a millisecond, or 367 days", async () => {
    await csv(`/api/v1/reports/payments.csv?${range(base, base + 366 * DAY_MS)}`);
    for (const to of [base + 366 * DAY_MS + 1, base + 367 * DAY_MS]) {
      const res = await svc.request("GET", `/api/v1/reports/payments.csv?${range(base, to)}`);
      assert.equal(res.status, 400);
      assert.match(String(res.headers["content-type"]), /application\/json/);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.deepEqual(res.body.error.metadata, { field: "dateTo" });
    }
    const days = await svc.request("GET", "/api/v1/reports/ledger.csv?dateFrom=2025-01-01&dateTo=2026-01-02");
    assert.equal(days.status, 200, "2025-01-01 to 2026-01-02 is 366 days");
    const tooLong = await svc.request(
      "GET",
      "/api/v1/reports/ledger.csv?dateFrom=2025-01-01&dateTo=2026-01-03",
    );
    assert.equal(tooLong.status, 400);
  });

  it("requires dateFrom and dateTo, valid and in order, on every export", async () => {
    for (const kind of ["payments", "withdraws", "ledger"]) {
      const cases: [string, string][] = [
        ["dateTo=2026-02-01", "dateFrom"],
        ["dateFrom=2026-01-01", "dateTo"],
        ["dateFrom=2026-02-30&dateTo=2026-03-01", "dateFrom"],
        ["dateFrom=2026-03-01&dateTo=2026-02-01", "dateTo"],
        ["dateFrom=2026-03-01&dateTo=2026-03-01", "dateTo"],
      ];
      for (const [query, field] of cases) {
        const res = await svc.request("GET", `/api/v1/reports/${kind}.csv?${query}`);
        assert.equal(res.status, 400, `${kind} ${query}`);
        assert.equal(res.body.error.code, "VALIDATION_ERROR", `${kind} ${query}`);
        assert.equal(res.body.error.metadata.field, field, `${kind} ${query}`);
      }
    }
  });

  it("refuses unknown filter values and unsigned requests in the envelope", async () => {
    const bad = await svc.request("GET", `/api/v1/reports/withdraws.csv?${wide()}&status=sent`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.metadata.field, "status");
    const unsigned = await svc.app.inject({ method: "GET", url: `/api/v1/reports/payments.csv?${wide()}` });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(unsigned.json().error.code, "INVALID_CREDENTIALS");
  });
});

describe("withdraws.csv and ledger.csv", () => {
  it("withdraws: masked account, bank name, filters, own rows only", async () => {
    const { records, text } = await csv(`/api/v1/reports/withdraws.csv?${wide()}`);
    assert.deepEqual(
      records.map((r) => r.withdraw_id),
      withdraws.map((w) => w.id),
    );
    assert.equal(records[0]!.status, "canceled");
    assert.equal(records[1]!.amount_thb, "20.00");
    assert.equal(records[1]!.account_number, "******7890");
    assert.equal(records[1]!.bank_code, "004");
    assert.equal(records[1]!.bank, "KBANK");
    assert.ok(!text.includes("1234567890"));
    const pending = await csv(`/api/v1/reports/withdraws.csv?${wide()}&status=pending`);
    assert.deepEqual(
      pending.records.map((r) => r.withdraw_id),
      [withdraws[1].id, withdraws[2].id],
    );
    const wallets = await csv(`/api/v1/reports/withdraws.csv?${wide()}&destinationType=wallet`);
    assert.deepEqual(wallets.records, []);
  });

  it("ledger: one row per entry with the withdraw's reference and account, filters by type and account", async () => {
    const { records } = await csv(`/api/v1/reports/ledger.csv?${wide()}`);
    const holds = records.filter((r) => r.type === "withdraw_hold");
    assert.equal(holds.length, 3 * 2, "a hold moves money between two accounts");
    const hold = holds.find((r) => r.subject_id === withdraws[1].id && r.account === "wallet_held")!;
    assert.equal(hold.reference_id, withdraws[1].referenceId);
    assert.equal(hold.amount_thb, "20.00");
    assert.equal(hold.masked_account, "******7890");
    assert.equal(hold.subject_type, "withdraw");
    const debit = holds.find((r) => r.subject_id === withdraws[1].id && r.account === "wallet_available")!;
    assert.equal(debit.amount_thb, "-20.00", "a debit is a negative number, not a guarded text");
    const funding = records.find(
      (r) => r.type === "operator_adjustment" && r.account === "wallet_available",
    )!;
    assert.equal(funding.reason, "test funding");
    const onlyHeld = await csv(`/api/v1/reports/ledger.csv?${wide()}&account=wallet_held`);
    assert.ok(onlyHeld.records.length > 0);
    assert.ok(onlyHeld.records.every((r) => r.account === "wallet_held"));
    const releases = await csv(`/api/v1/reports/ledger.csv?${wide()}&type=withdraw_release`);
    assert.ok(releases.records.every((r) => r.subject_id === withdraws[0].id));
    assert.equal(releases.records.length, 2);
    const theirs = await csv(`/api/v1/reports/ledger.csv?${wide()}`, other);
    const mine = new Set(records.map((r) => r.entry_id));
    assert.ok(theirs.records.length > 0);
    assert.ok(theirs.records.every((r) => !mine.has(r.entry_id)));
  });

  it("are in the OpenAPI document as CSV", async () => {
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    for (const kind of ["payments", "withdraws", "ledger"]) {
      const op = doc.paths[`/api/v1/reports/${kind}.csv`].get;
      assert.ok(op.responses["200"].content["text/csv"], kind);
      const names = op.parameters.map((p: any) => p.name);
      assert.ok(names.includes("dateFrom") && names.includes("dateTo"), kind);
    }
  });
});

describe("the same exports from the dashboard", () => {
  it("answer with the session's merchant exactly what the API answers", async () => {
    const user = await dashboardUser(svc, shop.merchantId);
    for (const kind of ["payments", "withdraws", "refunds", "ledger"]) {
      const fromApi = await csv(`/api/v1/reports/${kind}.csv?${wide()}`);
      const res = await user.request("GET", `/reports/${kind}.csv?${wide()}`);
      assert.equal(res.status, 200, kind);
      assert.equal(res.headers["content-type"], "text/csv; charset=utf-8");
      assert.equal(res.headers["cache-control"], "no-store");
      assert.equal(res.body, fromApi.text, kind);
    }
    const refused = await user.request("GET", `/reports/payments.csv?${range(0, 367 * DAY_MS)}`);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.error.metadata, { field: "dateTo" });
    const anonymous = await svc.app.inject({
      method: "GET",
      url: `/dashboard/api/reports/payments.csv?${wide()}`,
    });
    assert.equal(anonymous.statusCode, 401);
  });
});

describe("a large export", () => {
  const ROWS = 5_000;
  const TIE = 7;
  let bulk: Credentials;
  const at = Date.UTC(2024, 5, 1);

  before(async () => {
    bulk = await svc.newMerchant();
    const rows = [];
    for (let i = 0; i < ROWS; i++) {
      // Seven rows share each instant, so equal timestamps straddle every batch edge.
      const created = new Date(at + Math.floor(i / TIE) * 1000);
      rows.push({
        id: randomUUID(),
        merchant_id: bulk.merchantId,
        integration_id: bulk.integrationId,
        amount_satang: BigInt(100 + i),
        currency: "THB",
        status: "succeeded" as const,
        payment_method: "promptpay" as const,
        reference_id: `bulk-${i}`,
        description: null,
        metadata: null,
        client_secret: `secret-${randomUUID()}`,
        merchant_reference: null,
        customer_bank_account_name: `Customer ${i}`,
        customer_bank_account_number: String(7_000_000_000 + i),
        customer_bank_code: "002",
        idempotency_key: randomUUID(),
        request_hash: "x",
        qr_payload: null,
        bank_transfer_reference: null,
        redirect_url: null,
        transfer_bank_code: null,
        transfer_account_number: null,
        transfer_account_name: null,
        expires_at: null,
        confirmed_at: created,
        captured_at: created,
        canceled_at: null,
        created_at: created,
        updated_at: created,
      });
    }
    for (let i = 0; i < rows.length; i += 500) {
      await svc.deps.db
        .insertInto("payments")
        .values(rows.slice(i, i + 500))
        .execute();
    }
  });

  it("returns every row once, in order, across batch edges", async () => {
    const { records } = await csv(`/api/v1/reports/payments.csv?${range(at, at + DAY_MS)}`, bulk);
    assert.equal(records.length, ROWS);
    assert.equal(new Set(records.map((r) => r.payment_id)).size, ROWS);
    for (let i = 1; i < records.length; i++) {
      const a = records[i - 1]!;
      const b = records[i]!;
      const order =
        String(a.created_at_utc).localeCompare(String(b.created_at_utc)) ||
        String(a.payment_id).localeCompare(String(b.payment_id));
      assert.ok(order < 0, `row ${i} out of order`);
    }
    const total = records.reduce((sum, r) => sum + Math.round(Number(r.amount_thb) * 100), 0);
    assert.equal(total, ROWS * 100 + (ROWS * (ROWS - 1)) / 2);
  });

  it("streams: the first chunk holds the header and one batch, not the whole export", async () => {
    const merchant = await svc.deps.db
      .selectFrom("merchants")
      .selectAll()
      .where("id", "=", bulk.merchantId)
      .executeTakeFirstOrThrow();
    const exported = await exportPayments(svc.deps, merchant, {
      dateFrom: iso(at),
      dateTo: iso(at + DAY_MS),
    });
    const chunks: string[] = [];
    for await (const chunk of exported.body) chunks.push(String(chunk));
    assert.equal(chunks.length, Math.ceil(ROWS / EXPORT_BATCH_ROWS), "one chunk per batch read");
    assert.equal(parseCsv(chunks[0]!).length, 1 + EXPORT_BATCH_ROWS);
    assert.equal(parseCsv(chunks.join("")).length, 1 + ROWS);
  });
});
