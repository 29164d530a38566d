/**
 * Webhook delivery (CONTRACT 12): a local receiver verifies every delivery with the
 * `standardwebhooks` library; retries on the schedule with the same webhook-id, moved by the
 * wall clock; redirects and timeouts fail the attempt; failed after the last retry; redeliver;
 * secret rotation; the outbox survives a crash between commit and send; no event is lost; one
 * slow endpoint does not hold up the others; the events API shows the attempt log.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { buildApp } from "../../src/app.ts";
import { openStore } from "../../src/db/connect.ts";
import type { Deps } from "../../src/deps.ts";
import { DeliveryDispatcher, deliverDueWebhooks } from "../../src/events/delivery.ts";
import type { WebhookOverrides } from "../../src/events/settings.ts";
import { claimDueDeliveries } from "../../src/events/store.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/ids.ts";
import { WEBHOOK_ATTEMPTS_MAX, WEBHOOK_RETRY_OFFSETS_MS } from "../../src/lib/limits.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import {
  cancelPendingDeliveries,
  type Receiver,
  startCanary,
  startReceiver,
  tableResolver,
  verifyAt,
  writeEvent,
} from "../helpers/webhooks.ts";

let svc: TestService;
const receivers: Receiver[] = [];

before(async () => {
  svc = await startService({
    deps: { webhooks: { resolve: tableResolver({ "pinned.test": ["127.0.0.1"] }) } },
  });
});
afterEach(async () => {
  await cancelPendingDeliveries(svc.deps);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
after(async () => {
  await svc.close();
});

/** A worker process's dependencies: the service's, with a manual wall clock the test moves. */
function workerDeps(overrides: WebhookOverrides = {}): Deps & { wallClock: ManualClock } {
  const wallClock = new ManualClock(Date.now());
  return { ...svc.depsWith({ wallClock, webhooks: overrides }), wallClock };
}

async function receiver(wall?: ManualClock): Promise<Receiver> {
  const r = await startReceiver(wall ? { clock: wall } : {});
  receivers.push(r);
  return r;
}

