/**
 * The dashboard's API under /dashboard/api, with a session token: every route answers for the
 * session's merchant only, and lists answer exactly what the public API answers for the same
 * query (they call the same services), validation errors included. Also the page itself and
 * its files.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { type DashboardUser, dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { refundBody, succeededPayment } from "../helpers/refunds.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const MISSING_ID = "00000000-0000-4000-8000-000000000000";
const MINUTE_MS = 60_000;

let svc: TestService;
let receiver: Receiver;
/** A funded merchant with payments, withdraws, events, an endpoint, and a dashboard user. */
let shop: Credentials;
let user: DashboardUser;
/** Another merchant with its own records: none of them may show up for `user`. */
let other: Credentials;
let otherUser: DashboardUser;
const payments: any[] = [];
const withdraws: any[] = [];
let counter = 0;

function paymentBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    amount: `${1000 + counter * 100}.00`,
    referenceId: `dash-${process.pid}-${counter}`,
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

before(async () => {
  svc = await startService();
  receiver = await startReceiver();
  shop = await fundedMerchant(svc);
  other = await fundedMerchant(svc);
  user = await dashboardUser(svc, shop.merchantId);
  otherUser = await dashboardUser(svc, other.merchantId);
  const endpoint = await api("POST", "/api/v1/webhook-endpoints", { url: receiver.url, events: ["*"] });
  receiver.secrets.push(endpoint.secret);
  for (let i = 0; i < 6; i++) {
    payments.push(await api("POST", "/api/v1/payments", paymentBody()));
    svc.clock.advance(MINUTE_MS);
  }
  for (let i = 0; i < 3; i++) {
    withdraws.push(await api("POST", "/api/v1/withdraws", withdrawBody({ amount: `${(i + 1) * 1000}.00` })));
    svc.clock.advance(MINUTE_MS);
  }
  // Events through the lifecycle: canceling records payment.canceled and withdraw.canceled.
  await api("POST", `/api/v1/payments/${payments[0].id}/cancel`);
  await api("POST", `/api/v1/withdraws/${withdraws[0].id}/cancel`);
  await deliverDueWebhooks(svc.deps);
  // The other merchant has records too.
  await api("POST", "/api/v1/payments", paymentBody(), other);
  const otherPayment = await api("POST", "/api/v1/payments", paymentBody(), other);
  await api("POST", `/api/v1/payments/${otherPayment.id}/cancel`, undefined, other);
});

after(async () => {
  await receiver?.close();
  await svc?.close();
});

