/**
 * The sandbox test clock (CONTRACT 10): per merchant, forward only until reset, stored in the
 * database, and never seen by authentication. A reset brings the merchant back to wall-clock
 * time; records keep their timestamps and nothing moves backwards for a record.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { PoolAcquireTimeoutError } from "../../src/db/faults.ts";
import { paymentExpiryJob } from "../../src/jobs/lifecycle.ts";
import { CLOCK_ADVANCE_SECONDS_MAX, CLOCK_OFFSET_MAX_MS } from "../../src/lib/limits.ts";
import { advanceMerchantClock } from "../../src/lifecycle/clock.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import {
  advanceClock,
  createPayment,
  createWithdraw,
  eventsOf,
  eventTypes,
  HOUR_MS,
  MINUTE_MS,
  simulatePaymentRequest,
  simulateWithdrawRequest,
} from "../helpers/lifecycle.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
});

const readClock = async (credentials: Credentials) => {
  const res = await svc.request("GET", "/api/v1/sandbox/clock", undefined, { credentials });
  assert.equal(res.status, 200);
  return res.body.data.now as string;
};

async function offsetOf(merchantId: string): Promise<bigint> {
  const row = await svc.deps.db
    .selectFrom("merchants")
    .select("clock_offset_ms")
    .where("id", "=", merchantId)
    .executeTakeFirstOrThrow();
  return row.clock_offset_ms;
}

describe("the merchant's test clock", () => {
  it("reads the service clock until it is moved", async () => {
    const merchant = await svc.newMerchant();
    assert.equal(await readClock(merchant), svc.clock.now().toISOString());
  });

  it("moves forward by whole seconds, for this merchant only, and stamps new records with it", async () => {
    const merchant = await svc.newMerchant();
    const other = await svc.newMerchant();
    const now = await advanceClock(svc, merchant, 3600);
    const expected = new Date(svc.clock.now().getTime() + HOUR_MS).toISOString();
    assert.equal(now, expected);
    assert.equal(await readClock(merchant), expected);
    assert.equal(await readClock(other), svc.clock.now().toISOString(), "another merchant's clock stays");
    assert.equal(await offsetOf(merchant.merchantId), BigInt(HOUR_MS), "the offset lives in the database");

    const payment = await createPayment(svc, merchant);
    assert.equal(payment.createdAt, expected);
    await advanceClock(svc, merchant, 60);
    assert.equal(await offsetOf(merchant.merchantId), BigInt(HOUR_MS + 60_000));
  });

  it("refuses zero, negative, fractional, textual, missing and too large steps with 400 and moves nothing", async () => {
    const merchant = await svc.newMerchant();
    const bodies = [
      { seconds: 0 },
      { seconds: -60 },
      { seconds: 1.5 },
      { seconds: "60" },
      {},
      { seconds: CLOCK_ADVANCE_SECONDS_MAX + 1 },
    ];
    for (const body of bodies) {
      const res = await svc.request("POST", "/api/v1/sandbox/clock/advance", body, { credentials: merchant });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, "seconds");
    }
    assert.equal(await offsetOf(merchant.merchantId), 0n);
  });

  it("refuses a step that would take the clock past its total bound", async () => {
    const merchant = await svc.newMerchant();
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: BigInt(CLOCK_OFFSET_MAX_MS - 1000) })
      .where("id", "=", merchant.merchantId)
      .execute();
    const res = await svc.request(
      "POST",
      "/api/v1/sandbox/clock/advance",
      { seconds: 2 },
      { credentials: merchant },
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.error.metadata.field, "seconds");
    await advanceClock(svc, merchant, 1);
  });

  it("never touches authentication: signed requests still pass a year ahead", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, CLOCK_ADVANCE_SECONDS_MAX);
    const res = await svc.request("GET", "/api/v1/payments", undefined, { credentials: merchant });
    assert.equal(res.status, 200);
  });

  it("does the work that became due before answering: a payment past expiresAt reads expired", async () => {
    const merchant = await svc.newMerchant();
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    await advanceClock(svc, merchant, 15 * 60 - 1);
    const before = await svc.request("GET", `/api/v1/payments/${payment.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(before.body.data.status, "requires_action");
    await advanceClock(svc, merchant, 1);
    const after = await svc.request("GET", `/api/v1/payments/${payment.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(after.body.data.status, "expired");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired"]);
  });
  it("answers the moved clock once it moved, even when the work it made due fails: a retry would move it twice", async () => {
    const merchant = await svc.newMerchant();
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    // Every statement after the clock's own UPDATE fails as a pool wait past its bound would.
    let moved = false;
    const failing = svc.deps.db.withPlugin({
      transformQuery(args) {
        if (moved) throw new PoolAcquireTimeoutError(2000);
        const node = args.node as { kind: string; table?: { table?: { identifier?: { name?: string } } } };
        if (node.kind === "UpdateQueryNode" && node.table?.table?.identifier?.name === "merchants")
          moved = true;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const warned: unknown[] = [];
    const view = await advanceMerchantClock(
      { ...svc.deps, db: failing },
      merchant.merchantId,
      3600,
      (error) => warned.push(error),
    );
    assert.equal(view.offsetSeconds, 3600);
    assert.equal(warned.length, 1);
    assert.ok(warned[0] instanceof PoolAcquireTimeoutError);
    assert.equal(await offsetOf(merchant.merchantId), 3_600_000n, "moved once");
    // What it left is the workers' (they compare each record with its merchant's time).
    while ((await paymentExpiryJob.runOnce(svc.deps)) > 0) {}
    const read = await svc.request("GET", `/api/v1/payments/${payment.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(read.body.data.status, "expired");
  });
});

describe("the operator's clock advance", () => {
  it("moves a merchant's clock and answers its new time", async () => {
    const merchant = await svc.newMerchant();
    const res = await svc.admin("POST", `/admin/v1/merchants/${merchant.merchantId}/clock/advance`, {
      seconds: 86_400,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const expected = new Date(svc.clock.now().getTime() + 24 * HOUR_MS).toISOString();
    assert.deepEqual(res.body.data, {
      merchantId: merchant.merchantId,
      now: expected,
      offsetSeconds: 86_400,
    });
    assert.equal(await readClock(merchant), expected);
  });

  it("answers 404 for an unknown or malformed merchant id, 401 without the token, 400 for a bad step", async () => {
    const missing = await svc.admin(
      "POST",
      "/admin/v1/merchants/00000000-0000-4000-8000-000000000000/clock/advance",
      {
        seconds: 1,
      },
    );
    assert.equal(missing.status, 404);
    const malformed = await svc.admin("POST", "/admin/v1/merchants/nope/clock/advance", { seconds: 1 });
    assert.equal(malformed.status, 404);
    const merchant = await svc.newMerchant();
    const path = `/admin/v1/merchants/${merchant.merchantId}/clock/advance`;
    const unauthorized = await svc.admin("POST", path, { seconds: 1 }, "not-the-token-0123456789");
    assert.equal(unauthorized.status, 401);
    const backwards = await svc.admin("POST", path, { seconds: -1 });
    assert.equal(backwards.status, 400);
    assert.equal(backwards.body.error.metadata.field, "seconds");
    assert.equal(await offsetOf(merchant.merchantId), 0n);
  });
});

const resetClock = async (credentials: Credentials) => {
  const res = await svc.request("POST", "/api/v1/sandbox/clock/reset", undefined, { credentials });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { now: string; offsetSeconds: number };
};

const paymentOf = async (credentials: Credentials, id: string) => {
  const res = await svc.request("GET", `/api/v1/payments/${id}`, undefined, { credentials });
  assert.equal(res.status, 200);
  return res.body.data;
};

describe("the merchant's clock reset", () => {
  it("answers the clock's offset on read and advance", async () => {
    const merchant = await svc.newMerchant();
    const read = await svc.request("GET", "/api/v1/sandbox/clock", undefined, { credentials: merchant });
    assert.deepEqual(read.body.data, { now: svc.clock.now().toISOString(), offsetSeconds: 0 });
    const advanced = await svc.request(
      "POST",
      "/api/v1/sandbox/clock/advance",
      { seconds: 301 },
      { credentials: merchant },
    );
    assert.equal(advanced.body.data.offsetSeconds, 301);
  });

  it("brings the clock back to wall-clock time, for this merchant only, and new records are stamped with it", async () => {
    const merchant = await svc.newMerchant();
    const other = await svc.newMerchant();
    await advanceClock(svc, merchant, 5 * 60);
    await advanceClock(svc, other, 60);
    const made = await createPayment(svc, merchant);
    const wall = svc.clock.now().toISOString();

    const reset = await resetClock(merchant);
    assert.deepEqual(reset, { now: wall, offsetSeconds: 0 });
    assert.equal(await readClock(merchant), wall);
    assert.equal(await offsetOf(merchant.merchantId), 0n);
    assert.equal(await offsetOf(other.merchantId), 60_000n, "another merchant's clock stays moved");

    const fresh = await createPayment(svc, merchant);
    assert.equal(fresh.createdAt, wall, "a record made after the reset carries wall-clock time");
    const kept = await paymentOf(merchant, made.id);
    assert.equal(kept.createdAt, made.createdAt, "a record made before keeps its timestamps");
    assert.equal(kept.expiresAt, made.expiresAt);
  });

  it("answers the wall-clock time when the clock was never moved, and accepts an empty JSON body", async () => {
    const merchant = await svc.newMerchant();
    const res = await svc.request("POST", "/api/v1/sandbox/clock/reset", {}, { credentials: merchant });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { now: svc.clock.now().toISOString(), offsetSeconds: 0 });
    const extra = await svc.request(
      "POST",
      "/api/v1/sandbox/clock/reset",
      { seconds: 1 },
      { credentials: merchant },
    );
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "seconds");
  });

  it("needs the merchant's signature", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 60);
    const res = await svc.app.inject({ method: "POST", url: "/api/v1/sandbox/clock/reset" });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
    assert.equal(await offsetOf(merchant.merchantId), 60_000n);
  });

  it("leaves an open payment's expiry where it was set: it expires when the merchant's clock reaches it, not before", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 3600);
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    const expiresAt = new Date(payment.expiresAt).getTime();
    assert.equal(expiresAt, svc.clock.now().getTime() + HOUR_MS + 15 * MINUTE_MS);
    await resetClock(merchant);

    // The expiry worker compares against the merchant's time, which is wall-clock time again.
    svc.clock.advance(HOUR_MS + 15 * MINUTE_MS - 1);
    while ((await paymentExpiryJob.runOnce(svc.deps)) > 0) {}
    const open = await paymentOf(merchant, payment.id);
    assert.equal(
      open.status,
      "requires_action",
      "one millisecond before expiresAt the payment is still open",
    );
    assert.equal(open.expiresAt, payment.expiresAt);

    svc.clock.advance(1);
    while ((await paymentExpiryJob.runOnce(svc.deps)) > 0) {}
    const expired = await paymentOf(merchant, payment.id);
    assert.equal(expired.status, "expired");
    assert.equal(expired.updatedAt, payment.expiresAt);
    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((event) => [event.type, event.createdAt.toISOString()]),
      [["payment.expired", payment.expiresAt]],
    );
  });

  it("keeps a confirmation refused as past the late window refused after the reset brings time back inside it", async () => {
    const merchant = await svc.newMerchant();
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    // Past expiresAt + 72 h: the payment expires, and a success is refused for the operator.
    await advanceClock(svc, merchant, 15 * 60 + 72 * 3600 + 60);
    const refused = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.metadata.reason, "late_confirmation_window_passed");

    await resetClock(merchant);
    const again = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.error.metadata.reason, "late_confirmation_window_passed");
    assert.equal((await paymentOf(merchant, payment.id)).status, "expired");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired"]);

    // Within the window, with no refusal before, a late confirmation after a reset still succeeds.
    const other = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    await advanceClock(svc, merchant, 15 * 60 + 60);
    await resetClock(merchant);
    const late = await simulatePaymentRequest(svc, merchant, other.id, "succeeded");
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.status, "succeeded");
  });

  it("never stamps a change to a payment made ahead of the reset before its last change", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 3600);
    const payment = await createPayment(svc, merchant);
    await resetClock(merchant);
    svc.clock.advance(60_000);

    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const paid = res.body.data;
    assert.equal(paid.status, "succeeded");
    // One minute of wall-clock time after the reset is still before the payment was made: its
    // stamps are its last change's time, and its updatedAt a millisecond after it (strictly
    // later, so a receiver comparing updatedAt orders its events).
    for (const field of ["confirmedAt", "capturedAt"]) {
      assert.equal(paid[field], payment.createdAt, `${field} is not before createdAt`);
    }
    const later = new Date(Date.parse(payment.createdAt) + 1).toISOString();
    assert.equal(paid.updatedAt, later);
    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((event) => [event.type, event.createdAt.toISOString(), event.object.updatedAt]),
      [["payment.received", later, later]],
    );

    // A payment made after the reset is stamped with the merchant's (wall-clock) time.
    const fresh = await createPayment(svc, merchant);
    const freshPaid = (await simulatePaymentRequest(svc, merchant, fresh.id, "succeeded")).body.data;
    assert.equal(freshPaid.capturedAt, svc.clock.now().toISOString());
  });

  it("keeps a withdraw's updatedAt in order across a reset, so webhook receivers can order its events", async () => {
    const merchant = await fundedMerchant(svc);
    await advanceClock(svc, merchant, 3600);
    const withdraw = await createWithdraw(svc, merchant);
    const processing = (await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing")).body.data;
    assert.ok(processing.updatedAt > withdraw.createdAt, "each change strictly after the last");
    await resetClock(merchant);

    const res = await simulateWithdrawRequest(svc, merchant, withdraw.id, "paid");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const paid = res.body.data;
    assert.equal(paid.status, "paid");
    // Before the reset's business time, yet strictly after the last change: no tie.
    assert.equal(paid.updatedAt, new Date(Date.parse(processing.updatedAt) + 1).toISOString());
    assert.equal(paid.paidAt, processing.updatedAt);
    const events = await eventsOf(svc.deps.db, withdraw.id);
    const eventOf = (type: string) => events.find((event) => event.type === type)!;
    const [first, second] = [eventOf("withdraw.processing"), eventOf("withdraw.paid")];
    assert.ok(second.createdAt >= first.createdAt, "withdraw.paid is not older than withdraw.processing");
    assert.ok(second.object.updatedAt > first.object.updatedAt, "a receiver comparing updatedAt keeps paid");
  });

  it("never stamps a change to a webhook endpoint made ahead of the reset before its last change", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 7200);
    const call = (method: string, path: string, body?: unknown) =>
      svc.request(method, `/api/v1/webhook-endpoints${path}`, body, { credentials: merchant });
    const made = await call("POST", "", { url: "https://93.184.216.34/satang", events: ["*"] });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const created = made.body.data;
    await resetClock(merchant);

    const ms = (iso: string) => Date.parse(iso);
    let last = created.updatedAt as string;
    const changes: [string, string, unknown?][] = [
      ["PATCH", `/${created.id}`, { disabled: true }],
      ["POST", `/${created.id}/rotate-secret`],
      ["PATCH", `/${created.id}`, { disabled: false }],
      ["DELETE", `/${created.id}`],
    ];
    for (const [method, path, body] of changes) {
      const res = await call(method, path, body);
      assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
      const endpoint = res.body.data;
      assert.equal(endpoint.createdAt, created.createdAt);
      // Two hours of business time behind the endpoint's making, yet strictly after its last change.
      assert.equal(
        ms(endpoint.updatedAt),
        ms(last) + 1,
        `${method} ${path}: updatedAt after the last change`,
      );
      if (endpoint.disabledAt !== null) assert.ok(ms(endpoint.disabledAt) >= ms(created.createdAt));
      last = endpoint.updatedAt;
    }
  });
});

describe("the operator's clock reset", () => {
  it("brings a merchant's clock back to wall-clock time and answers like the advance", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 600);
    const res = await svc.admin("POST", `/admin/v1/merchants/${merchant.merchantId}/clock/reset`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const wall = svc.clock.now().toISOString();
    assert.deepEqual(res.body.data, { merchantId: merchant.merchantId, now: wall, offsetSeconds: 0 });
    assert.equal(await readClock(merchant), wall);
  });

  it("answers 404 for an unknown or malformed merchant id and 401 without the token", async () => {
    const missing = await svc.admin(
      "POST",
      "/admin/v1/merchants/00000000-0000-4000-8000-000000000000/clock/reset",
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "RESOURCE_NOT_FOUND");
    assert.equal((await svc.admin("POST", "/admin/v1/merchants/nope/clock/reset")).status, 404);
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 60);
    const path = `/admin/v1/merchants/${merchant.merchantId}/clock/reset`;
    assert.equal((await svc.admin("POST", path, undefined, "not-the-token-0123456789")).status, 401);
    assert.equal(await offsetOf(merchant.merchantId), 60_000n);
  });
});

describe("a reset made by another process", () => {
  it("is seen by this process's next create, whose merchant it had in memory", async () => {
    const merchant = await svc.newMerchant();
    await advanceClock(svc, merchant, 3600);
    const ahead = await createPayment(svc, merchant);
    assert.equal(new Date(ahead.createdAt).getTime(), svc.clock.now().getTime() + HOUR_MS);
    // Another process's services over the same store reset the clock.
    const other = svc.depsWith({});
    const { resetMerchantClock } = await import("../../src/lifecycle/clock.ts");
    await resetMerchantClock(other, merchant.merchantId);
    const after = await createPayment(svc, merchant);
    assert.equal(after.createdAt, svc.clock.now().toISOString());
  });
});

describe("the clock reset in the API document", () => {
  it("lists the merchant's and the operator's reset with their answers' schemas", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    const doc = res.json();
    const merchantReset = doc.paths["/api/v1/sandbox/clock/reset"]?.post;
    assert.ok(merchantReset, "POST /api/v1/sandbox/clock/reset is documented");
    const data = merchantReset.responses["200"].content["application/json"].schema.properties.data;
    assert.deepEqual(Object.keys(data.properties).sort(), ["now", "offsetSeconds"]);
    assert.ok(doc.paths["/admin/v1/merchants/{id}/clock/reset"]?.post, "the operator's reset is documented");
    const read = doc.paths["/api/v1/sandbox/clock"].get.responses["200"].content["application/json"].schema;
    assert.ok(read.properties.data.properties.offsetSeconds, "the read answers the offset too");
  });
});

describe("the clock reset in live", () => {
  let live: TestService;
  before(async () => {
    live = await startService({
      env: { ...LIVE_PROVIDER_ENV, SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32) },
    });
  });
  after(async () => {
    await live?.close();
  });

  it("answers 404 RESOURCE_NOT_FOUND on the merchant's and the operator's route, and is not documented", async () => {
    const merchant = await live.newMerchant();
    const res = await live.request("POST", "/api/v1/sandbox/clock/reset", undefined, {
      credentials: merchant,
    });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    const admin = await live.admin("POST", `/admin/v1/merchants/${merchant.merchantId}/clock/reset`);
    assert.equal(admin.status, 404);
    assert.equal(admin.body.error.code, "RESOURCE_NOT_FOUND");
    const doc = (await live.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    assert.equal(doc.paths["/api/v1/sandbox/clock/reset"], undefined);
  });
});
