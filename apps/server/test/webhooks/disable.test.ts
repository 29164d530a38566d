/**
 * Disabling and enabling a webhook endpoint (PATCH /api/v1/webhook-endpoints/{id} with
 * `{ "disabled": true | false }`, and the dashboard's route of the same shape): a disabled
 * endpoint keeps its URL, secret and history but receives nothing. Its pending deliveries are
 * canceled when it is disabled, no event made while it is disabled is queued for it, a
 * redelivery to it is refused, and once enabled it receives the events made from then on.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Deps } from "../../src/deps.ts";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/ids.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { cancelPendingDeliveries, type Receiver, startReceiver, writeEvent } from "../helpers/webhooks.ts";

const PATH = "/api/v1/webhook-endpoints";

let svc: TestService;
const receivers: Receiver[] = [];

before(async () => {
  svc = await startService();
});
afterEach(async () => {
  await cancelPendingDeliveries(svc.deps);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
after(async () => {
  await svc.close();
});

function workerDeps(): Deps & { wallClock: ManualClock } {
  const wallClock = new ManualClock(Date.now());
  return { ...svc.depsWith({ wallClock }), wallClock };
}

async function subscribed(wall: ManualClock): Promise<{
  target: Receiver;
  credentials: Credentials;
  endpointId: string;
}> {
  const target = await startReceiver({ clock: wall });
  receivers.push(target);
  const credentials = await svc.newMerchant();
  const res = await svc.request("POST", PATH, { url: target.url, events: ["*"] }, { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.data.disabled, false);
  assert.equal(res.body.data.disabledAt, null);
  target.secrets.push(res.body.data.secret);
  return { target, credentials, endpointId: res.body.data.id };
}

function patch(credentials: Credentials, id: string, body: unknown) {
  return svc.request("PATCH", `${PATH}/${id}`, body, { credentials });
}

describe("PATCH /api/v1/webhook-endpoints/{id}", () => {
  it("disables an endpoint: nothing is sent to it, not even what was pending, until it is enabled again", async () => {
    const deps = workerDeps();
    const { target, credentials, endpointId } = await subscribed(deps.wallClock);
    const pending = await writeEvent(svc.deps, credentials.merchantId, "payment.received");

    const disabled = await patch(credentials, endpointId, { disabled: true });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.equal(disabled.body.data.id, endpointId);
    assert.equal(disabled.body.data.disabled, true);
    assert.ok(disabled.body.data.disabledAt, "disabledAt is set");
    const during = await writeEvent(svc.deps, credentials.merchantId, "payment.expired");
    assert.equal(await deliverDueWebhooks(deps), 0, "no delivery is made to a disabled endpoint");
    assert.equal(target.received.length, 0);

    const pendingDetail = await svc.request("GET", `/api/v1/events/${pending.id}`, undefined, {
      credentials,
    });
    assert.deepEqual(
      pendingDetail.body.data.deliveries.map((d: { status: string }) => d.status),
      ["canceled"],
      "the delivery pending when it was disabled is canceled",
    );
    const duringDetail = await svc.request("GET", `/api/v1/events/${during.id}`, undefined, { credentials });
    assert.deepEqual(duringDetail.body.data.deliveries, [], "no delivery is queued while it is disabled");

    // Shown as disabled wherever the endpoint is read; disabling again keeps the first time.
    const one = await svc.request("GET", `${PATH}/${endpointId}`, undefined, { credentials });
    assert.equal(one.body.data.disabled, true);
    const listed = await svc.request("GET", PATH, undefined, { credentials });
    assert.equal(listed.body.data.data[0].disabled, true);
    svc.clock.advance(60_000);
    const again = await patch(credentials, endpointId, { disabled: true });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.disabledAt, disabled.body.data.disabledAt);

    const enabled = await patch(credentials, endpointId, { disabled: false });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.data.disabled, false);
    assert.equal(enabled.body.data.disabledAt, null);
    const after = await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid");
    assert.equal(await deliverDueWebhooks(deps), 1);
    assert.deepEqual(
      target.received.map((d) => d.payload?.id),
      [after.id],
      "once enabled it receives the events made from then on, and only those",
    );
    assert.equal(target.received[0]?.verifyError, undefined, "signed with the same secret as before");
  });

  /**
   * Disables the endpoint while its one attempt is out, then lets the receiver answer `status`;
   * the delivery of that event as the API shows it afterwards.
   */
  async function disabledWhileOut(status: number) {
    const deps = workerDeps();
    const { target, credentials, endpointId } = await subscribed(deps.wallClock);
    let arrived!: () => void;
    const sent = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const answer = new Promise<void>((resolve) => {
      release = resolve;
    });
    target.handle((_request, response) => {
      arrived();
      void answer.then(() => {
        response.statusCode = status;
        response.end();
      });
    });
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    const run = deliverDueWebhooks(deps);
    await sent;
    assert.equal((await patch(credentials, endpointId, { disabled: true })).status, 200);
    release();
    await run;
    const detail = await svc.request("GET", `/api/v1/events/${event.id}`, undefined, { credentials });
    return detail.body.data.deliveries[0];
  }

  it("counts the attempt that was out when its endpoint was disabled, on the canceled delivery, with its answer and no retry", async () => {
    const delivery = await disabledWhileOut(500);
    assert.equal(delivery.status, "canceled");
    assert.equal(delivery.attempts.length, 1, "the attempt happened and is logged");
    assert.equal(delivery.attemptCount, 1, "and counted");
    assert.equal(delivery.lastStatusCode, 500, "the delivery says what the endpoint answered");
    assert.equal(delivery.attempts[0].statusCode, 500);
    assert.equal(delivery.attempts[0].nextRetryAt, null, "no retry follows a canceled delivery");
    assert.equal(delivery.nextAttemptAt ?? null, null);
  });

  it("shows no retry after the last attempt of a delivery canceled between its attempts", async () => {
    const deps = workerDeps();
    const { target, credentials, endpointId } = await subscribed(deps.wallClock);
    target.respondWith(500);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    assert.equal(await deliverDueWebhooks(deps), 1);
    const read = async () =>
      (await svc.request("GET", `/api/v1/events/${event.id}`, undefined, { credentials })).body.data
        .deliveries[0];
    const failedOnce = await read();
    assert.equal(failedOnce.status, "pending");
    assert.ok(failedOnce.attempts[0].nextRetryAt, "a retry is planned while the delivery is pending");
    assert.equal(failedOnce.nextAttemptAt, failedOnce.attempts[0].nextRetryAt);

    assert.equal((await patch(credentials, endpointId, { disabled: true })).status, 200);
    const canceled = await read();
    assert.equal(canceled.status, "canceled");
    assert.equal(canceled.nextAttemptAt, null);
    assert.equal(canceled.attempts.length, 1);
    assert.equal(canceled.attempts[0].statusCode, 500, "the attempt is kept as it happened");
    assert.equal(canceled.attempts[0].nextRetryAt, null, "but no retry follows it");
  });

  it("reads succeeded when the attempt that was out when its endpoint was disabled was answered 2xx", async () => {
    const delivery = await disabledWhileOut(200);
    assert.equal(delivery.status, "succeeded", "the endpoint received it");
    assert.equal(delivery.lastStatusCode, 200);
    assert.equal(delivery.attemptCount, 1);
    assert.equal(delivery.attempts[0].succeeded, true);
    assert.equal(delivery.attempts[0].nextRetryAt, null);
    assert.ok(delivery.completedAt, "completed when its attempt was answered");
  });

  it("refuses a redelivery to a disabled endpoint, and leaves it out of a redelivery to all", async () => {
    const deps = workerDeps();
    const { target, credentials, endpointId } = await subscribed(deps.wallClock);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    assert.equal(await deliverDueWebhooks(deps), 1);
    assert.equal((await patch(credentials, endpointId, { disabled: true })).status, 200);

    const path = `/api/v1/events/${event.id}/redeliver`;
    const toIt = await svc.request("POST", path, { endpointId }, { credentials });
    assert.equal(toIt.status, 409);
    assert.equal(toIt.body.error.code, "STATE_CONFLICT");
    assert.equal(toIt.body.error.metadata.reason, "endpoint_disabled");
    const toAll = await svc.request("POST", path, undefined, { credentials });
    assert.equal(toAll.status, 409, "no enabled endpoint subscribes");
    assert.equal(toAll.body.error.metadata.reason, "no_subscribed_endpoint");
    // Both refusals are in the OpenAPI document, under 409, for generated clients.
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const refusals = JSON.stringify(doc.paths["/api/v1/events/{id}/redeliver"].post.responses["409"]);
    assert.ok(
      refusals?.includes("endpoint_disabled") && refusals.includes("no_subscribed_endpoint"),
      refusals,
    );
    assert.equal(await deliverDueWebhooks(deps), 0);
    assert.equal(target.received.length, 1);

    assert.equal((await patch(credentials, endpointId, { disabled: false })).status, 200);
    assert.equal((await svc.request("POST", path, { endpointId }, { credentials })).status, 202);
    assert.equal(await deliverDueWebhooks(deps), 1);
    assert.equal(target.received.length, 2);
  });

  it("validates the body and answers 404 for a deleted, missing or another merchant's endpoint", async () => {
    const deps = workerDeps();
    const { credentials, endpointId } = await subscribed(deps.wallClock);
    for (const body of [undefined, {}, { disabled: "yes" }, { disabled: 1 }]) {
      const res = await patch(credentials, endpointId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
    const extra = await patch(credentials, endpointId, { disabled: true, url: "https://elsewhere.example" });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "url");

    assert.equal((await patch(svc.credentials, endpointId, { disabled: true })).status, 404);
    assert.equal((await patch(credentials, newId(), { disabled: true })).status, 404);
    assert.equal((await patch(credentials, "not-a-uuid", { disabled: true })).status, 404);
    const stillEnabled = await svc.request("GET", `${PATH}/${endpointId}`, undefined, { credentials });
    assert.equal(stillEnabled.body.data.disabled, false, "another merchant's request changed nothing");
    assert.equal(
      (await svc.request("DELETE", `${PATH}/${endpointId}`, undefined, { credentials })).status,
      200,
    );
    assert.equal((await patch(credentials, endpointId, { disabled: false })).status, 404);
  });

  it("is in the OpenAPI document with its body", async () => {
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const op = doc.paths["/api/v1/webhook-endpoints/{id}"].patch;
    assert.ok(op, "PATCH is documented");
    const schema = op.requestBody.content["application/json"].schema;
    assert.deepEqual(Object.keys(schema.properties), ["disabled"]);
    assert.equal(schema.properties.disabled.type, "boolean");
    const record = op.responses["200"].content["application/json"].schema.properties.data;
    assert.equal(record.properties.disabled.type, "boolean");
  });
});

describe("the dashboard's PATCH /dashboard/api/webhook-endpoints/{id}", () => {
  it("disables and enables the session merchant's endpoint, and no other", async () => {
    const deps = workerDeps();
    const { target, credentials, endpointId } = await subscribed(deps.wallClock);
    const user = await dashboardUser(svc, credentials.merchantId);
    const disabled = await user.request("PATCH", `/webhook-endpoints/${endpointId}`, { disabled: true });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.equal(disabled.body.data.disabled, true);
    await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    assert.equal(await deliverDueWebhooks(deps), 0);
    assert.equal(target.received.length, 0);
    const enabled = await user.request("PATCH", `/webhook-endpoints/${endpointId}`, { disabled: false });
    assert.equal(enabled.body.data.disabled, false);

    const stranger = await dashboardUser(svc);
    const refused = await stranger.request("PATCH", `/webhook-endpoints/${endpointId}`, { disabled: true });
    assert.equal(refused.status, 404);
  });
});