/** A new merchant with one endpoint pointing at `target`; the receiver learns the secret. */
async function subscribe(
  target: Receiver,
  events: string[] = ["*"],
  credentials?: Credentials,
): Promise<{ credentials: Credentials; endpointId: string; secret: string }> {
  const creds = credentials ?? (await svc.newMerchant());
  const res = await svc.request(
    "POST",
    "/api/v1/webhook-endpoints",
    { url: target.url, events },
    { credentials: creds },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  target.secrets.push(res.body.data.secret);
  return { credentials: creds, endpointId: res.body.data.id, secret: res.body.data.secret };
}

async function eventDetail(credentials: Credentials, eventId: string) {
  const res = await svc.request("GET", `/api/v1/events/${eventId}`, undefined, { credentials });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

function assertVerified(target: Receiver) {
  for (const delivery of target.received) {
    assert.equal(delivery.verifyError, undefined, `delivery failed verification: ${delivery.verifyError}`);
  }
}

describe("delivering an event", () => {
  it("POSTs the stored event with Standard Webhooks headers that verify with the standardwebhooks library", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const { credentials } = await subscribe(target);
    const payment = {
      id: newId(),
      status: "succeeded",
      amount: "1000.00",
      updatedAt: "2026-01-15T12:00:00.000Z",
    };
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received", payment);

    assert.equal(await deliverDueWebhooks(deps), 1);
    assert.equal(target.received.length, 1);
    assertVerified(target);
    const [delivery] = target.received;
    assert.equal(delivery!.headers["content-type"], "application/json");
    assert.equal(delivery!.headers["webhook-id"], event.id);
    assert.equal(
      delivery!.headers["webhook-timestamp"],
      String(Math.floor(deps.wallClock.now().getTime() / 1000)),
    );
    assert.match(delivery!.headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(JSON.parse(delivery!.body), {
      id: event.id,
      type: "payment.received",
      createdAt: event.created_at.toISOString(),
      data: { object: payment },
    });

    const detail = await eventDetail(credentials, event.id);
    assert.deepEqual(JSON.parse(delivery!.body), {
      id: detail.id,
      type: detail.type,
      createdAt: detail.createdAt,
      data: detail.data,
    });
    assert.equal(detail.deliveries.length, 1);
    const [logged] = detail.deliveries;
    assert.equal(logged.status, "succeeded");
    assert.equal(logged.attemptCount, 1);
    assert.equal(logged.nextAttemptAt, null);
    assert.equal(logged.attempts.length, 1);
    assert.equal(logged.attempts[0].attemptNumber, 1);
    assert.equal(logged.attempts[0].statusCode, 200);
    assert.equal(logged.attempts[0].error, null);
    assert.equal(typeof logged.attempts[0].durationMs, "number");
    assert.equal(logged.attempts[0].nextRetryAt, null);

    assert.equal(await deliverDueWebhooks(deps), 0, "a delivered event is not sent again");
  });

  it("sends only the event types an endpoint subscribes to", async () => {
    const deps = workerDeps();
    const payments = await receiver(deps.wallClock);
    const withdraws = await receiver(deps.wallClock);
    const { credentials } = await subscribe(payments, ["payment.received", "payment.expired"]);
    await subscribe(withdraws, ["withdraw.paid"], credentials);
    await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await writeEvent(svc.deps, credentials.merchantId, "payment.canceled");
    await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid");
    await writeEvent(svc.deps, credentials.merchantId, "withdraw.failed");
    await deliverDueWebhooks(deps);
    assert.deepEqual(
      payments.received.map((d) => d.payload?.type),
      ["payment.received"],
    );
    assert.deepEqual(
      withdraws.received.map((d) => d.payload?.type),
      ["withdraw.paid"],
    );
  });

  it("connects to the address the check resolved, not to what the system resolver says (pinning)", async () => {
    // pinned.test exists only in the test resolver; without pinning, the connection would ask
    // system DNS and fail.
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const credentials = await svc.newMerchant();
    const url = `http://pinned.test:${target.port}/hooks`;
    const res = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url, events: ["*"] },
      { credentials },
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    target.secrets.push(res.body.data.secret);
    await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await deliverDueWebhooks(deps);
    assert.equal(target.received.length, 1);
    assert.equal(target.received[0]!.headers.host, `pinned.test:${target.port}`);
    assertVerified(target);
  });
});

describe("retries", () => {
  it("sends again with the same webhook-id after 5 s of wall-clock time when the receiver answered 500", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    target.respondWith(500, 200);
    const { credentials } = await subscribe(target);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");

    await deliverDueWebhooks(deps);
    assert.equal(target.received.length, 1);
    let detail = await eventDetail(credentials, event.id);
    const attempt = detail.deliveries[0].attempts[0];
    assert.equal(attempt.statusCode, 500);
    assert.equal(attempt.error, "receiver answered 500");
    assert.equal(detail.deliveries[0].status, "pending");
    const wait = Date.parse(attempt.nextRetryAt) - Date.parse(attempt.finishedAt);
    assert.ok(wait >= 4_500 && wait <= 5_000, `retry after ${wait} ms`);
    assert.equal(detail.deliveries[0].nextAttemptAt, attempt.nextRetryAt);

    deps.wallClock.advance(4_400);
    assert.equal(await deliverDueWebhooks(deps), 0, "not due before the jittered delay");
    svc.clock.advance(3_600_000);
    assert.equal(await deliverDueWebhooks(deps), 0, "the business clock does not move retries");
    deps.wallClock.advance(600);
    assert.equal(await deliverDueWebhooks(deps), 1);

    assert.equal(target.received.length, 2);
    assertVerified(target);
    assert.equal(target.received[0]!.headers["webhook-id"], event.id);
    assert.equal(target.received[1]!.headers["webhook-id"], event.id);
    assert.equal(target.received[0]!.body, target.received[1]!.body, "the same body on every attempt");
    assert.notEqual(
      target.received[0]!.headers["webhook-timestamp"],
      target.received[1]!.headers["webhook-timestamp"],
    );
    detail = await eventDetail(credentials, event.id);
    assert.equal(detail.deliveries[0].status, "succeeded");
    assert.deepEqual(
      detail.deliveries[0].attempts.map((a: { statusCode: number }) => a.statusCode),
      [500, 200],
    );
  });

  it("follows the whole schedule with at most 10% jitter, then marks the delivery failed", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    target.handle((_request, response) => {
      response.statusCode = 503;
      response.end();
    });
    const { credentials } = await subscribe(target);
    const event = await writeEvent(svc.deps, credentials.merchantId, "withdraw.failed");

    for (let attempt = 1; attempt <= WEBHOOK_ATTEMPTS_MAX; attempt++) {
      assert.equal(await deliverDueWebhooks(deps), 1, `attempt ${attempt} is due`);
      const detail = await eventDetail(credentials, event.id);
      const delivery = detail.deliveries[0];
      const last = delivery.attempts.at(-1);
      assert.equal(last.attemptNumber, attempt);
      assert.equal(delivery.attemptCount, attempt);
      if (attempt === WEBHOOK_ATTEMPTS_MAX) {
        assert.equal(delivery.status, "failed");
        assert.equal(last.nextRetryAt, null);
        assert.equal(delivery.nextAttemptAt, null);
        assert.ok(delivery.completedAt);
        break;
      }
      // Each retry is due its published time after the first try ended, early by at most a
      // tenth of its step (CONTRACT 12: 5 s ... 24 h after the first try).
      const offset = WEBHOOK_RETRY_OFFSETS_MS[attempt - 1]!;
      const step = offset - (WEBHOOK_RETRY_OFFSETS_MS[attempt - 2] ?? 0);
      const since = Date.parse(last.nextRetryAt) - Date.parse(delivery.attempts[0].finishedAt);
      assert.ok(
        since <= offset && since >= offset - step * 0.1,
        `retry ${attempt}: ${since} ms of ${offset}`,
      );
      deps.wallClock.set(Date.parse(last.nextRetryAt) - 1);
      assert.equal(await deliverDueWebhooks(deps), 0, `attempt ${attempt + 1} is not early`);
      deps.wallClock.set(Date.parse(last.nextRetryAt));
    }
    deps.wallClock.advance(7 * 24 * 3_600_000);
    assert.equal(await deliverDueWebhooks(deps), 0, "a failed delivery is not retried");
    assert.equal(target.received.length, WEBHOOK_ATTEMPTS_MAX);
    assertVerified(target);
    assert.ok(target.received.every((d) => d.headers["webhook-id"] === event.id));
  });

  it("fails an attempt on a redirect and never contacts the Location", async () => {
    const deps = workerDeps();
    const canary = await startCanary();
    try {
      const target = await receiver(deps.wallClock);
      target.handle((_request, response) => {
        response.statusCode = 302;
        response.setHeader("location", `http://127.0.0.1:${canary.port}/elsewhere`);
        response.end();
      });
      const { credentials } = await subscribe(target);
      const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
      await deliverDueWebhooks(deps);
      const detail = await eventDetail(credentials, event.id);
      const attempt = detail.deliveries[0].attempts[0];
      assert.equal(attempt.statusCode, 302);
      // Where it pointed, so the endpoint can be set to the final URL.
      assert.equal(
        attempt.error,
        `redirect (302) not followed (to http://127.0.0.1:${canary.port}/elsewhere)`,
      );
      assert.equal(detail.deliveries[0].status, "pending");
      assert.ok(attempt.nextRetryAt);
      assert.equal(target.received.length, 1);
      assert.equal(canary.connections, 0, "the redirect target was never contacted");
    } finally {
      await canary.close();
    }
  });

  it("fails an attempt when the receiver does not answer within the timeout", async () => {
    const deps = workerDeps({ timeoutMs: 200 });
    const target = await receiver(deps.wallClock);
    target.handle(() => {
      // Never answers.
    });
    const { credentials } = await subscribe(target);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await deliverDueWebhooks(deps);
    const detail = await eventDetail(credentials, event.id);
    const attempt = detail.deliveries[0].attempts[0];
    assert.equal(attempt.statusCode, null);
    assert.equal(attempt.error, "timed out after 200 ms");
    assert.equal(detail.deliveries[0].status, "pending");
    assert.ok(attempt.nextRetryAt);
  });

  it("fails an attempt when nothing listens, and records the connection error", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const { credentials } = await subscribe(target);
    await target.close();
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await deliverDueWebhooks(deps);
    const attempt = (await eventDetail(credentials, event.id)).deliveries[0].attempts[0];
    assert.equal(attempt.statusCode, null);
    assert.match(attempt.error, /ECONNREFUSED/);
  });
});

