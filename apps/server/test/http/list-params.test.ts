/**
 * Every list (merchant API, operator API, dashboard) shares one set of list parameters with
 * bounds: page and limit are integers within range, dates are instants between 1970 and 9999.
 * Each route with a `page` parameter is tried with the values that once answered 500.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Schema, sampleOne, validValue } from "../../../../reliability/fuzz-schema.ts";
import { fillPath, send, type Target } from "../../../../reliability/fuzz-target.ts";
import type { CatalogRoute } from "../../src/http/route-catalog.ts";
import { PAGE_NUMBER_MAX } from "../../src/lib/limits.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { createPayment } from "../helpers/lifecycle.ts";

const BAD_NUMBERS = ["1e309", "Infinity", "-Infinity", "NaN", "123456789012345678901", "0", "-1", "1.5", ""];

describe("list parameters", () => {
  let svc: TestService;
  let target: Target;
  let lists: CatalogRoute[];
  // The lists under a payment (its refunds) are asked about a payment of the merchant.
  let paymentId: string;
  before(async () => {
    svc = await startService();
    paymentId = (await createPayment(svc, svc.credentials)).id;
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
    return send(target, { method: "GET", url: `${fillPath(route, params)}?${query}` });
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

  it("refuses a page or limit that is not an integer in range with 400 naming it", async () => {
    for (const route of lists) {
      for (const field of ["page", "limit"]) {
        for (const value of [...BAD_NUMBERS, field === "page" ? String(PAGE_NUMBER_MAX + 1) : "101"]) {
          const res = await get(route, `${field}=${encodeURIComponent(value)}`);
          assert.equal(res.statusCode, 400, `${route.url} ${field}=${value}: ${res.body}`);
          assert.equal(res.json().error.code, "VALIDATION_ERROR");
          assert.equal(res.json().error.metadata.field, field, `${route.url} ${field}=${value}`);
        }
      }
    }
  });

  it("answers the last allowed page and limit with an empty page", async () => {
    for (const route of lists) {
      const res = await get(route, `page=${PAGE_NUMBER_MAX}&limit=100`);
      assert.equal(res.statusCode, 200, `${route.url}: ${res.body}`);
      assert.deepEqual(res.json().data.data, []);
      assert.equal(res.json().data.page, PAGE_NUMBER_MAX);
    }
  });

  it("refuses dates before 1970 or after 9999 and accepts the bounds", async () => {
    const dated = lists.filter(
      (route) => (route.schema?.querystring as Schema | undefined)?.properties?.dateFrom,
    );
    assert.ok(dated.length >= 6, "payments, withdraws and events lists, public and dashboard");
    for (const route of dated) {
      for (const field of ["dateFrom", "dateTo"]) {
        for (const value of [
          "0000-01-01T00:00:00Z",
          "0000-01-01",
          "1969-12-31T23:59:59Z",
          "9999-12-31T23:00:00-02:00",
        ]) {
          const res = await get(route, `${field}=${encodeURIComponent(value)}`);
          assert.equal(res.statusCode, 400, `${route.url} ${field}=${value}: ${res.body}`);
          assert.equal(res.json().error.metadata.field, field);
        }
        for (const value of ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"]) {
          const res = await get(route, `${field}=${encodeURIComponent(value)}`);
          assert.equal(res.statusCode, 200, `${route.url} ${field}=${value}: ${res.body}`);
        }
      }
    }
  });
});