describe("the dashboard API answers what the public API answers", () => {
  it("GET /me names the user, the merchant, the environment and the session's end", async () => {
    const res = await user.request("GET", "/me");
    assert.equal(res.status, 200);
    assert.equal(res.headers["cache-control"], "no-store");
    assert.equal(res.body.data.user.email, user.email);
    assert.equal(res.body.data.user.merchantId, shop.merchantId);
    assert.deepEqual(res.body.data.merchant, { id: shop.merchantId, name: "Test Shop" });
    assert.equal(res.body.data.environment, "sandbox");
    assert.ok(Date.parse(res.body.data.expiresAt) > Date.now());
  });

  it("a refund asked again with its idempotency key answers 200 with the same refund and Idempotent-Replayed, as the API does", async () => {
    const merchant = await fundedMerchant(svc);
    const owner = await dashboardUser(svc, merchant.merchantId);
    const paid = await succeededPayment(svc, merchant);
    const body = refundBody({ idempotencyKey: `dash-refund-${process.pid}-${++counter}` });
    const made = await owner.request("POST", `/payments/${paid.id}/refunds`, body);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.headers["idempotent-replayed"], undefined);
    const again = await owner.request("POST", `/payments/${paid.id}/refunds`, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body.data, made.body.data);
    const listed = await api("GET", `/api/v1/payments/${paid.id}/refunds`, undefined, merchant);
    assert.equal(listed.data.length, 1);
  });

  it("GET /balance is the merchant's balance", async () => {
    const res = await user.request("GET", "/balance");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, await api("GET", "/api/v1/balance"));
    assert.equal(res.body.data.currency, "THB");
  });

  it("GET /payments filters, sorts and pages exactly as GET /api/v1/payments", async () => {
    const from = new Date(Date.parse(payments[1].createdAt)).toISOString();
    const to = new Date(Date.parse(payments[4].createdAt)).toISOString();
    const queries = [
      "",
      "?limit=2",
      "?limit=2&page=2",
      "?page=99",
      "?status=canceled",
      "?paymentMethod=bank_transfer",
      "?sortBy=amount&sortOrder=asc&limit=4",
      "?sortBy=referenceId&sortOrder=desc",
      `?dateFrom=${encodeURIComponent(from)}&dateTo=${encodeURIComponent(to)}`,
      "?status=requires_action&paymentMethod=promptpay&sortBy=createdAt&sortOrder=asc",
      "?responseMode=qr_code",
    ];
    for (const query of queries) {
      const dashboard = await user.request("GET", `/payments${query}`);
      assert.equal(dashboard.status, 200, query);
      assert.deepEqual(dashboard.body.data, await api("GET", `/api/v1/payments${query}`), query);
    }
    const all = await user.request("GET", "/payments?limit=100");
    assert.equal(all.body.data.total, payments.length);
    const ranged = await user.request(
      "GET",
      `/payments?dateFrom=${encodeURIComponent(from)}&dateTo=${encodeURIComponent(to)}`,
    );
    assert.deepEqual(
      ranged.body.data.data.map((p: any) => p.id),
      [payments[3].id, payments[2].id, payments[1].id],
    );
  });

  it("refuses invalid list parameters exactly as the public API does", async () => {
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?page=0",
      "?status=paid",
      "?sortBy=fee",
      "?dateFrom=2026-02-30",
    ]) {
      const dashboard = await user.request("GET", `/payments${query}`);
      const publicApi = await svc.request("GET", `/api/v1/payments${query}`, undefined, {
        credentials: shop,
      });
      assert.equal(dashboard.status, 400, query);
      assert.deepEqual(dashboard.body, publicApi.body, query);
    }
  });

  it("GET /withdraws filters, sorts and pages exactly as GET /api/v1/withdraws", async () => {
    for (const query of [
      "",
      "?status=pending",
      "?status=canceled",
      "?destinationType=wallet",
      "?sortBy=amount&sortOrder=asc&limit=2",
      "?limit=2&page=2",
    ]) {
      const dashboard = await user.request("GET", `/withdraws${query}`);
      assert.equal(dashboard.status, 200, query);
      assert.deepEqual(dashboard.body.data, await api("GET", `/api/v1/withdraws${query}`), query);
    }
  });

  it("GET /events filters and pages exactly as GET /api/v1/events; GET /events/{id} has the deliveries", async () => {
    for (const query of [
      "",
      "?type=payment.canceled",
      "?type=withdraw.canceled",
      "?limit=1&page=2",
      "?sortOrder=asc",
    ]) {
      const dashboard = await user.request("GET", `/events${query}`);
      assert.equal(dashboard.status, 200, query);
      assert.deepEqual(dashboard.body.data, await api("GET", `/api/v1/events${query}`), query);
    }
    const events = (await user.request("GET", "/events")).body.data.data;
    assert.deepEqual(events.map((e: any) => e.type).sort(), ["payment.canceled", "withdraw.canceled"]);
    const detail = await user.request("GET", `/events/${events[0].id}`);
    assert.equal(detail.status, 200);
    assert.deepEqual(detail.body.data, await api("GET", `/api/v1/events/${events[0].id}`));
    assert.equal(detail.body.data.deliveries.length, 1);
    assert.equal(detail.body.data.deliveries[0].status, "succeeded");
    assert.equal(detail.body.data.deliveries[0].attempts[0].statusCode, 200);
  });

  it("GET /webhook-endpoints lists the merchant's endpoints as the public API does, without secrets", async () => {
    const res = await user.request("GET", "/webhook-endpoints");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, await api("GET", "/api/v1/webhook-endpoints"));
    assert.equal(res.body.data.total, 1);
    assert.equal(res.body.data.data[0].url, receiver.url);
    assert.equal("secret" in res.body.data.data[0], false);
  });
});