describe("POST /api/v1/events/{id}/redeliver", () => {
  it("schedules a new delivery to every subscribed endpoint, with the same webhook-id", async () => {
    const deps = workerDeps();
    const first = await receiver(deps.wallClock);
    const second = await receiver(deps.wallClock);
    const { credentials } = await subscribe(first);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await deliverDueWebhooks(deps);
    await subscribe(second, ["payment.received"], credentials);

    const res = await svc.request("POST", `/api/v1/events/${event.id}/redeliver`, undefined, { credentials });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.data.eventId, event.id);
    assert.equal(res.body.data.deliveries.length, 2);
    assert.ok(res.body.data.deliveries.every((d: { status: string }) => d.status === "pending"));
    assert.equal(await deliverDueWebhooks(deps), 2);
    assert.equal(first.received.length, 2);
    assert.equal(second.received.length, 1);
    for (const target of [first, second]) {
      assertVerified(target);
      assert.ok(target.received.every((d) => d.headers["webhook-id"] === event.id));
    }
    const detail = await eventDetail(credentials, event.id);
    assert.equal(detail.deliveries.length, 3);
  });

  it("redelivers to one given endpoint, also after the delivery failed for good", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const other = await receiver(deps.wallClock);
    const { credentials, endpointId } = await subscribe(target);
    await subscribe(other, ["*"], credentials);
    const event = await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid");
    await svc.deps.db
      .updateTable("webhook_deliveries")
      .set({ status: "failed", attempt_count: 10, completed_at: new Date() })
      .where("event_id", "=", event.id)
      .execute();
    const res = await svc.request(
      "POST",
      `/api/v1/events/${event.id}/redeliver`,
      { endpointId },
      { credentials },
    );
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.data.deliveries.map((d: { endpointId: string }) => d.endpointId),
      [endpointId],
    );
    await deliverDueWebhooks(deps);
    assert.equal(target.received.length, 1);
    assert.equal(other.received.length, 0);
    assertVerified(target);
  });

  it("refuses an endpoint that does not subscribe, an unknown endpoint, an unknown field, and no subscriber at all", async () => {
    const target = await receiver();
    const { credentials, endpointId } = await subscribe(target, ["withdraw.paid"]);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    const path = `/api/v1/events/${event.id}/redeliver`;

    const notSubscribed = await svc.request("POST", path, { endpointId }, { credentials });
    assert.equal(notSubscribed.status, 400);
    assert.equal(notSubscribed.body.error.metadata.field, "endpointId");
    const unknown = await svc.request("POST", path, { endpointId: newId() }, { credentials });
    assert.equal(unknown.status, 404);
    const extra = await svc.request("POST", path, { endpoint: endpointId }, { credentials });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "endpoint");
    const none = await svc.request("POST", path, undefined, { credentials });
    assert.equal(none.status, 409);
    assert.equal(none.body.error.code, "STATE_CONFLICT");
    const otherMerchant = await svc.request("POST", path);
    assert.equal(otherMerchant.status, 404);
  });
});

