/**
 * Webhook endpoints managed from the dashboard (/dashboard/api/webhook-endpoints): create with
 * the secret in that answer only, rotate, delete and a test event, through the same services as
 * the public API; another merchant's endpoint is 404 exactly like a missing one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type DashboardUser, dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

const MISSING_ID = "00000000-0000-4000-8000-000000000000";

let svc: TestService;
let receiver: Receiver;
let shop: Credentials;
let user: DashboardUser;
let other: Credentials;
let otherUser: DashboardUser;

async function publicEndpoints(credentials: Credentials) {
  const res = await svc.request("GET", "/api/v1/webhook-endpoints", undefined, { credentials });
  assert.equal(res.status, 200);
  return res.body.data.data as Array<{ id: string; url: string }>;
}

async function createFromDashboard(body: Record<string, unknown> = {}) {
  const res = await user.request("POST", "/webhook-endpoints", { url: receiver.url, events: ["*"], ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

before(async () => {
  svc = await startService();
  receiver = await startReceiver();
  shop = await svc.newMerchant();
  other = await svc.newMerchant();
  user = await dashboardUser(svc, shop.merchantId);
  otherUser = await dashboardUser(svc, other.merchantId);
});

after(async () => {
  await receiver?.close();
  await svc?.close();
});

describe("create", () => {
  it("answers 201 with the whsec_ secret once; the public API lists the endpoint without it", async () => {
    const created = await createFromDashboard({ events: ["withdraw.paid", "payment.received"] });
    assert.match(created.secret, /^whsec_/);
    // Stored in the order of the event type list, as the public API stores it.
    assert.deepEqual(created.events, ["payment.received", "withdraw.paid"]);
    const listed = (await publicEndpoints(shop)).find((endpoint) => endpoint.id === created.id);
    assert.ok(listed);
    assert.equal("secret" in listed, false);
    assert.equal((await publicEndpoints(other)).length, 0);
    const mine = await user.request("GET", "/webhook-endpoints");
    assert.equal(JSON.stringify(mine.body).includes(created.secret), false);
  });

  it("refuses what the public API refuses, naming the field", async () => {
    const bad = await user.request("POST", "/webhook-endpoints", {
      url: receiver.url,
      events: ["*", "payment.received"],
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    assert.equal(bad.body.error.metadata.field, "events");
    const url = await user.request("POST", "/webhook-endpoints", { url: "ftp://x.example/", events: ["*"] });
    assert.equal(url.status, 400);
    assert.equal(url.body.error.metadata.field, "url");
  });
});

describe("test event", () => {
  it("POSTs one signed ping to that endpoint only and answers the outcome; no event is stored", async () => {
    const endpoint = await createFromDashboard();
    receiver.secrets.push(endpoint.secret);
    const before = receiver.received.length;
    const res = await user.request("POST", `/webhook-endpoints/${endpoint.id}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.succeeded, true);
    assert.equal(res.body.data.statusCode, 200);
    assert.equal(res.body.data.error, null);
    assert.equal(res.body.data.endpointId, endpoint.id);
    // The other endpoints of the merchant (same receiver) get nothing.
    assert.equal(receiver.received.length, before + 1);
    const arrived = receiver.received.at(-1)!;
    assert.equal(arrived.verifyError, undefined);
    assert.equal(arrived.headers["webhook-id"], res.body.data.id);
    assert.equal(arrived.payload?.type, "ping");
    assert.deepEqual(arrived.payload?.data.object, {
      object: "webhook_endpoint",
      id: endpoint.id,
      url: receiver.url,
    });
    const events = await svc.request("GET", "/api/v1/events", undefined, { credentials: shop });
    assert.equal(events.body.data.total, 0);
  });

  it("reports a receiver's failure status with its error text", async () => {
    const endpoint = await createFromDashboard();
    receiver.respondWith(500);
    const res = await user.request("POST", `/webhook-endpoints/${endpoint.id}/test`, {});
    assert.equal(res.status, 200);
    assert.equal(res.body.data.succeeded, false);
    assert.equal(res.body.data.statusCode, 500);
    assert.equal(res.body.data.error, "receiver answered 500");
  });

  it("refuses a body with fields", async () => {
    const endpoint = await createFromDashboard();
    const res = await user.request("POST", `/webhook-endpoints/${endpoint.id}/test`, {
      type: "payment.received",
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });
});

describe("rotate and delete", () => {
  it("rotate answers a new secret; the next test carries both signatures and verifies with the new one", async () => {
    const endpoint = await createFromDashboard();
    const res = await user.request("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`);
    assert.equal(res.status, 200);
    assert.match(res.body.data.secret, /^whsec_/);
    assert.notEqual(res.body.data.secret, endpoint.secret);
    assert.ok(res.body.data.previousSecretExpiresAt);
    receiver.secrets.splice(0, receiver.secrets.length, res.body.data.secret);
    const sent = await user.request("POST", `/webhook-endpoints/${endpoint.id}/test`);
    assert.equal(sent.body.data.succeeded, true);
    const arrived = receiver.received.at(-1)!;
    assert.equal(arrived.signatureCount, 2);
    assert.equal(arrived.verifyError, undefined);
  });

  it("delete removes the endpoint from both lists; it cannot be tested or deleted again", async () => {
    const endpoint = await createFromDashboard();
    const res = await user.request("DELETE", `/webhook-endpoints/${endpoint.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, endpoint.id);
    assert.equal(
      (await publicEndpoints(shop)).some((e) => e.id === endpoint.id),
      false,
    );
    assert.equal((await user.request("DELETE", `/webhook-endpoints/${endpoint.id}`)).status, 404);
    assert.equal((await user.request("POST", `/webhook-endpoints/${endpoint.id}/test`)).status, 404);
  });
});

describe("tenancy", () => {
  it("another merchant's endpoint is 404 like a missing one, and stays untouched", async () => {
    const endpoint = await createFromDashboard();
    const before = receiver.received.length;
    for (const id of [endpoint.id, MISSING_ID, "not-a-uuid"]) {
      for (const [method, path] of [
        ["POST", `/webhook-endpoints/${id}/rotate-secret`],
        ["POST", `/webhook-endpoints/${id}/test`],
        ["DELETE", `/webhook-endpoints/${id}`],
      ] as const) {
        const res = await otherUser.request(method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
      }
    }
    assert.equal(receiver.received.length, before);
    const still = (await publicEndpoints(shop)).find((e) => e.id === endpoint.id);
    assert.ok(still);
    const own = await svc.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}`, undefined, {
      credentials: shop,
    });
    assert.equal(own.body.data.previousSecretExpiresAt, null);
  });

  it("without a session every route is 401 before the body is read", async () => {
    for (const [method, path] of [
      ["POST", "/webhook-endpoints"],
      ["POST", `/webhook-endpoints/${MISSING_ID}/rotate-secret`],
      ["POST", `/webhook-endpoints/${MISSING_ID}/test`],
      ["DELETE", `/webhook-endpoints/${MISSING_ID}`],
    ] as const) {
      const raw = await svc.app.inject({
        method,
        url: `/dashboard/api${path}`,
        headers: { authorization: "Bearer wrong", "content-type": "application/json" },
        payload: "{not json",
      });
      assert.equal(raw.statusCode, 401, `${method} ${path}`);
      assert.equal(raw.json().error.code, "INVALID_CREDENTIALS");
    }
  });
});
