/**
 * Webhook delivery at volume, through the real job runner: a backlog reaches a counting
 * receiver exactly once per event; an endpoint's concurrency grows while it answers fast,
 * shrinks when it fails, and stays bounded; a hanging endpoint does not hold up another's
 * deliveries; a long send keeps its short lease through the heartbeat. Nothing here asserts on
 * timing: tests wait until the work is done, then check counts and what overlapped.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Deps } from "../../src/deps.ts";
import { DeliveryDispatcher, deliverDueWebhooks } from "../../src/events/delivery.ts";
import { recordEvent } from "../../src/events/outbox.ts";
import type { WebhookOverrides } from "../../src/events/settings.ts";
import { startWorkers } from "../../src/jobs/runner.ts";
import { webhookDeliveryJob } from "../../src/jobs/webhooks.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/ids.ts";
import { WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL } from "../../src/lib/limits.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { waitFor } from "../helpers/processes.ts";
import { cancelPendingDeliveries, type Receiver, startReceiver, writeEvent } from "../helpers/webhooks.ts";

let svc: TestService;
const receivers: Receiver[] = [];
const silentLog = { error: (details: object) => console.error(details) };

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

async function receiver(): Promise<Receiver> {
  const target = await startReceiver();
  receivers.push(target);
  return target;
}

async function subscribe(target: Receiver, events: string[], credentials: Credentials): Promise<string> {
  const res = await svc.request(
    "POST",
    "/api/v1/webhook-endpoints",
    { url: target.url, events },
    { credentials },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  target.secrets.push(res.body.data.secret);
  return res.body.data.id;
}

/** Writes `count` events through the outbox in one transaction, as a burst of changes would. */
async function writeBacklog(
  credentials: Credentials,
  type: "payment.received" | "withdraw.paid",
  count: number,
) {
  const at = svc.clock.now();
  await svc.deps.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      await recordEvent(trx, {
        merchantId: credentials.merchantId,
        type,
        objectType: type.startsWith("payment.") ? "payment" : "withdraw",
        object: { id: newId(), status: "succeeded", updatedAt: at.toISOString() },
        occurredAt: at,
      });
    }
  });
}

async function pendingOf(merchantId: string): Promise<number> {
  const row = await svc.deps.db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.countAll<bigint>().as("n"))
    .where("merchant_id", "=", merchantId)
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function worker(overrides: WebhookOverrides = {}): Deps {
  return svc.depsWith({ wallClock: systemClock, webhooks: overrides });
}