describe("details with their event timeline", () => {
  it("GET /payments/{id} is the payment as the API shows it, with its events oldest first", async () => {
    const res = await user.request("GET", `/payments/${payments[0].id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.payment, await api("GET", `/api/v1/payments/${payments[0].id}`));
    assert.equal(res.body.data.payment.status, "canceled");
    assert.deepEqual(
      res.body.data.timeline.map((entry: any) => entry.type),
      ["payment.canceled"],
    );
    assert.deepEqual(Object.keys(res.body.data.timeline[0]).sort(), ["createdAt", "id", "type"]);
    const open = await user.request("GET", `/payments/${payments[1].id}`);
    assert.deepEqual(open.body.data.timeline, []);
  });

  it("GET /payments/{id} adds the customer (account masked) and the hosted page's address", async () => {
    const res = await user.request("GET", `/payments/${payments[0].id}`);
    assert.deepEqual(res.body.data.customer, {
      name: "Somchai Jaidee",
      accountNumber: "******0001",
      bankCode: "014",
    });
    // The client secret rides in the fragment, as in paymentAppUrl: the page needs it to follow
    // the payment, and a fragment never reaches a server's logs.
    assert.equal(res.body.data.hostedPageUrl, `http://pay.test/pay/${payments[0].id}`);
    assert.ok(!JSON.stringify(res.body).includes("6000000001"), "the account number never leaves in clear");
  });

  it("GET /withdraws/{id} is the withdraw as the API shows it, with its events", async () => {
    const res = await user.request("GET", `/withdraws/${withdraws[0].id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.withdraw, await api("GET", `/api/v1/withdraws/${withdraws[0].id}`));
    assert.deepEqual(
      res.body.data.timeline.map((entry: any) => entry.type),
      ["withdraw.canceled"],
    );
  });
});

describe("every route is scoped to the session's merchant", () => {
  it("answers another merchant's ids, malformed ids and unknown ids with 404", async () => {
    const theirPayments = (await otherUser.request("GET", "/payments")).body.data.data;
    const theirEvents = (await otherUser.request("GET", "/events")).body.data.data;
    assert.equal(theirPayments.length, 2);
    for (const path of [
      `/payments/${theirPayments[0].id}`,
      `/payments/${MISSING_ID}`,
      "/payments/not-a-uuid",
      `/withdraws/${MISSING_ID}`,
      "/withdraws/not-a-uuid",
      `/events/${theirEvents[0].id}`,
      `/events/${MISSING_ID}`,
    ]) {
      const res = await user.request("GET", path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND", path);
    }
    const redeliver = await user.request("POST", `/events/${theirEvents[0].id}/redeliver`);
    assert.equal(redeliver.status, 404);
    // And the other way round: the other merchant sees none of this merchant's records.
    const mine = await otherUser.request("GET", `/payments/${payments[0].id}`);
    assert.equal(mine.status, 404);
    assert.equal((await otherUser.request("GET", "/webhook-endpoints")).body.data.total, 0);
  });

  it("lists only the session merchant's records", async () => {
    const listed = (await user.request("GET", "/payments?limit=100")).body.data.data.map((p: any) => p.id);
    assert.deepEqual(listed.sort(), payments.map((p) => p.id).sort());
    const theirs = await otherUser.request("GET", "/balance");
    assert.deepEqual(theirs.body.data, await api("GET", "/api/v1/balance", undefined, other));
  });

  it("refuses every route without a valid session (401), before looking at the body", async () => {
    const routes: Array<[string, string]> = [
      ["GET", "/me"],
      ["GET", "/balance"],
      ["GET", "/payments"],
      ["GET", `/payments/${payments[0].id}`],
      ["GET", "/withdraws"],
      ["GET", `/withdraws/${withdraws[0].id}`],
      ["GET", "/events"],
      ["GET", `/events/${MISSING_ID}`],
      ["POST", `/events/${MISSING_ID}/redeliver`],
      ["GET", "/webhook-endpoints"],
      ["GET", "/api-keys"],
      ["POST", "/api-keys"],
      ["DELETE", `/api-keys/${shop.integrationId}`],
    ];
    for (const [method, path] of routes) {
      const raw = await svc.app.inject({
        method: method as "GET",
        url: `/dashboard/api${path}`,
        headers: { authorization: "Bearer wrong", "content-type": "application/json" },
        payload: method === "GET" ? undefined : "{not json",
      });
      assert.equal(raw.statusCode, 401, `${method} ${path}`);
      assert.equal(raw.json().error.code, "INVALID_CREDENTIALS", `${method} ${path}`);
    }
  });
});

describe("redeliver from the dashboard", () => {
  it("schedules a new delivery (202) that reaches the endpoint with the same webhook-id", async () => {
    const events = (await user.request("GET", "/events?type=payment.canceled")).body.data.data;
    const before = receiver.received.length;
    const res = await user.request("POST", `/events/${events[0].id}/redeliver`);
    assert.equal(res.status, 202);
    assert.equal(res.body.data.eventId, events[0].id);
    assert.equal(res.body.data.deliveries.length, 1);
    assert.equal(res.body.data.deliveries[0].status, "pending");
    await deliverDueWebhooks(svc.deps);
    const arrived = receiver.received.slice(before);
    assert.equal(arrived.length, 1);
    assert.equal(arrived[0]!.verifyError, undefined);
    assert.equal(arrived[0]!.headers["webhook-id"], events[0].id);
    const detail = (await user.request("GET", `/events/${events[0].id}`)).body.data;
    assert.deepEqual(
      detail.deliveries.map((d: any) => d.status),
      ["succeeded", "succeeded"],
    );
  });

  it("answers 409 when no endpoint subscribes, and validates the body", async () => {
    const events = (await otherUser.request("GET", "/events")).body.data.data;
    const res = await otherUser.request("POST", `/events/${events[0].id}/redeliver`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "STATE_CONFLICT");
    const bad = await otherUser.request("POST", `/events/${events[0].id}/redeliver`, { everywhere: true });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.metadata.field, "everywhere");
  });
});

describe("API keys", () => {
  it("lists the merchant's keys without secrets", async () => {
    const res = await user.request("GET", "/api-keys");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total, 1);
    const [key] = res.body.data.data;
    assert.equal(key.id, shop.integrationId);
    assert.equal(key.apiKey, shop.apiKey);
    assert.equal(key.revokedAt, null);
    assert.equal("apiSecret" in key, false);
    assert.ok(!JSON.stringify(res.body).includes(shop.apiSecret));
  });

  it("creates a key whose secret is shown once and signs requests at once; revoking stops it", async () => {
    const created = await user.request("POST", "/api-keys", { name: "Shop server" });
    assert.equal(created.status, 201);
    const key = created.body.data;
    assert.equal(key.name, "Shop server");
    assert.equal(key.merchantId, shop.merchantId);
    assert.match(key.apiKey, /^sk_test_/);
    assert.match(key.apiSecret, /^sec_/);
    const credentials = { ...shop, integrationId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret };
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(balance.status, 200);

    const listed = (await user.request("GET", "/api-keys")).body.data;
    assert.equal(listed.total, 2);
    assert.ok(!JSON.stringify(listed).includes(key.apiSecret), "the secret is never listed again");

    const revoked = await user.request("DELETE", `/api-keys/${key.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.data.id, key.id);
    assert.ok(revoked.body.data.revokedAt);
    assert.equal("apiSecret" in revoked.body.data, false);
    const refused = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(refused.status, 401);
    // The original key still works.
    assert.equal((await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop })).status, 200);
  });

  it("creates a key without a body, and refuses unknown fields", async () => {
    const created = await user.request("POST", "/api-keys");
    assert.equal(created.status, 201);
    assert.equal(created.body.data.name, null);
    await user.request("DELETE", `/api-keys/${created.body.data.id}`);
    const bad = await user.request("POST", "/api-keys", { merchantId: other.merchantId });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.metadata.field, "merchantId");
  });

  it("refuses to revoke another merchant's key (404) and leaves it working", async () => {
    for (const id of [other.integrationId, MISSING_ID, "not-a-uuid"]) {
      const res = await user.request("DELETE", `/api-keys/${id}`);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
    assert.equal(
      (await svc.request("GET", "/api/v1/balance", undefined, { credentials: other })).status,
      200,
    );
    assert.equal((await otherUser.request("GET", "/api-keys")).body.data.data[0].revokedAt, null);
  });
});

