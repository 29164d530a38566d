/**
 * Retrieve by id, retrieve by reference and cancel: merchant scoping (another merchant's
 * payment is 404 exactly like a missing one), path rules, and cancel from every state.
 *
 * Ordinary calls go through the SDK, as a merchant makes them; malformed paths and bodies, which
 * the SDK never sends, and exact envelopes go over the wire with `svc.request`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CreatePaymentParams, type Payment, ValidationError } from "@satang/sdk";
import { PAYMENT_STATUSES, type PaymentStatus } from "../../src/db/types.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { usingPostgres } from "../helpers/store.ts";

let svc: TestService;
let other: Credentials;
let counter = 0;

before(async () => {
  svc = await startService();
  other = await svc.newMerchant({ name: "Other Shop" });
});
after(async () => {
  await svc.close();
});

const unique = (prefix: string) => `${prefix}-${++counter}`;
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: "1000.00",
    referenceId: unique("ref"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(3_000_000_000 + ++counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function createPayment(
  overrides: Record<string, unknown> = {},
  credentials?: Credentials,
): Promise<Payment> {
  const sdk = credentials ? svc.sdkFor(credentials) : svc.sdk;
  // The record alone: the SDK adds what the create's answer said (reused, replayed) beside it.
  const {
    reused: _reused,
    replayed: _replayed,
    ...record
  } = await sdk.payments.create(validBody(overrides) as unknown as CreatePaymentParams);
  return record;
}

function expectNotFound(res: TestResponse): void {
  assert.equal(res.status, 404, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    success: false,
    error: { code: "RESOURCE_NOT_FOUND", message: "Payment not found" },
  });
}

async function setStatus(id: string, status: PaymentStatus): Promise<void> {
  await svc.deps.db
    .updateTable("payments")
    .set({ status, canceled_at: status === "canceled" ? svc.clock.now() : null })
    .where("id", "=", id)
    .execute();
}

describe("retrieve payment", () => {
  it("returns the payment exactly as create returned it", async () => {
    const created = await createPayment({ metadata: { k: "v" }, description: "desc" });
    const res = await svc.request("GET", `/api/v1/payments/${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, data: created });
    assert.deepEqual(await svc.sdk.payments.retrieve(created.id), created);
  });

  it("finds an id written in upper case", async () => {
    const created = await createPayment();
    const res = await svc.request("GET", `/api/v1/payments/${created.id.toUpperCase()}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, created.id);
  });

  it("answers a missing id with 404 Payment not found", async () => {
    expectNotFound(await svc.request("GET", `/api/v1/payments/${MISSING_ID}`));
  });

  for (const id of ["not-a-uuid", "123", "00000000-0000-4000-8000-00000000000", "%27%20OR%201=1"]) {
    it(`answers the malformed id ${JSON.stringify(id)} with the same 404`, async () => {
      expectNotFound(await svc.request("GET", `/api/v1/payments/${id}`));
    });
  }

  it("answers another merchant's payment with the same 404", async () => {
    const theirs = await createPayment({}, other);
    expectNotFound(await svc.request("GET", `/api/v1/payments/${theirs.id}`));
  });
});

describe("retrieve payment by reference", () => {
  it("returns the same record as retrieve by id", async () => {
    const created = await createPayment({ referenceId: unique("Order_2026.01-A") });
    const byReference = await svc.sdk.payments.retrieveByReference(created.referenceId);
    assert.deepEqual(byReference, await svc.sdk.payments.retrieve(created.id));
  });

  it("decodes a URL-encoded reference", async () => {
    const created = await createPayment({ referenceId: unique("ABC") });
    const encoded = [...created.referenceId]
      .map((ch: string) => `%${ch.charCodeAt(0).toString(16)}`)
      .join("");
    const res = await svc.request("GET", `/api/v1/payments/by-reference/${encoded}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, created.id);
  });

  it("matches the reference exactly, case included", async () => {
    const created = await createPayment({ referenceId: unique("CaseRef") });
    expectNotFound(
      await svc.request("GET", `/api/v1/payments/by-reference/${created.referenceId.toLowerCase()}`),
    );
  });

  it("answers an unknown reference with 404", async () => {
    expectNotFound(await svc.request("GET", "/api/v1/payments/by-reference/never-used"));
  });

  it("answers another merchant's reference with 404", async () => {
    const theirs = await createPayment({}, other);
    expectNotFound(await svc.request("GET", `/api/v1/payments/by-reference/${theirs.referenceId}`));
  });

  for (const reference of ["has%20space", "a%2Fb", "%E0%B8%81", "x".repeat(256), "a%2Bb", "semi%3Bcolon"]) {
    it(`refuses the malformed reference ${reference.slice(0, 20)} with 400 VALIDATION_ERROR`, async () => {
      const res = await svc.request("GET", `/api/v1/payments/by-reference/${reference}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, "referenceId");
    });
  }

  it("accepts a reference of 255 characters", async () => {
    const referenceId = `${unique("r")}${"x".repeat(250)}`.slice(0, 255);
    const created = await createPayment({ referenceId });
    const res = await svc.request("GET", `/api/v1/payments/by-reference/${referenceId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, created.id);
  });
});

describe("cancel payment", () => {
  const CANCELLABLE: PaymentStatus[] = [
    "processing",
    "requires_payment_method",
    "requires_confirmation",
    "requires_action",
    "requires_capture",
  ];
  const FINAL: PaymentStatus[] = ["succeeded", "canceled", "expired", "payment_failed"];

  it("covers every payment state", () => {
    assert.deepEqual([...CANCELLABLE, ...FINAL].sort(), [...PAYMENT_STATUSES].sort());
  });

  for (const status of CANCELLABLE) {
    for (const paymentMethod of ["promptpay", "bank_transfer"]) {
      it(`cancels a ${paymentMethod} payment in ${status}, setting canceledAt and clearing nextAction`, async () => {
        const created = await createPayment({ paymentMethod });
        await setStatus(created.id, status);
        svc.clock.advance(90_000);
        const now = svc.clock.now().toISOString();
        const canceled = await svc.sdk.payments.cancel(created.id);
        assert.equal(canceled.status, "canceled");
        assert.equal(canceled.canceledAt, now);
        assert.equal(canceled.updatedAt, now);
        assert.equal(canceled.nextAction, null);
        assert.equal(canceled.createdAt, created.createdAt);
        assert.deepEqual(await svc.sdk.payments.retrieve(created.id), canceled);
      });
    }
  }

  for (const status of FINAL) {
    it(`refuses to cancel a ${status} payment with 400 VALIDATION_ERROR naming the status`, async () => {
      const created = await createPayment();
      await setStatus(created.id, status);
      const before = await svc.sdk.payments.retrieve(created.id);
      await assert.rejects(svc.sdk.payments.cancel(created.id), (error) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.status, 400);
        assert.match(error.message, new RegExp(status));
        return true;
      });
      assert.deepEqual(await svc.sdk.payments.retrieve(created.id), before);
    });
  }

  it("answers a cancel after expiresAt with expired, and the record and its event say so too", async () => {
    const created = await createPayment({ expiresInMinutes: 5 });
    // No expiry job runs in this service: the cancel is the first to see the payment is due.
    svc.clock.advance(5 * 60_000);
    await assert.rejects(svc.sdk.payments.cancel(created.id), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.match(error.message, /its status is expired/);
      return true;
    });
    const stored = await svc.sdk.payments.retrieve(created.id);
    assert.equal(stored.status, "expired");
    assert.equal(stored.nextAction, null);
    const events = await svc.request("GET", "/api/v1/events?type=payment.expired&limit=100");
    assert.equal(events.status, 200, JSON.stringify(events.body));
    const own = events.body.data.data.filter(
      (event: { data: { object: { id: string } } }) => event.data.object.id === created.id,
    );
    assert.equal(own.length, 1, "one payment.expired event, committed with the expiry");
  });

  it("refuses a second cancel of the same payment", async () => {
    const created = await createPayment();
    assert.equal((await svc.sdk.payments.cancel(created.id)).status, "canceled");
    await assert.rejects(svc.sdk.payments.cancel(created.id), {
      name: "ValidationError",
      message: /canceled/,
    });
  });

  it("stamps canceledAt with the merchant's test clock", async () => {
    const creds = await svc.newMerchant();
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: 86_400_000n })
      .where("id", "=", creds.merchantId)
      .execute();
    const created = await createPayment({}, creds);
    const canceled = await svc.sdkFor(creds).payments.cancel(created.id);
    assert.equal(canceled.canceledAt, new Date(svc.clock.now().getTime() + 86_400_000).toISOString());
  });

  it("accepts an empty JSON object as the body", async () => {
    const created = await createPayment();
    const res = await svc.request("POST", `/api/v1/payments/${created.id}/cancel`, {});
    assert.equal(res.status, 200);
  });

  it("refuses a body with any field, naming it", async () => {
    const created = await createPayment();
    const res = await svc.request("POST", `/api/v1/payments/${created.id}/cancel`, { reason: "customer" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.metadata.field, "reason");
    assert.equal((await svc.sdk.payments.retrieve(created.id)).status, "requires_action");
  });

  it("refuses a body that is not a JSON object", async () => {
    const created = await createPayment();
    const res = await svc.request("POST", `/api/v1/payments/${created.id}/cancel`, undefined, {
      rawBody: "[]",
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });

  it("answers a missing or malformed id with 404", async () => {
    expectNotFound(await svc.request("POST", `/api/v1/payments/${MISSING_ID}/cancel`));
    expectNotFound(await svc.request("POST", "/api/v1/payments/not-a-uuid/cancel"));
  });

  it("answers another merchant's payment with 404 and leaves it alone", async () => {
    const theirs = await createPayment({}, other);
    expectNotFound(await svc.request("POST", `/api/v1/payments/${theirs.id}/cancel`));
    assert.equal((await svc.sdkFor(other).payments.retrieve(theirs.id)).status, "requires_action");
  });

  it(`lets exactly one of 10 concurrent cancels succeed (${usingPostgres() ? "PostgreSQL" : "PGlite"})`, async () => {
    const created = await createPayment();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => svc.request("POST", `/api/v1/payments/${created.id}/cancel`)),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array(9).fill(400)]);
  });
});
