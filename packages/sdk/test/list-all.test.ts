/**
 * The `listAll` iterators while the list changes under them: a fake server keeps the records in
 * memory, answers the list queries as CONTRACT 11 says (dateFrom <= createdAt < dateTo, ties by
 * id, pages counted from the top as the list is when each is read), and lets the test change
 * the records between two pages. The same walks against the real server are in client.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type FetchLike, Satang } from "../src/index.ts";

interface Row {
  id: string;
  createdAt: string;
  amount: string;
  status: string;
}

function fakeServer(rows: Row[]) {
  const requests: URLSearchParams[] = [];
  const fetch: FetchLike = async (url) => {
    const query = new URL(url).searchParams;
    requests.push(query);
    const limit = Number(query.get("limit") ?? 10);
    const page = Number(query.get("page") ?? 1);
    const from = query.get("dateFrom");
    const to = query.get("dateTo");
    const status = query.get("status");
    const sortBy = (query.get("sortBy") ?? "createdAt") as "createdAt" | "amount";
    const sign = query.get("sortOrder") === "asc" ? 1 : -1;
    const key = (row: Row) => (sortBy === "amount" ? Number(row.amount) : Date.parse(row.createdAt));
    const matching = rows
      .filter((row) => status === null || row.status === status)
      .filter((row) => from === null || Date.parse(row.createdAt) >= Date.parse(from))
      .filter((row) => to === null || Date.parse(row.createdAt) < Date.parse(to))
      .sort((a, b) => sign * (key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    const data = matching.slice((page - 1) * limit, page * limit);
    const body = {
      success: true,
      data: { data, total: matching.length, page, limit, totalPages: Math.ceil(matching.length / limit) },
    };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  };
  return { fetch, requests };
}

const START = Date.parse("2026-11-01T00:00:00.000Z");
let serial = 0;
function row(atMs: number, fields: Partial<Row> = {}): Row {
  serial += 1;
  return {
    id: `00000000-0000-4000-8000-${String(serial).padStart(12, "0")}`,
    createdAt: new Date(START + atMs).toISOString(),
    amount: "100.00",
    status: "requires_action",
    ...fields,
  };
}

const client = (fetch: FetchLike) => new Satang({ apiKey: "key", apiSecret: "secret", fetch, maxRetries: 0 });

async function walk(
  iterator: AsyncGenerator<{ id: string }>,
  between: (yielded: number, id: string) => void = () => {},
) {
  const ids: string[] = [];
  for await (const record of iterator) {
    ids.push(record.id);
    between(ids.length, record.id);
  }
  return ids;
}

describe("listAll while the list changes", () => {
  it("yields each record once in the default order while newer records arrive between pages", async () => {
    const rows = Array.from({ length: 25 }, (_, i) => row(i * 1000));
    const before = rows.map((r) => r.id);
    const server = fakeServer(rows);
    const ids = await walk(client(server.fetch).payments.listAll({ limit: 4 }), (n) => {
      // Two newer records after every page: a walk by page number sees the page's tail again.
      if (n % 4 === 0) rows.push(row(100_000 + n * 10), row(100_001 + n * 10));
    });
    assert.equal(new Set(ids).size, ids.length, "no record twice");
    assert.deepEqual(ids, [...before].reverse(), "every earlier record, newest first, none missed");
  });

  it("misses no record of a status filter when records leave it during the walk", async () => {
    const rows = Array.from({ length: 20 }, (_, i) => row(i * 1000));
    const server = fakeServer(rows);
    const ids = await walk(
      client(server.fetch).payments.listAll({ status: "requires_action", limit: 3 }),
      (_n, id) => {
        // The merchant cancels each payment as it reads it: it leaves the filtered list.
        rows.find((r) => r.id === id)!.status = "canceled";
      },
    );
    assert.equal(ids.length, 20, "a walk by page number skipped every other page's worth");
    assert.equal(new Set(ids).size, 20);
  });

  it("reads on through more records of one millisecond than a page holds", async () => {
    const rows = [
      row(0),
      ...Array.from({ length: 7 }, () => row(5000)),
      row(6000),
      ...Array.from({ length: 3 }, () => row(7000)),
    ];
    const server = fakeServer(rows);
    const newest = await walk(client(server.fetch).payments.listAll({ limit: 3 }));
    assert.equal(newest.length, rows.length);
    assert.equal(new Set(newest).size, rows.length);
    const oldest = await walk(client(server.fetch).payments.listAll({ limit: 3, sortOrder: "asc" }));
    assert.deepEqual(oldest, [...newest].reverse());
  });

  it("oldest first, yields records made during the walk once, after the earlier ones", async () => {
    const rows = Array.from({ length: 9 }, (_, i) => row(i * 1000));
    const server = fakeServer(rows);
    const added: string[] = [];
    const ids = await walk(client(server.fetch).events.listAll({ limit: 4, sortOrder: "asc" }), (n) => {
      if (n === 2) {
        const late = row(50_000);
        rows.push(late);
        added.push(late.id);
      }
    });
    assert.deepEqual(ids, [...rows.slice(0, 9).map((r) => r.id), ...added]);
  });

  it("keeps the caller's date bounds and filters in every request", async () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i * 1000));
    const server = fakeServer(rows);
    const dateFrom = new Date(START + 2000).toISOString();
    const dateTo = new Date(START + 8000).toISOString();
    const ids = await walk(
      client(server.fetch).withdraws.listAll({ limit: 2, dateFrom, dateTo, status: "pending" }),
    );
    assert.deepEqual(ids, []);
    const all = await walk(client(server.fetch).withdraws.listAll({ limit: 2, dateFrom, dateTo }));
    assert.deepEqual(
      all,
      rows
        .slice(2, 8)
        .map((r) => r.id)
        .reverse(),
    );
    for (const query of server.requests.slice(1)) {
      assert.ok(Date.parse(query.get("dateFrom")!) >= Date.parse(dateFrom));
      assert.ok(Date.parse(query.get("dateTo")!) <= Date.parse(dateTo));
    }
  });

  it("ordered by another field, pages by number and never yields a record twice", async () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i * 1000, { amount: `${(i + 1) * 100}.00` }));
    const server = fakeServer(rows);
    const ids = await walk(client(server.fetch).payments.listAll({ limit: 3, sortBy: "amount" }), (n) => {
      if (n === 3) rows.push(row(90_000, { amount: "99999.00" }));
    });
    assert.equal(new Set(ids).size, ids.length);
    for (const r of rows.slice(0, 10)) assert.ok(ids.includes(r.id));
  });
});