describe("secret rotation", () => {
  it("signs with both secrets for 24 hours, each signature verifying on its own, then with the new one only", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const { credentials, endpointId, secret: oldSecret } = await subscribe(target);
    const rotated = await svc.request(
      "POST",
      `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`,
      undefined,
      {
        credentials,
      },
    );
    assert.equal(rotated.status, 200);
    const newSecret: string = rotated.body.data.secret;

    await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    await deliverDueWebhooks(deps);
    const during = target.received[0]!;
    assert.equal(during.signatureCount, 2);
    const signatures = during.headers["webhook-signature"]!.split(" ");
    for (const [signature, secret] of [
      [signatures[0]!, newSecret],
      [signatures[1]!, oldSecret],
    ] as const) {
      const headers = { ...during.headers, "webhook-signature": signature };
      assert.doesNotThrow(() => verifyAt(deps.wallClock, secret, during.body, headers));
    }

    // A minute past the 24 hours: the rotation was stamped by the service's own wall clock, which
    // on a loaded machine may run seconds ahead of this worker's manual one.
    deps.wallClock.advance(24 * 3_600_000 + 60_000);
    await writeEvent(svc.deps, credentials.merchantId, "payment.expired");
    await deliverDueWebhooks(deps);
    const afterwards = target.received[1]!;
    assert.equal(afterwards.signatureCount, 1);
    assert.doesNotThrow(() => verifyAt(deps.wallClock, newSecret, afterwards.body, afterwards.headers));
    assert.throws(() => verifyAt(deps.wallClock, oldSecret, afterwards.body, afterwards.headers));
  });
});