describe("the dashboard page", () => {
  it("GET /dashboard serves the shell with a strict Content-Security-Policy and local assets only", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/dashboard" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/html/);
    const csp = String(res.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers["x-frame-options"], "DENY");
    assert.equal(res.headers["cache-control"], "no-store");
    assert.doesNotMatch(res.body, /https?:\/\//, "no remote resource");
    assert.doesNotMatch(res.body, /<script>(?!<\/script>)/, "no inline script");
    for (const asset of ["app.js", "app.css", "icon.svg"]) {
      assert.match(res.body, new RegExp(`/dashboard/assets/${asset.replace(".", "\\.")}\\?v=[0-9a-f]{16}`));
    }
    assert.match(res.body, /<html lang="en"/);
    const thai = await svc.app.inject({
      method: "GET",
      url: "/dashboard/",
      headers: { "accept-language": "th-TH,th;q=0.9" },
    });
    assert.equal(thai.statusCode, 200);
    assert.match(thai.body, /<html lang="th"/);
  });

  it("serves its assets with their types, an ETag and 304 when unchanged", async () => {
    const types: Record<string, RegExp> = {
      "app.js": /^text\/javascript/,
      "i18n.js": /^text\/javascript/,
      "app.css": /^text\/css/,
      "icon.svg": /^image\/svg\+xml/,
    };
    for (const [name, type] of Object.entries(types)) {
      const res = await svc.app.inject({ method: "GET", url: `/dashboard/assets/${name}` });
      assert.equal(res.statusCode, 200, name);
      assert.match(String(res.headers["content-type"]), type, name);
      assert.equal(res.headers["x-content-type-options"], "nosniff");
      const etag = String(res.headers.etag);
      const again = await svc.app.inject({
        method: "GET",
        url: `/dashboard/assets/${name}`,
        headers: { "if-none-match": etag },
      });
      assert.equal(again.statusCode, 304, name);
    }
    const missing = await svc.app.inject({ method: "GET", url: "/dashboard/assets/secret.key" });
    assert.equal(missing.statusCode, 404);
  });

  it("keeps the dashboard routes out of the public OpenAPI document, and documents login", async () => {
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    assert.ok(Object.keys(doc.paths).every((path) => !path.startsWith("/dashboard")));
    assert.deepEqual(doc.paths["/api/v1/auth/login"].post.security, []);
    assert.deepEqual(doc.paths["/api/v1/auth/logout"].post.security, [{ DashboardSession: [] }]);
    assert.ok(doc.paths["/admin/v1/merchants/{id}/users"].post);
  });
});

