/**
 * Every list (merchant API, operator API, dashboard) shares one set of list parameters with
 * bounds: page and limit are integers within range (a page any number of pages past the last,
 * up to 2^53 - 1, is an empty page that echoes it exactly), dates are days that exist (an instant before 1970 or after 9999 is read as
 * that bound).
 * Each route with a `page` parameter is tried with the values that once answered 500.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Schema, sampleOne, validValue } from "../../../../reliability/fuzz-schema.ts";
import { fillPath, send, type Target } from "../../../../reliability/fuzz-target.ts";
import type { CatalogRoute } from "../../src/http/route-catalog.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { createPayment, createWithdraw, paymentBody } from "../helpers/lifecycle.ts";
import { createRefund, succeededPayment } from "../helpers/refunds.ts";

const BAD_NUMBERS = ["1e309", "Infinity", "-Infinity", "NaN", "0", "-1", "1.5", ""];
/** Pages far past the last, up to the largest a JSON number holds exactly. */
const FAR_PAGES = ["90071992547410", "9007199254740991"];
/** Pages a JSON number would not echo exactly: past 2^53 - 1, and past a double's range. */
const TOO_FAR_PAGES = ["9007199254740992", "123456789012345678901", "9".repeat(309)];

describe("list parameters", () => {
  let svc: TestService;
  let target: Target;
  let lists: CatalogRoute[];
  // The lists under a payment (its refunds) are asked about a payment of the merchant.
  let paymentId: string;
  before(async () => {
    svc = await startService();
    await createPayment(svc, svc.credentials);
    // A record in the payments, withdraws, refunds, events and audit lists, for the date bounds.
    paymentId = (await succeededPayment(svc, svc.credentials)).id;
    await fundWallet(svc.deps, svc.credentials.merchantId, 10_000_00n);
    await createRefund(svc, svc.credentials, paymentId);
    await createWithdraw(svc, svc.credentials, { amount: "100.00" });
    const merchant = await svc.admin("POST", "/admin/v1/merchants", { name: "Dated Shop" });
    assert.equal(merchant.status, 201, JSON.stringify(merchant.body));
    target = { svc, dashboardToken: (await dashboardUser(svc)).token };
    lists = svc.app.routeCatalog.filter(
      (route) =>
        route.method === "GET" && (route.schema?.querystring as Schema | undefined)?.properties?.page,
    );
  });
  after(async () => {
    await svc.close();
  });

  const get = (route: CatalogRoute, query: string) => {
    const params = sampleOne(validValue((route.schema?.params as Schema) ?? {}), 1) as Record<
      string,
      unknown
    >;
    const underPayment = route.url.includes("/payments/:");
    if ("id" in params) params.id = underPayment ? paymentId : svc.credentials.merchantId;
    if ("payment_id" in params) params.payment_id = paymentId;
    // A list that needs a parameter (the operator's search by merchant reference) is given one.
    const querySchema = (route.schema?.querystring as Schema | undefined) ?? {};
    const required = ((querySchema as { required?: string[] }).required ?? []).map(
      (name) =>
        `${name}=${encodeURIComponent(String(sampleOne(validValue(querySchema.properties![name]!), 1)))}&`,
    );
    return send(target, { method: "GET", url: `${fillPath(route, params)}?${required.join("")}${query}` });
  };

  it("covers the lists of every caller", () => {
    const urls = lists.map((route) => route.url);
    for (const url of [
      "/api/v1/payments",
      "/api/v1/events",
      "/admin/v1/anomalies",
      "/admin/v1/merchants/:id/integrations",
      "/dashboard/api/api-keys",
      "/dashboard/api/webhook-endpoints",
    ]) {
      assert.ok(urls.includes(url), `${url} has no page parameter`);
    }
  });

  it("refuses a query parameter a route does not name with 400 naming it, as bodies refuse unknown fields", async () => {
    const queried = svc.app.routeCatalog.filter(
      (route) => route.method === "GET" && (route.schema?.querystring as Schema | undefined)?.properties,
    );
    const urls = queried.map((route) => route.url);
    for (const url of [
      "/api/v1/payments",
      "/api/v1/payments/:payment_id",
      "/api/v1/withdraws",
      "/api/v1/refunds",
      "/api/v1/events",
      "/api/v1/reports/payments.csv",
      "/api/v1/reports/withdraws.csv",
      "/api/v1/reports/ledger.csv",
      "/admin/v1/audit-log",
      "/dashboard/api/payments",
    ]) {
      assert.ok(urls.includes(url), `${url} has no query schema`);
    }
    for (const route of queried) {
      // A misspelt filter: answered as the unfiltered list or file, it would look filtered.
      const named = (route.schema!.querystring as Schema).properties!;
      const cases = ["stauts=succeeded", "STATUS=pending", "foo=", ...(named.limit ? ["limit=1&foo=1"] : [])];
      for (const query of cases) {
        const res = await get(route, query);
        const unknown = query.split("&").at(-1)!.split("=")[0];
        assert.equal(res.statusCode, 400, `${route.url}?${query}: ${res.body}`);
        assert.equal(res.json().error.code, "VALIDATION_ERROR", `${route.url}?${query}`);
        assert.equal(res.json().error.metadata.field, unknown, `${route.url}?${query}`);
      }
    }
  });

  it("refuses any query parameter on a JSON API route that takes none, before it acts", async () => {
    const api = svc.app.routeCatalog.filter(
      (route) =>
        ["/api/", "/admin/", "/dashboard/api/"].some((prefix) => route.url.startsWith(prefix)) &&
        route.url !== "/api/v1/openapi.json",
    );
    const none = api.filter((route) => {
      const query = route.schema?.querystring as Schema | undefined;
      assert.ok(query, `${route.method} ${route.url} has no query schema`);
      return Object.keys(query.properties ?? {}).length === 0;
    });
    const urls = none.map((route) => `${route.method} ${route.url}`);
    for (const url of [
      "GET /api/v1/balance",
      "GET /api/v1/withdraws/:withdraw_id",
      "POST /api/v1/payments",
    ]) {
      assert.ok(urls.includes(url), `${url} is not among the routes without query parameters`);
    }
    // Reads and deletes are refused whatever their path names: validation comes before any lookup.
    for (const route of none.filter(
      (candidate) => candidate.method === "GET" || candidate.method === "DELETE",
    )) {
      const params = sampleOne(validValue((route.schema?.params as Schema) ?? {}), 1) as Record<
        string,
        unknown
      >;
      const res = await send(target, {
        method: route.method,
        url: `${fillPath(route, params)}?currency=USD`,
      });
      assert.equal(res.statusCode, 400, `${route.method} ${route.url}?currency=USD: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR", route.url);
      assert.equal(res.json().error.metadata.field, "currency", route.url);
    }
    // A write with a valid body and a stray parameter writes nothing.
    const before = (await send(target, { method: "GET", url: "/api/v1/payments?limit=1" })).json().data.total;
    const created = await send(target, {
      method: "POST",
      url: "/api/v1/payments?status=succeeded",
      body: paymentBody({ referenceId: "query-refused-1" }),
    });
    assert.equal(created.statusCode, 400, created.body);
    assert.equal(created.json().error.metadata.field, "status");
    const after = (await send(target, { method: "GET", url: "/api/v1/payments?limit=1" })).json().data.total;
    assert.equal(after, before);
  });

  it("refuses a page or limit that is not an integer in range with 400 naming it", async () => {
    for (const route of lists) {
      for (const field of ["page", "limit"]) {
        for (const value of [
          ...BAD_NUMBERS,
          ...(field === "page" ? TOO_FAR_PAGES : ["101", "123456789012345678901"]),
        ]) {
          const res = await get(route, `${field}=${encodeURIComponent(value)}`);
          assert.equal(res.statusCode, 400, `${route.url} ${field}=${value}: ${res.body}`);
          assert.equal(res.json().error.code, "VALIDATION_ERROR");
          assert.equal(res.json().error.metadata.field, field, `${route.url} ${field}=${value}`);
        }
      }
    }
  });

  it("answers a page however far past the last with an empty page and the true totals", async () => {
    for (const route of lists) {
      const first = await get(route, "limit=100");
      assert.equal(first.statusCode, 200, `${route.url}: ${first.body}`);
      const { total, totalPages } = first.json().data;
      for (const far of FAR_PAGES) {
        const res = await get(route, `page=${far}&limit=100`);
        assert.equal(res.statusCode, 200, `${route.url} page=${far}: ${res.body}`);
        assert.deepEqual(res.json().data.data, [], `${route.url} page=${far}`);
        assert.equal(res.json().data.total, total, `${route.url} page=${far}`);
        assert.equal(res.json().data.totalPages, totalPages, `${route.url} page=${far}`);
        assert.equal(res.json().data.page, Number(far), `${route.url} page=${far}`);
      }
    }
  });

  it("reads dates before 1970 or after 9999 as those bounds and refuses a day that does not exist", async () => {
    const dated = lists.filter(
      (route) => (route.schema?.querystring as Schema | undefined)?.properties?.dateFrom,
    );
    assert.ok(dated.length >= 6, "payments, withdraws and events lists, public and dashboard");
    const early = [
      "0000-01-01T00:00:00Z",
      "0000-01-01",
      "1900-01-01",
      "1969-12-31T23:59:59Z",
      "1970-01-01T00:00:00Z",
    ];
    const late = [
      "9999-12-31T23:00:00-02:00",
      "9999-12-31T23:59:59.9991Z",
      "9999-12-31T23:59:59.999Z",
      "9999-12-31T23:59:59.999000000Z",
    ];
    const totalOf = async (route: CatalogRoute, query: string) => {
      const res = await get(route, query);
      assert.equal(res.statusCode, 200, `${route.url} ${query}: ${res.body}`);
      return res.json().data.total as number;
    };
    for (const route of dated) {
      const all = await totalOf(route, "limit=1");
      for (const value of early) {
        const at = encodeURIComponent(value);
        assert.equal(await totalOf(route, `dateFrom=${at}`), all, `${route.url} dateFrom=${value}`);
        assert.equal(await totalOf(route, `dateTo=${at}`), 0, `${route.url} dateTo=${value}`);
      }
      for (const value of late) {
        const at = encodeURIComponent(value);
        assert.equal(await totalOf(route, `dateFrom=${at}`), 0, `${route.url} dateFrom=${value}`);
        assert.equal(await totalOf(route, `dateTo=${at}`), all, `${route.url} dateTo=${value}`);
      }
      for (const field of ["dateFrom", "dateTo"]) {
        for (const value of ["2026-02-30", "2025-02-29T00:00:00Z", "2026-04-31", "1900-02-29"]) {
          const res = await get(route, `${field}=${encodeURIComponent(value)}`);
          assert.equal(res.statusCode, 400, `${route.url} ${field}=${value}: ${res.body}`);
          assert.equal(res.json().error.code, "VALIDATION_ERROR");
          assert.equal(res.json().error.metadata.field, field);
        }
      }
    }
  });

  it("compares dates exactly past the millisecond: dateFrom <= createdAt < dateTo", async () => {
    const dated = lists.filter(
      (route) => (route.schema?.querystring as Schema | undefined)?.properties?.dateFrom,
    );
    const covered: string[] = [];
    for (const route of dated) {
      const first = await get(route, "limit=1");
      assert.equal(first.statusCode, 200, `${route.url}: ${first.body}`);
      const record = first.json().data.data[0] as { id: string; createdAt?: string } | undefined;
      if (record?.createdAt === undefined) continue;
      const at = record.createdAt;
      assert.match(at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, route.url);
      const next = new Date(Date.parse(at) + 1).toISOString();
      const listed = async (dateFrom: string, dateTo: string) => {
        const res = await get(
          route,
          `limit=100&dateFrom=${encodeURIComponent(dateFrom)}&dateTo=${encodeURIComponent(dateTo)}`,
        );
        assert.equal(res.statusCode, 200, `${route.url}: ${res.body}`);
        return (res.json().data.data as { id: string }[]).some((r) => r.id === record.id);
      };
      const fraction = (digits: string) => at.replace("Z", `${digits}Z`);
      assert.equal(
        await listed(fraction("1"), next),
        false,
        `${route.url}: ${at} is before ${fraction("1")}`,
      );
      assert.equal(await listed(fraction("000001"), next), false, `${route.url} dateFrom 9 digits`);
      assert.equal(await listed(at, fraction("1")), true, `${route.url}: ${at} is before ${fraction("1")}`);
      assert.equal(await listed(at, fraction("000001")), true, `${route.url} dateTo 9 digits`);
      assert.equal(await listed(fraction("000000"), fraction("000001")), true, `${route.url} zeros`);
      assert.equal(await listed(fraction("000000"), fraction("000000")), false, `${route.url} empty range`);
      covered.push(route.url);
    }
    for (const url of [
      "/api/v1/payments",
      "/api/v1/withdraws",
      "/api/v1/refunds",
      "/api/v1/events",
      "/admin/v1/audit-log",
    ]) {
      assert.ok(covered.includes(url), `${url} was not tried at the millisecond boundary: ${covered}`);
    }
  });
});