describe("at least once", () => {
  it("delivers after a restart an event committed just before the process died, without any send", async () => {
    const target = await receiver();
    const { credentials } = await subscribe(target);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");

    // A new process: a new store connection over the same database, new Deps, a new app.
    const store = svc.store.databaseUrl ? await openStore({ databaseUrl: svc.store.databaseUrl }) : undefined;
    const restarted = svc.depsWith(store ? { db: store.db } : {});
    const app = await buildApp(restarted);
    try {
      assert.equal(await deliverDueWebhooks(restarted), 1);
      assert.equal(target.received.length, 1);
      assert.equal(target.received[0]!.headers["webhook-id"], event.id);
      assertVerified(target);
    } finally {
      await app.close();
      await store?.close();
    }
  });

  it("sends again, after its lease runs out, a delivery whose worker died in the middle of sending", async () => {
    const deps = workerDeps();
    const target = await receiver(deps.wallClock);
    const { credentials } = await subscribe(target);
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    const now = deps.wallClock.now();
    const claimed = await claimDueDeliveries(svc.deps.db, {
      now,
      leaseId: newId(),
      leasedUntil: new Date(now.getTime() + 60_000),
      capacity: 100,
      perEndpoint: 100,
    });
    assert.ok(
      claimed.some((c) => c.eventId === event.id),
      "the dead worker had claimed it",
    );
    assert.equal(await deliverDueWebhooks(deps), 0, "a leased delivery is left alone");
    deps.wallClock.advance(60_000);
    assert.equal(await deliverDueWebhooks(deps), 1);
    assert.equal(target.received.length, 1);
    assert.equal(target.received[0]!.headers["webhook-id"], event.id);
  });

  it("loses no event: concurrent workers deliver every event to every endpoint exactly once", async () => {
    const target = await receiver();
    const second = await receiver();
    const { credentials } = await subscribe(target);
    await subscribe(second, ["payment.received"], credentials);
    const written: string[] = [];
    for (let i = 0; i < 30; i++) {
      const type = i % 2 === 0 ? "payment.received" : "withdraw.paid";
      written.push((await writeEvent(svc.deps, credentials.merchantId, type)).id);
    }
    const workers = [workerDeps({ maxInFlight: 5 }), workerDeps({ maxInFlight: 3 })];
    const loop = async (deps: Deps) => {
      while ((await deliverDueWebhooks(deps)) > 0) {}
    };
    await Promise.all(workers.map(loop));
    await Promise.all(workers.map(loop));

    const ids = target.received.map((d) => d.headers["webhook-id"]);
    assert.equal(ids.length, 30, "each event once to the first endpoint");
    assert.deepEqual(new Set(ids), new Set(written));
    const secondIds = second.received.map((d) => d.headers["webhook-id"]);
    assert.equal(secondIds.length, 15);
    assert.equal(new Set(secondIds).size, 15);
    assertVerified(target);
    assertVerified(second);
    const pending = await svc.deps.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("merchant_id", "=", credentials.merchantId)
      .where("status", "!=", "succeeded")
      .execute();
    assert.equal(pending.length, 0);
  });
});