describe("on a withdraw-only merchant the overview data is consistent", () => {
  it("shows the held amount out of the available balance", async () => {
    const fresh = await fundedMerchant(svc, {}, 500_000n);
    const freshUser = await dashboardUser(svc, fresh.merchantId);
    const start = (await freshUser.request("GET", "/balance")).body.data.walletBalance;
    await api("POST", "/api/v1/withdraws", withdrawBody({ amount: "1000.00" }), fresh);
    const after = (await freshUser.request("GET", "/balance")).body.data.walletBalance;
    assert.equal(start - after, 1000);
  });
});

// Last, so the payment it adds and cancels is in no other test's lists or counts.
describe("a bank transfer's reference on the payment detail", () => {
  it("GET /payments/{id} keeps a bank transfer's reference after the payment ends; a PromptPay payment has none", async () => {
    const transfer = await api("POST", "/api/v1/payments", paymentBody({ paymentMethod: "bank_transfer" }));
    const reference = transfer.nextAction.bankTransferInstructions.reference;
    assert.equal(typeof reference, "string");
    const open = await user.request("GET", `/payments/${transfer.id}`);
    assert.equal(open.body.data.transferReference, reference);
    await api("POST", `/api/v1/payments/${transfer.id}/cancel`);
    const ended = await user.request("GET", `/payments/${transfer.id}`);
    assert.equal(ended.body.data.payment.status, "canceled");
    assert.equal(ended.body.data.payment.nextAction, null, "the record no longer carries the instructions");
    assert.equal(ended.body.data.transferReference, reference);
    const promptpay = await user.request("GET", `/payments/${payments[0].id}`);
    assert.equal(promptpay.body.data.payment.paymentMethod, "promptpay");
    assert.equal(promptpay.body.data.transferReference, null);
  });
});
