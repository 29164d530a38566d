/**
 * The sandbox test clock (CONTRACT 10): per merchant, forward only, stored in the database, and
 * never seen by authentication.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { CLOCK_ADVANCE_SECONDS_MAX, CLOCK_OFFSET_MAX_MS } from "../../src/lib/limits.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { advanceClock, createPayment, eventTypes, HOUR_MS } from "../helpers/lifecycle.ts";

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
});

describe("the operator's clock advance", () => {
  it("moves a merchant's clock and answers its new time", async () => {
    const merchant = await svc.newMerchant();
    const res = await svc.admin("POST", `/admin/v1/merchants/${merchant.merchantId}/clock/advance`, {
      seconds: 86_400,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const expected = new Date(svc.clock.now().getTime() + 24 * HOUR_MS).toISOString();
    assert.deepEqual(res.body.data, { merchantId: merchant.merchantId, now: expected });
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