describe("bounded concurrency", () => {
  it("keeps delivering to other endpoints while one endpoint hangs, and caps the slow one's connections", async () => {
    const deps = workerDeps({ maxInFlight: 4, perEndpointInFlight: 2, timeoutMs: 60_000 });
    const slow = await receiver(deps.wallClock);
    const held: Array<() => void> = [];
    slow.handle((_request, response) => {
      held.push(() => {
        response.statusCode = 200;
        response.end();
      });
    });
    const fast = await receiver(deps.wallClock);
    const credentials = await svc.newMerchant();
    await subscribe(slow, ["withdraw.paid"], credentials);
    await subscribe(fast, ["payment.received"], credentials);
    for (let i = 0; i < 6; i++) await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid");
    await writeEvent(svc.deps, credentials.merchantId, "payment.received");

    const dispatcher = new DeliveryDispatcher(deps);
    assert.equal(await dispatcher.dispatch(), 3, "two for the slow endpoint, one for the fast one");
    await fast.waitFor(1);
    await slow.waitFor(2);
    assert.equal(fast.received.length, 1, "the fast endpoint got its event while the slow one hangs");
    assert.equal(await dispatcher.dispatch(), 0, "the slow endpoint is at its cap");
    assert.equal(slow.maxOpen, 2);

    // Release what arrived, let those attempts finish, claim the next ones, until none is left.
    let expected = 2;
    for (;;) {
      await slow.waitFor(expected);
      for (const release of held.splice(0)) release();
      await dispatcher.drain();
      const claimed = await dispatcher.dispatch();
      if (claimed === 0) break;
      expected += claimed;
    }
    await dispatcher.drain();
    assert.equal(slow.received.length, 6);
    assert.ok(slow.maxOpen <= 2, `at most 2 at once, saw ${slow.maxOpen}`);
    assertVerified(slow);
    assertVerified(fast);
  });
});

describe("GET /api/v1/events", () => {
  it("lists the merchant's events newest first with type and date filters, ids breaking ties", async () => {
    const credentials = await svc.newMerchant();
    const base = Date.parse("2026-03-01T00:00:00.000Z");
    const at = (minutes: number) => new Date(base + minutes * 60_000);
    const a = await writeEvent(svc.deps, credentials.merchantId, "payment.received", {}, at(0));
    const b = await writeEvent(svc.deps, credentials.merchantId, "payment.expired", {}, at(10));
    const c = await writeEvent(svc.deps, credentials.merchantId, "payment.received", {}, at(10));
    const d = await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid", {}, at(20));
    const other = await svc.newMerchant();
    await writeEvent(svc.deps, other.merchantId, "payment.received", {}, at(5));

    const list = async (query: string) => {
      const res = await svc.request("GET", `/api/v1/events?${query}`, undefined, { credentials });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    };
    const all = await list("");
    assert.equal(all.total, 4);
    const tied = [b, c].sort((x, y) => (x.id < y.id ? 1 : -1));
    assert.deepEqual(
      all.data.map((e: { id: string }) => e.id),
      [d.id, tied[0]!.id, tied[1]!.id, a.id],
    );
    assert.deepEqual(Object.keys(all.data[0]).sort(), ["createdAt", "data", "id", "type"]);
    assert.ok(all.data[0].data.object.id);

    const received = await list("type=payment.received");
    assert.deepEqual(received.data.map((e: { id: string }) => e.id).sort(), [a.id, c.id].sort());
    const window = await list(`dateFrom=${at(10).toISOString()}&dateTo=${at(20).toISOString()}`);
    assert.deepEqual(window.data.map((e: { id: string }) => e.id).sort(), [b.id, c.id].sort());
    const paged = await list("limit=1&page=2&sortOrder=asc");
    assert.deepEqual(
      paged.data.map((e: { id: string }) => e.id),
      [tied[1]!.id],
    );
    assert.equal(paged.totalPages, 4);
    const beyond = await list("page=9");
    assert.deepEqual(beyond.data, []);
    assert.equal(beyond.total, 4);
    const byCreated = await list("sortBy=createdAt&sortOrder=asc");
    assert.equal(byCreated.data[0].id, a.id);

    for (const [query, field] of [
      ["type=payment.refunded", "type"],
      ["sortBy=foo", "sortBy"],
      ["sortBy=amount", "sortBy"],
      ["sortOrder=up", "sortOrder"],
      ["dateFrom=yesterday", "dateFrom"],
      ["dateTo=2026-02-30", "dateTo"],
      ["limit=101", "limit"],
    ]) {
      const res = await svc.request("GET", `/api/v1/events?${query}`, undefined, { credentials });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
    }
  });

  it("answers 404 for another merchant's event and for a malformed id", async () => {
    const credentials = await svc.newMerchant();
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    assert.equal((await svc.request("GET", `/api/v1/events/${event.id}`)).status, 404);
    assert.equal((await svc.request("GET", "/api/v1/events/not-a-uuid")).status, 404);
    assert.equal((await svc.request("POST", "/api/v1/events/not-a-uuid/redeliver")).status, 404);
  });
});
