/**
 * List payments (interface.md "List payments", CONTRACT 11): filters, every sort field in both
 * directions with the id tie-break and empty timestamps last, paging without repeats or gaps,
 * a page beyond the last, invalid query values, and merchant scoping.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PaymentStatus } from "../../src/db/types.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { statementsOf } from "../helpers/statements.ts";

let svc: TestService;
let counter = 0;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

interface Listed {
  id: string;
  amount: string;
  status: string;
  paymentMethod: string;
  referenceId: string;
  confirmedAt: string | null;
  capturedAt: string | null;
  createdAt: string;
}

function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    amount: "1000.00",
    referenceId: `ref-${counter}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(4_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function create(credentials: Credentials, overrides: Record<string, unknown> = {}): Promise<Listed> {
  const res = await svc.request("POST", "/api/v1/payments", validBody(overrides), { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

async function list(credentials: Credentials, query: string) {
  const res = await svc.request("GET", `/api/v1/payments${query ? `?${query}` : ""}`, undefined, {
    credentials,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { data: Listed[]; total: number; page: number; limit: number; totalPages: number };
}

/** Every page of a query, in order. */
async function allPages(credentials: Credentials, query: string, limit: number): Promise<Listed[][]> {
  const first = await list(credentials, `${query}&limit=${limit}&page=1`);
  const pages = [first.data];
  for (let page = 2; page <= first.totalPages; page += 1) {
    pages.push((await list(credentials, `${query}&limit=${limit}&page=${page}`)).data);
  }
  return pages;
}

const byteCompare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe("list payments: paging", () => {
  let merchant: Credentials;
  let payments: Listed[];

  before(async () => {
    merchant = await svc.newMerchant();
    // The clock does not move here: all 25 share one createdAt, so only the id orders them.
    payments = [];
    for (let i = 0; i < 25; i += 1) payments.push(await create(merchant));
    assert.equal(new Set(payments.map((p) => p.createdAt)).size, 1);
  });

  it("defaults to page 1, limit 10, newest first", async () => {
    const page = await list(merchant, "");
    assert.equal(page.page, 1);
    assert.equal(page.limit, 10);
    assert.equal(page.total, 25);
    assert.equal(page.totalPages, 3);
    assert.equal(page.data.length, 10);
  });

  for (const sortOrder of ["desc", "asc"]) {
    it(`pages through equal createdAt by id (${sortOrder}) without repeats or gaps`, async () => {
      const pages = await allPages(merchant, `sortOrder=${sortOrder}`, 10);
      assert.deepEqual(
        pages.map((p) => p.length),
        [10, 10, 5],
      );
      const ids = pages.flat().map((p) => p.id);
      const expected = payments.map((p) => p.id).sort(byteCompare);
      assert.deepEqual(ids, sortOrder === "asc" ? expected : expected.reverse());
    });
  }

  for (const limit of [1, 7, 24, 25, 100]) {
    it(`covers every payment exactly once with limit ${limit}`, async () => {
      const pages = await allPages(merchant, "sortBy=amount", limit);
      assert.equal(pages.length, Math.ceil(25 / limit));
      const ids = pages.flat().map((p) => p.id);
      assert.equal(ids.length, 25);
      assert.equal(new Set(ids).size, 25);
    });
  }

  it("answers a page beyond the last with 200, no records and the true totals", async () => {
    for (const page of [4, 1000, 90071992547409, 90071992547410, 9007199254740991]) {
      const res = await list(merchant, `page=${page}&limit=10`);
      assert.deepEqual(res, { data: [], total: 25, page, limit: 10, totalPages: 3 });
    }
  });

  it("refuses a query parameter it does not name, so a misspelt filter never answers the whole list", async () => {
    for (const [query, field] of [
      ["foo=bar&limit=5", "foo"],
      ["limit=5&stauts=succeeded", "stauts"],
      ["merchantId=x&limit=5", "merchantId"],
    ]) {
      const res = await svc.request("GET", `/api/v1/payments?${query}`, undefined, { credentials: merchant });
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field, query);
    }
    assert.equal((await list(merchant, "limit=5")).data.length, 5);
  });
});

