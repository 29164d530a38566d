/**
 * The dashboard's list of webhook deliveries (CONTRACT 13: "webhook deliveries, with filters and
 * paging"): every delivery of the session's merchant across its endpoints and events, filtered by
 * status, event type, endpoint and date, paged and sorted as every list, validated as every list.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { type DashboardUser, dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const MINUTE_MS = 60_000;

let svc: TestService;
let healthy: Receiver;
let failing: Receiver;
let shop: Credentials;
let user: DashboardUser;
let other: Credentials;
let otherUser: DashboardUser;
let healthyEndpoint: any;
let failingEndpoint: any;
let counter = 0;

async function api(method: string, path: string, body?: unknown, credentials = shop) {
  const res = await svc.request(method, path, body, { credentials });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

function paymentBody() {
  counter += 1;
  return {
    amount: `${100 + counter}.00`,
    referenceId: `deliveries-${process.pid}-${counter}`,
    paymentMethod: "bank_transfer",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(7_000_000_000 + counter),
    customerBankCode: "014",
  };
}

async function list(query = "", who = user) {
  const res = await who.request("GET", `/webhook-deliveries${query}`);
  assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

before(async () => {
  svc = await startService();
  healthy = await startReceiver();
  failing = await startReceiver();
  failing.handle((_request, response) => {
    response.statusCode = 500;
    response.end("down");
  });
  shop = await fundedMerchant(svc);
  other = await fundedMerchant(svc);
  user = await dashboardUser(svc, shop.merchantId);
  otherUser = await dashboardUser(svc, other.merchantId, "finance");
  healthyEndpoint = await api("POST", "/api/v1/webhook-endpoints", { url: healthy.url, events: ["*"] });
  healthy.secrets.push(healthyEndpoint.secret);
  failingEndpoint = await api("POST", "/api/v1/webhook-endpoints", {
    url: failing.url,
    events: ["payment.canceled"],
  });
  // Three canceled payments (each delivered to both endpoints) and one canceled withdraw (to the
  // healthy endpoint only), a minute apart.
  for (let i = 0; i < 3; i++) {
    const payment = await api("POST", "/api/v1/payments", paymentBody());
    await api("POST", `/api/v1/payments/${payment.id}/cancel`);
    svc.clock.advance(MINUTE_MS);
  }
  const withdraw = await api("POST", "/api/v1/withdraws", withdrawBody({ amount: "500.00" }));
  await api("POST", `/api/v1/withdraws/${withdraw.id}/cancel`);
  await deliverDueWebhooks(svc.deps);
  // The other merchant's own delivery.
  await api("POST", "/api/v1/webhook-endpoints", { url: healthy.url, events: ["*"] }, other);
  const theirs = await api("POST", "/api/v1/payments", paymentBody(), other);
  await api("POST", `/api/v1/payments/${theirs.id}/cancel`, undefined, other);
});

after(async () => {
  await healthy?.close();
  await failing?.close();
  await svc?.close();
});

describe("GET /dashboard/api/webhook-deliveries", () => {
  it("lists every delivery of the merchant, newest first, with its event, endpoint and outcome", async () => {
    const page = await list();
    assert.equal(page.total, 7);
    assert.equal(page.data.length, 7);
    const times = page.data.map((d: any) => d.createdAt);
    assert.deepEqual(times, [...times].sort().reverse());
    const failed = page.data.find((d: any) => d.endpointId === failingEndpoint.id);
    assert.equal(failed.endpointUrl, failing.url);
    assert.equal(failed.eventType, "payment.canceled");
    assert.equal(failed.status, "pending");
    assert.equal(failed.attemptCount, 1);
    assert.equal(failed.lastStatusCode, 500);
    assert.ok(failed.nextAttemptAt, "a delivery that will be tried again says when");
    assert.equal(failed.completedAt, null);
    assert.equal("attempts" in failed, false, "the attempts are on the event's page");
    const delivered = page.data.find((d: any) => d.eventType === "withdraw.canceled");
    assert.equal(delivered.status, "succeeded");
    assert.equal(delivered.endpointUrl, healthy.url);
    assert.equal(delivered.lastStatusCode, 200);
    assert.equal(delivered.nextAttemptAt, null);
    assert.ok(delivered.completedAt);
    // Each delivery is the one the event's own page shows.
    const event = (await user.request("GET", `/events/${delivered.eventId}`)).body.data;
    const same = event.deliveries.find((d: any) => d.id === delivered.id);
    assert.equal(same.status, delivered.status);
    assert.equal(same.attemptCount, delivered.attemptCount);
  });

  it("filters by status, event type, endpoint and date, alone and together", async () => {
    assert.equal((await list("?status=pending")).total, 3);
    assert.equal((await list("?status=succeeded")).total, 4);
    assert.equal((await list("?status=failed")).total, 0);
    assert.equal((await list("?eventType=withdraw.canceled")).total, 1);
    assert.equal((await list("?eventType=payment.canceled")).total, 6);
    assert.equal((await list("?eventType=payment.received")).total, 0);
    assert.equal((await list(`?endpointId=${failingEndpoint.id}`)).total, 3);
    assert.equal((await list(`?endpointId=${healthyEndpoint.id}`)).total, 4);
    const together = await list(
      `?endpointId=${healthyEndpoint.id}&eventType=payment.canceled&status=succeeded`,
    );
    assert.equal(together.total, 3);
    assert.ok(
      together.data.every((d: any) => d.endpointId === healthyEndpoint.id && d.status === "succeeded"),
    );
    // dateFrom <= createdAt < dateTo, on the deliveries' own times (real time: a delivery is an
    // HTTP request, not a step of the merchant's test clock).
    const all = (await list("?sortOrder=asc")).data.map((d: any) => d.createdAt);
    for (const at of [all[0], all[3], all[6]]) {
      const later = all.filter((t: string) => t >= at).length;
      assert.equal((await list(`?dateFrom=${at}`)).total, later, `dateFrom=${at}`);
      assert.equal((await list(`?dateTo=${at}`)).total, 7 - later, `dateTo=${at}`);
    }
    assert.ok((await list(`?dateFrom=${all[6]}`)).total < 7);
    assert.equal((await list(`?dateFrom=${all[0]}&dateTo=${all[0]}`)).total, 0);
  });

  it("pages without repeating or skipping a delivery, in both orders", async () => {
    for (const order of ["asc", "desc"]) {
      const seen: string[] = [];
      for (let pageNumber = 1; pageNumber <= 4; pageNumber++) {
        const page = await list(`?limit=2&page=${pageNumber}&sortOrder=${order}`);
        assert.equal(page.total, 7);
        assert.equal(page.totalPages, 4);
        seen.push(...page.data.map((d: any) => d.id));
      }
      assert.equal(new Set(seen).size, 7, order);
    }
    const past = await list("?limit=2&page=9");
    assert.deepEqual(past.data, []);
    assert.equal(past.total, 7);
  });

  it("answers only for the session's merchant, whatever the endpoint asked for", async () => {
    const theirs = await list("", otherUser);
    assert.equal(theirs.total, 1, "a finance user reads deliveries too");
    assert.equal((await list(`?endpointId=${healthyEndpoint.id}`, otherUser)).total, 0);
  });

  it("refuses bad filters with 400 VALIDATION_ERROR naming the field", async () => {
    const bad: Array<[string, string]> = [
      ["?status=delivered", "status"],
      ["?eventType=payment.nothing", "eventType"],
      ["?endpointId=not-a-uuid", "endpointId"],
      ["?page=0", "page"],
      ["?limit=101", "limit"],
      ["?dateFrom=yesterday", "dateFrom"],
      ["?sortBy=status", "sortBy"],
      ["?sortOrder=up", "sortOrder"],
    ];
    for (const [query, field] of bad) {
      const res = await user.request("GET", `/webhook-deliveries${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, "VALIDATION_ERROR", query);
      assert.equal(res.body.error.metadata.field, field, query);
    }
  });

  it("needs a session", async () => {
    const raw = await svc.app.inject({
      method: "GET",
      url: "/dashboard/api/webhook-deliveries",
      headers: { authorization: "Bearer wrong" },
    });
    assert.equal(raw.statusCode, 401);
  });
});