describe("a backlog through the job runner", () => {
  it("delivers every event exactly once, growing the endpoint's concurrency within its ceiling", async () => {
    const N = 400;
    const target = await receiver();
    target.handle((_request, response) => {
      setTimeout(() => response.end("ok"), 5);
    });
    const credentials = await svc.newMerchant();
    const endpointId = await subscribe(target, ["*"], credentials);
    await writeBacklog(credentials, "payment.received", N);

    const deps = worker({ perEndpointInFlight: 16 });
    const running = startWorkers(deps, [webhookDeliveryJob], silentLog);
    try {
      await waitFor("the backlog to drain", async () => (await pendingOf(credentials.merchantId)) === 0);
    } finally {
      await running.stop();
    }
    const ids = target.received.map((d) => d.headers["webhook-id"]);
    assert.equal(ids.length, N, "one request per event");
    assert.equal(new Set(ids).size, N, "no event twice");
    assert.ok(target.received.every((d) => d.verifyError === undefined));
    assert.ok(target.maxOpen <= 16, `at most the ceiling at once, saw ${target.maxOpen}`);
    assert.ok(
      deps.dispatcher.limitOf(endpointId) > WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL,
      `the limit grew from ${WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL} to ${deps.dispatcher.limitOf(endpointId)}`,
    );
    assert.ok(target.maxOpen > WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL, "and the receiver saw it");
  });

  it("halves an endpoint's concurrency when it answers 503", async () => {
    const target = await receiver();
    target.handle((_request, response) => {
      response.statusCode = 503;
      response.end();
    });
    const credentials = await svc.newMerchant();
    const endpointId = await subscribe(target, ["*"], credentials);
    await writeBacklog(credentials, "payment.received", 8);
    const deps = worker({ perEndpointInitial: 4 });
    assert.equal(await deliverDueWebhooks(deps), 4, "the initial limit");
    assert.equal(deps.dispatcher.limitOf(endpointId), 2, "one burst of failures halves it once");
    assert.equal(await deliverDueWebhooks(deps), 2);
    assert.equal(deps.dispatcher.limitOf(endpointId), 1);
  });

  it("sends an endpoint's untried deliveries oldest first, whatever their ids", async () => {
    const target = await receiver();
    const credentials = await svc.newMerchant();
    await subscribe(target, ["*"], credentials);
    // One event at a time, each delivery made after the one before; their ids are random.
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      made.push((await writeEvent(svc.deps, credentials.merchantId, "payment.received")).id);
    }
    // One at a time to the endpoint: the order of arrival is the order of the claims.
    const deps = worker({ perEndpointInitial: 1, perEndpointInFlight: 1 });
    for (let sent = 0; sent < made.length; ) sent += await deliverDueWebhooks(deps);
    assert.deepEqual(
      target.received.map((delivery) => delivery.payload?.id),
      made,
    );
  });

  it("delivers everything to a fast endpoint while a hanging one holds only its own few slots", async () => {
    const slow = await receiver();
    const held: Array<() => void> = [];
    slow.handle((_request, response) => {
      held.push(() => response.end("late"));
    });
    const fast = await receiver();
    const credentials = await svc.newMerchant();
    await subscribe(slow, ["withdraw.paid"], credentials);
    await subscribe(fast, ["payment.received"], credentials);
    await writeBacklog(credentials, "withdraw.paid", 30);
    await writeBacklog(credentials, "payment.received", 60);

    const deps = worker({ maxInFlight: 8, perEndpointInFlight: 4, timeoutMs: 120_000 });
    const running = startWorkers(deps, [webhookDeliveryJob], silentLog);
    try {
      await waitFor("the fast endpoint to get every event", () => fast.received.length >= 60);
      assert.equal(held.length, slow.received.length);
      assert.ok(slow.received.length <= 4, `the hanging endpoint got ${slow.received.length} requests`);
      assert.ok(slow.maxOpen <= 4);
      assert.equal(new Set(fast.received.map((d) => d.headers["webhook-id"])).size, 60);
    } finally {
      for (const release of held.splice(0)) release();
      slow.handle((_request, response) => response.end("ok"));
      await running.stop();
    }
  });
});

describe("leases", () => {
  it("keeps a send that outlasts its lease away from other workers by renewing it", async () => {
    const target = await receiver();
    let release: (() => void) | undefined;
    target.handle((_request, response) => {
      release = () => response.end("ok");
    });
    const credentials = await svc.newMerchant();
    await subscribe(target, ["*"], credentials);
    await writeEvent(svc.deps, credentials.merchantId, "payment.received");

    const short = { leaseMs: 1_000, leaseRenewMs: 50, timeoutMs: 60_000 };
    const first = new DeliveryDispatcher(worker(short));
    const second = new DeliveryDispatcher(worker(short));
    assert.equal(await first.dispatch(), 1);
    await target.waitFor(1);
    // More than a lease length passes (30 renewals observed in the database, 50 ms apart) while the
    // receiver holds the request; the other worker finds nothing to claim all along.
    let renewals = 0;
    let lastLease = 0;
    while (renewals < 30) {
      assert.equal(await second.dispatch(), 0, "the lease is still held");
      const row = await svc.deps.db
        .selectFrom("webhook_deliveries")
        .select("leased_until")
        .where("merchant_id", "=", credentials.merchantId)
        .executeTakeFirstOrThrow();
      const lease = row.leased_until?.getTime() ?? 0;
      if (lease > lastLease) {
        if (lastLease !== 0) renewals += 1;
        lastLease = lease;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    release?.();
    await first.drain();
    await second.drain();
    assert.equal(target.received.length, 1, "sent once");
    assert.equal(await pendingOf(credentials.merchantId), 0);
  });
});