describe("list payments: sorting", () => {
  let merchant: Credentials;
  let payments: Listed[];

  before(async () => {
    merchant = await svc.newMerchant();
    payments = [];
    // Amounts where text order and numeric order disagree, references where case and digits
    // matter, and a clock step so createdAt differs.
    const specs: Array<[string, string]> = [
      ["900", "b-ref"],
      ["10000", "B-ref"],
      ["55", "a-ref"],
      ["900", "10-ref"],
      ["2", "9-ref"],
      ["10000", "_ref"],
    ];
    for (const [amount, referenceId] of specs) {
      payments.push(await create(merchant, { amount, referenceId: `${referenceId}-${counter}` }));
      svc.clock.advance(1000);
    }
    // Give some payments confirmation and capture times and other statuses.
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const changes: Array<[number, PaymentStatus, Date | null, Date | null]> = [
      [0, "succeeded", at(30), at(40)],
      [1, "processing", at(10), null],
      [2, "requires_capture", at(10), null],
      [3, "payment_failed", null, null],
      [4, "succeeded", at(20), at(20)],
    ];
    for (const [index, status, confirmed, captured] of changes) {
      await svc.deps.db
        .updateTable("payments")
        .set({ status, confirmed_at: confirmed, captured_at: captured })
        .where("id", "=", payments[index]!.id)
        .execute();
    }
    payments = (await list(merchant, "limit=100")).data;
  });

  /** The expected order: the sort key, then id, in one direction; nulls last either way. */
  function expectedOrder(key: (p: Listed) => string | number | null, order: "asc" | "desc"): string[] {
    const sign = order === "asc" ? 1 : -1;
    return [...payments]
      .sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        if (ka === null && kb !== null) return 1;
        if (kb === null && ka !== null) return -1;
        if (ka !== null && kb !== null && ka !== kb) {
          return (
            sign * (typeof ka === "number" ? ka - (kb as number) : byteCompare(ka as string, kb as string))
          );
        }
        return sign * byteCompare(a.id, b.id);
      })
      .map((p) => p.id);
  }

  const keys: Record<string, (p: Listed) => string | number | null> = {
    amount: (p) => Number(p.amount),
    status: (p) => p.status,
    createdAt: (p) => Date.parse(p.createdAt),
    confirmedAt: (p) => (p.confirmedAt === null ? null : Date.parse(p.confirmedAt)),
    capturedAt: (p) => (p.capturedAt === null ? null : Date.parse(p.capturedAt)),
    referenceId: (p) => p.referenceId,
  };

  for (const [sortBy, key] of Object.entries(keys)) {
    for (const order of ["asc", "desc"] as const) {
      it(`sorts by ${sortBy} ${order}, ties by id, empty values last`, async () => {
        const res = await list(merchant, `sortBy=${sortBy}&sortOrder=${order}&limit=100`);
        assert.deepEqual(
          res.data.map((p) => p.id),
          expectedOrder(key, order),
        );
      });
    }
  }

  it("sorts amounts as numbers, not text", async () => {
    const res = await list(merchant, "sortBy=amount&sortOrder=asc&limit=100");
    assert.deepEqual(
      res.data.map((p) => p.amount),
      ["2.00", "55.00", "900.00", "900.00", "10000.00", "10000.00"],
    );
  });

  it("puts payments without confirmedAt last in both directions", async () => {
    for (const order of ["asc", "desc"]) {
      const res = await list(merchant, `sortBy=confirmedAt&sortOrder=${order}&limit=100`);
      assert.deepEqual(
        res.data.slice(-2).map((p) => p.confirmedAt),
        [null, null],
      );
    }
  });

  it("defaults to createdAt descending", async () => {
    const res = await list(merchant, "limit=100");
    assert.deepEqual(
      res.data.map((p) => p.id),
      expectedOrder(keys.createdAt!, "desc"),
    );
  });

  it("pages a sort with ties without repeats or gaps", async () => {
    const pages = await allPages(merchant, "sortBy=capturedAt&sortOrder=asc", 2);
    assert.deepEqual(
      pages.flat().map((p) => p.id),
      expectedOrder(keys.capturedAt!, "asc"),
    );
  });
});

describe("list payments: filters", () => {
  let merchant: Credentials;
  let t0: Date;
  let early: Listed[];
  let late: Listed[];

  before(async () => {
    merchant = await svc.newMerchant();
    t0 = svc.clock.now();
    early = [
      await create(merchant, { paymentMethod: "promptpay" }),
      await create(merchant, { paymentMethod: "bank_transfer" }),
    ];
    svc.clock.advance(60 * 60_000);
    late = [
      await create(merchant, { paymentMethod: "promptpay" }),
      await create(merchant, { paymentMethod: "bank_transfer" }),
      await create(merchant, { paymentMethod: "bank_transfer" }),
    ];
    await svc.request("POST", `/api/v1/payments/${late[2]!.id}/cancel`, undefined, { credentials: merchant });
  });

  const ids = (records: Listed[]) => records.map((p) => p.id).sort();

  it("filters by status", async () => {
    const res = await list(merchant, "status=canceled");
    assert.deepEqual(ids(res.data), [late[2]!.id]);
    assert.equal(res.total, 1);
    assert.equal(res.totalPages, 1);
    const none = await list(merchant, "status=succeeded");
    assert.deepEqual(none, { data: [], total: 0, page: 1, limit: 10, totalPages: 0 });
  });

  it("filters by paymentMethod", async () => {
    const res = await list(merchant, "paymentMethod=bank_transfer");
    assert.deepEqual(ids(res.data), ids([early[1]!, late[1]!, late[2]!]));
  });

  it("includes dateFrom and excludes dateTo", async () => {
    const t1 = new Date(t0.getTime() + 60 * 60_000).toISOString();
    assert.deepEqual(ids((await list(merchant, `dateFrom=${t1}`)).data), ids(late));
    assert.deepEqual(ids((await list(merchant, `dateTo=${t1}`)).data), ids(early));
    assert.deepEqual(
      ids((await list(merchant, `dateFrom=${t0.toISOString()}&dateTo=${t1}`)).data),
      ids(early),
    );
    assert.deepEqual((await list(merchant, `dateFrom=${t1}&dateTo=${t1}`)).data, []);
  });

  it("reads a date with an offset as the same instant", async () => {
    const t1 = new Date(t0.getTime() + 60 * 60_000);
    const bangkok = new Date(t1.getTime() + 7 * 3_600_000).toISOString().replace("Z", "+07:00");
    assert.deepEqual(ids((await list(merchant, `dateFrom=${encodeURIComponent(bangkok)}`)).data), ids(late));
  });

  it("reads a date and time without an offset as UTC, whatever the server's time zone", async () => {
    const t1 = new Date(t0.getTime() + 60 * 60_000);
    const zone = process.env.TZ;
    // The service in this process, in Bangkok's time zone: a local reading would be 7 hours off.
    process.env.TZ = "Asia/Bangkok";
    try {
      for (const written of [t1.toISOString().replace("Z", ""), `${t1.toISOString().slice(0, 19)}.000000`]) {
        assert.deepEqual(ids((await list(merchant, `dateFrom=${written}`)).data), ids(late), written);
        assert.deepEqual(ids((await list(merchant, `dateTo=${written}`)).data), ids(early), written);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("accepts a calendar date as midnight UTC", async () => {
    const day = t0.toISOString().slice(0, 10);
    const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    const res = await list(merchant, `dateFrom=${day}&dateTo=${next}`);
    const expected = [...early, ...late].filter((p) => p.createdAt.startsWith(day));
    assert.deepEqual(ids(res.data), ids(expected));
  });

  it("combines filters", async () => {
    const t1 = new Date(t0.getTime() + 60 * 60_000).toISOString();
    const res = await list(merchant, `paymentMethod=bank_transfer&status=requires_action&dateFrom=${t1}`);
    assert.deepEqual(ids(res.data), [late[1]!.id]);
    assert.equal(res.total, 1);
  });

  it("counts totalPages from the filtered total", async () => {
    const res = await list(merchant, "paymentMethod=bank_transfer&limit=2");
    assert.equal(res.total, 3);
    assert.equal(res.totalPages, 2);
  });

  it("lists only the authenticated merchant's payments", async () => {
    const stranger = await svc.newMerchant();
    const theirs = await create(stranger);
    const mine = await list(merchant, "limit=100");
    assert.equal(mine.total, 5);
    assert.ok(!mine.data.some((p) => p.id === theirs.id));
    const their = await list(stranger, "limit=100");
    assert.deepEqual(
      their.data.map((p) => p.id),
      [theirs.id],
    );
  });
});

describe("list payments: invalid query values", () => {
  const cases: Array<[string, string]> = [
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=abc", "page"],
    ["page=1.5", "page"],
    ["page=", "page"],
    ["page=1&page=2", "page"],
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    // Numbers are decimal digits: the other ways JavaScript reads a number are refused.
    ["limit=0x10", "limit"],
    ["limit=0b11", "limit"],
    ["limit=0o7", "limit"],
    ["limit=1e1", "limit"],
    ["limit=%2012%20", "limit"],
    ["limit=%2B5", "limit"],
    ["page=0x2", "page"],
    ["status=done&limit=0x10", "limit"],
    ["status=done", "status"],
    ["status=SUCCEEDED", "status"],
    ["paymentMethod=card", "paymentMethod"],
    ["responseMode=full", "responseMode"],
    ["sortBy=id", "sortBy"],
    ["sortBy=created_at", "sortBy"],
    ["sortOrder=up", "sortOrder"],
    ["sortOrder=DESC", "sortOrder"],
    ["dateFrom=yesterday", "dateFrom"],
    ["dateFrom=2026-02-30", "dateFrom"],
    ["dateFrom=2026-13-01", "dateFrom"],
    ["dateFrom=2026-01-15T10:00:00+7", "dateFrom"],
    ["dateFrom=2026-01-15T25:00:00Z", "dateFrom"],
    ["dateFrom=1700000000000", "dateFrom"],
    ["dateTo=2025-02-29T00:00:00Z", "dateTo"],
    ["dateTo=", "dateTo"],
    ["page=0&limit=0", "page"],
    ["limit=0&status=done", "limit"],
    ["status=done&dateFrom=x", "status"],
  ];
  for (const [query, field] of cases) {
    it(`refuses ${query} with 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await svc.request("GET", `/api/v1/payments?${query}`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
    });
  }

  for (const [query, field] of [
    ["page=1&page=2", "page"],
    ["limit=10&limit=20", "limit"],
    ["responseMode=both&responseMode=qr_code", "responseMode"],
    ["status=succeeded&status=succeeded", "status"],
    ["dateFrom=2026-01-01&dateFrom=2026-01-02", "dateFrom"],
  ]) {
    it(`says ${field} is given more than once in ${query}`, async () => {
      const res = await svc.request("GET", `/api/v1/payments?${query}`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
      assert.equal(res.body.error.message, `${field} is given more than once: give it once`);
    });
  }

  for (const query of [
    "limit=1",
    "limit=100",
    "page=1",
    "dateFrom=2024-02-29",
    "dateTo=2026-01-15T10:00:00.123456+07:00",
  ]) {
    it(`accepts ${query}`, async () => {
      const res = await svc.request("GET", `/api/v1/payments?${query.replace("+", "%2B")}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });
  }
});

describe("list payments: what a page reads", () => {
  it("reads only the record's columns, and lists each record as retrieve answers it", async () => {
    const merchant = await svc.newMerchant();
    const created = [
      await create(merchant, { metadata: { order: "A-1" }, description: "first" }),
      await create(merchant, { paymentMethod: "bank_transfer" }),
    ];
    const { result: listed, statements } = await statementsOf(() => list(merchant, ""));
    const page = statements.find((statement) => /from "payments"/.test(statement));
    assert.ok(page, statements.join("\n"));
    assert.doesNotMatch(page, /select \*|"payments"\.\*/);
    for (const column of [
      "idempotency_key",
      "request_hash",
      "customer_bank_account_number",
      "merchant_reference",
    ]) {
      assert.doesNotMatch(page, new RegExp(`"${column}" as`), `${column} is not read`);
    }
    for (const record of created) {
      const retrieved = await svc.request("GET", `/api/v1/payments/${record.id}`, undefined, {
        credentials: merchant,
      });
      assert.deepEqual(
        listed.data.find((row) => row.id === record.id),
        retrieved.body.data,
      );
    }
  });
});
