/**
 * CONTRACT 5: idempotent replay, duplicate references, concurrent creates with one key, and
 * PromptPay reuse. The concurrency cases run on both stores: on PostgreSQL the requests really
 * race over a pool of connections; on PGlite they queue, and must give the same outcome.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { paymentColumnTypes } from "../../src/payments/store.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { usingPostgres } from "../helpers/store.ts";

let svc: TestService;
let counter = 0;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

const unique = (prefix: string) => `${prefix}-${++counter}`;

/** A distinct customer account per call, so PromptPay reuse only happens where a test asks. */
const freshAccount = () => String(1_000_000_000 + ++counter);

function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: "1000.00",
    referenceId: unique("ref"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: freshAccount(),
    customerBankCode: "014",
    ...overrides,
  };
}

async function create(body: unknown, credentials?: Credentials): Promise<TestResponse> {
  return svc.request("POST", "/api/v1/payments", body, credentials ? { credentials } : {});
}

async function countPayments(merchantId: string): Promise<number> {
  const row = await svc.deps.db
    .selectFrom("payments")
    .select((eb) => eb.fn.countAll<bigint>().as("n"))
    .where("merchant_id", "=", merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("idempotent replay", () => {
  it("returns the original payment with 200 and Idempotent-Replayed for the same key and body", async () => {
    const body = validBody({ idempotencyKey: unique("key"), metadata: { order: "1" } });
    const first = await create(body);
    assert.equal(first.status, 201);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    svc.clock.advance(60_000);
    const again = await create(body);
    assert.equal(again.status, 200);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body, first.body);
  });

  it("replays a bank transfer payment with the same instructions", async () => {
    const body = validBody({ idempotencyKey: unique("key"), paymentMethod: "bank_transfer" });
    const first = await create(body);
    const again = await create(body);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
  });

  it("treats a body with other key order and whitespace as the same body", async () => {
    const key = unique("key");
    const referenceId = unique("ref");
    const account = freshAccount();
    const first = await svc.request("POST", "/api/v1/payments", undefined, {
      rawBody: JSON.stringify({
        amount: "1000.00",
        referenceId,
        paymentMethod: "promptpay",
        customerBankAccountName: "Somchai Jaidee",
        customerBankAccountNumber: account,
        customerBankCode: "014",
        metadata: { a: "1", b: "2" },
        idempotencyKey: key,
      }),
    });
    assert.equal(first.status, 201);
    const reordered = `{ "idempotencyKey": "${key}", "metadata": {"b":"2",  "a":"1"},
      "customerBankCode": "014", "customerBankAccountNumber": "${account}",
      "customerBankAccountName": "Somchai Jaidee", "paymentMethod": "promptpay",
      "referenceId": "${referenceId}", "amount": "1000.00" }`;
    const again = await svc.request("POST", "/api/v1/payments", undefined, { rawBody: reordered });
    assert.equal(again.status, 200);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(again.body.data.id, first.body.data.id);
  });

  it("refuses the same key with a changed body with 422 IDEMPOTENCY_KEY_MISMATCH", async () => {
    const body = validBody({ idempotencyKey: unique("key") });
    const first = await create(body);
    for (const change of [
      { amount: "2000.00" },
      { metadata: { order: "2" } },
      { description: "changed" },
      { responseMode: "qr_code" },
      { referenceId: unique("ref") },
    ]) {
      const res = await create({ ...body, ...change });
      assert.equal(res.status, 422, JSON.stringify(change));
      assert.equal(res.body.error.code, "IDEMPOTENCY_KEY_MISMATCH");
      assert.equal(res.body.error.metadata.field, "idempotencyKey");
    }
    const stored = await svc.request("GET", `/api/v1/payments/${first.body.data.id}`);
    assert.deepEqual(stored.body, first.body);
  });

  it('treats "1000" and "1000.00" as different bodies for one key', async () => {
    const body = validBody({ idempotencyKey: unique("key"), amount: "1000" });
    assert.equal((await create(body)).status, 201);
    assert.equal((await create({ ...body, amount: "1000.00" })).status, 422);
  });

  it("replays the payment as it is now, after it was canceled", async () => {
    const body = validBody({ idempotencyKey: unique("key") });
    const first = await create(body);
    await svc.request("POST", `/api/v1/payments/${first.body.data.id}/cancel`);
    const again = await create(body);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.status, "canceled");
    assert.equal(again.body.data.nextAction, null);
  });

  it("replays even after the merchant lost the setup the payment needed", async () => {
    const creds = await svc.newMerchant();
    const body = validBody({ idempotencyKey: unique("key") });
    const first = await create(body, creds);
    await svc.deps.db
      .updateTable("merchants")
      .set({ promptpay_id: null })
      .where("id", "=", creds.merchantId)
      .execute();
    const again = await create(body, creds);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.id, first.body.data.id);
  });

  it("generates and stores a UUID key when none is sent, so a resend is a duplicate", async () => {
    const body = validBody();
    const first = await create(body);
    assert.equal(first.status, 201);
    const row = await svc.deps.db
      .selectFrom("payments")
      .select(["idempotency_key", "request_hash"])
      .where("id", "=", first.body.data.id)
      .executeTakeFirstOrThrow();
    assert.match(
      row.idempotency_key,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.match(row.request_hash, /^[0-9a-f]{64}$/);
    const again = await create(body);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "DUPLICATE_REFERENCE_ID");
  });

  it("keeps keys per merchant: another merchant's key creates a new payment", async () => {
    const body = validBody({ idempotencyKey: unique("shared-key"), referenceId: unique("shared-ref") });
    const mine = await create(body);
    const other = await create(body, await svc.newMerchant());
    assert.equal(mine.status, 201);
    assert.equal(other.status, 201);
    assert.notEqual(mine.body.data.id, other.body.data.id);
  });
});

describe("duplicate referenceId", () => {
  it("refuses a used referenceId under another key with 409 DUPLICATE_REFERENCE_ID", async () => {
    const referenceId = unique("ref");
    assert.equal((await create(validBody({ referenceId, idempotencyKey: unique("key") }))).status, 201);
    const res = await create(validBody({ referenceId, idempotencyKey: unique("key") }));
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "DUPLICATE_REFERENCE_ID");
    assert.equal(res.body.error.metadata.field, "referenceId");
  });

  it("refuses a used referenceId across payment methods", async () => {
    const referenceId = unique("ref");
    assert.equal((await create(validBody({ referenceId }))).status, 201);
    const res = await create(validBody({ referenceId, paymentMethod: "bank_transfer" }));
    assert.equal(res.status, 409);
  });

  it("refuses a used referenceId even after that payment was canceled", async () => {
    const referenceId = unique("ref");
    const first = await create(validBody({ referenceId }));
    await svc.request("POST", `/api/v1/payments/${first.body.data.id}/cancel`);
    assert.equal((await create(validBody({ referenceId }))).status, 409);
  });

  it("checks the key before the reference: a key reused with another reference is 422", async () => {
    const key = unique("key");
    const taken = unique("ref");
    await create(validBody({ referenceId: taken }));
    await create(validBody({ idempotencyKey: key }));
    const res = await create(validBody({ idempotencyKey: key, referenceId: taken }));
    assert.equal(res.status, 422);
  });

  it("lets another merchant use the same referenceId", async () => {
    const referenceId = unique("ref");
    assert.equal((await create(validBody({ referenceId }))).status, 201);
    assert.equal((await create(validBody({ referenceId }), await svc.newMerchant())).status, 201);
  });
});

describe(`concurrent creates (${usingPostgres() ? "PostgreSQL: real races" : "PGlite: queued"})`, () => {
  for (const paymentMethod of ["promptpay", "bank_transfer"]) {
    it(`creates one ${paymentMethod} payment from 50 concurrent requests with one key; 49 are replays`, async () => {
      const creds = await svc.newMerchant();
      const body = validBody({ paymentMethod, idempotencyKey: unique("race-key") });
      const results = await Promise.all(Array.from({ length: 50 }, () => create(body, creds)));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [...Array(49).fill(200), 201]);
      const ids = new Set(results.map((r) => r.body.data.id));
      assert.equal(ids.size, 1);
      assert.equal(results.filter((r) => r.headers["idempotent-replayed"] === "true").length, 49);
      assert.equal(await countPayments(creds.merchantId), 1);
    });
  }

  it("creates one payment from 30 concurrent requests with one reference and different keys", async () => {
    const creds = await svc.newMerchant();
    const referenceId = unique("race-ref");
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        create(
          validBody({ referenceId, paymentMethod: "bank_transfer", idempotencyKey: unique("k") }),
          creds,
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(29).fill(409)]);
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("answers 422 to every concurrent request whose body differs from the winner's", async () => {
    const creds = await svc.newMerchant();
    const key = unique("race-key");
    const account = freshAccount();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(
          validBody({
            idempotencyKey: key,
            referenceId: `race-${counter}-${i}`,
            customerBankAccountNumber: account,
          }),
          creds,
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(19).fill(422)]);
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("creates one PromptPay payment from 20 concurrent creates for one customer and amount", async () => {
    const creds = await svc.newMerchant();
    const account = freshAccount();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        create(validBody({ customerBankAccountNumber: account, idempotencyKey: unique("k") }), creds),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(19).fill(200), 201]);
    assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1);
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("gives 40 concurrent bank transfers 40 distinct transfer references", async () => {
    const creds = await svc.newMerchant();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => create(validBody({ paymentMethod: "bank_transfer" }), creds)),
    );
    assert.ok(results.every((r) => r.status === 201));
    const references = results.map((r) => r.body.data.nextAction.bankTransferInstructions.reference);
    assert.equal(new Set(references).size, 40);
  });
});

describe("PromptPay reuse", () => {
  const customer = () => ({ customerBankCode: "004", customerBankAccountNumber: freshAccount() });

  it("returns the still-valid payment with 200 for the same account and amount", async () => {
    const who = customer();
    const first = await create(validBody({ ...who, idempotencyKey: unique("k") }));
    assert.equal(first.status, 201);
    svc.clock.advance(14 * 60_000);
    const second = await create(validBody({ ...who, idempotencyKey: unique("k") }));
    assert.equal(second.status, 200);
    assert.equal(second.headers["idempotent-replayed"], undefined);
    assert.equal(second.headers["satang-payment-reused"], "true");
    assert.equal(first.headers["satang-payment-reused"], undefined, "a new payment is not marked");
    assert.deepEqual(second.body, first.body);
  });

  it("marks neither an idempotent replay nor a bank transfer as reused", async () => {
    const key = unique("k");
    const who = customer();
    const body = validBody({ ...who, idempotencyKey: key });
    const first = await create(body);
    const replay = await create(body);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.headers["satang-payment-reused"], undefined);
    assert.equal(replay.body.data.id, first.body.data.id);
    const transfer = { ...who, paymentMethod: "bank_transfer" };
    const a = await create(validBody(transfer));
    const b = await create(validBody(transfer));
    assert.deepEqual([a.status, b.status], [201, 201]);
    assert.equal(b.headers["satang-payment-reused"], undefined);
  });

  it("matches the account number after removing dashes and spaces, and the amount by value", async () => {
    const account = freshAccount();
    const first = await create(validBody({ customerBankAccountNumber: account, amount: "500" }));
    const formatted = `${account.slice(0, 3)}-${account.slice(3, 6)} ${account.slice(6)}`;
    const second = await create(validBody({ customerBankAccountNumber: formatted, amount: "500.00" }));
    assert.equal(second.status, 200);
    assert.equal(second.body.data.id, first.body.data.id);
  });

  it("shows the reused payment in the new request's responseMode", async () => {
    const who = customer();
    const first = await create(validBody(who));
    const second = await create(validBody({ ...who, responseMode: "payment_link" }));
    assert.equal(second.status, 200);
    assert.equal(second.body.data.id, first.body.data.id);
    assert.equal(second.body.data.nextAction.qrCode, undefined);
    assert.ok(second.body.data.nextAction.paymentAppUrl);
  });

  it("creates a new payment once the previous one has expired by business time", async () => {
    const who = customer();
    const first = await create(validBody(who));
    svc.clock.advance(15 * 60_000);
    const second = await create(validBody(who));
    assert.equal(second.status, 201);
    assert.notEqual(second.body.data.id, first.body.data.id);
  });

  it("follows the merchant's test clock when deciding that a payment has expired", async () => {
    const creds = await svc.newMerchant();
    const who = customer();
    const first = await create(validBody(who), creds);
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: 16n * 60_000n })
      .where("id", "=", creds.merchantId)
      .execute();
    const second = await create(validBody(who), creds);
    assert.equal(second.status, 201);
    assert.notEqual(second.body.data.id, first.body.data.id);
  });

  it("creates a new payment for a different amount", async () => {
    const who = customer();
    await create(validBody(who));
    assert.equal((await create(validBody({ ...who, amount: "1001.00" }))).status, 201);
  });

  it("creates a new payment for a different account number or bank", async () => {
    const who = customer();
    await create(validBody(who));
    assert.equal(
      (await create(validBody({ ...who, customerBankAccountNumber: freshAccount() }))).status,
      201,
    );
    assert.equal((await create(validBody({ ...who, customerBankCode: "006" }))).status, 201);
  });

  it("never reuses a bank transfer payment", async () => {
    const who = customer();
    assert.equal((await create(validBody({ ...who, paymentMethod: "bank_transfer" }))).status, 201);
    assert.equal((await create(validBody({ ...who, paymentMethod: "bank_transfer" }))).status, 201);
  });

  it("does not reuse a bank transfer payment for a promptpay create", async () => {
    const who = customer();
    assert.equal((await create(validBody({ ...who, paymentMethod: "bank_transfer" }))).status, 201);
    assert.equal((await create(validBody(who))).status, 201);
  });

  it("does not reuse a canceled payment", async () => {
    const who = customer();
    const first = await create(validBody(who));
    await svc.request("POST", `/api/v1/payments/${first.body.data.id}/cancel`);
    assert.equal((await create(validBody(who))).status, 201);
  });

  for (const status of ["succeeded", "expired", "payment_failed"] as const) {
    it(`does not reuse a ${status} payment`, async () => {
      const who = customer();
      const first = await create(validBody(who));
      await svc.deps.db
        .updateTable("payments")
        .set({ status })
        .where("id", "=", first.body.data.id)
        .execute();
      assert.equal((await create(validBody(who))).status, 201);
    });
  }

  for (const status of [
    "processing",
    "requires_payment_method",
    "requires_confirmation",
    "requires_capture",
  ] as const) {
    it(`reuses a payment that is ${status}`, async () => {
      const who = customer();
      const first = await create(validBody(who));
      await svc.deps.db
        .updateTable("payments")
        .set({ status })
        .where("id", "=", first.body.data.id)
        .execute();
      const second = await create(validBody(who));
      assert.equal(second.status, 200);
      assert.equal(second.body.data.id, first.body.data.id);
    });
  }

  it("does not reuse when the merchant has turned reuse off", async () => {
    const creds = await svc.newMerchant({ promptpayReuse: false });
    const who = customer();
    assert.equal((await create(validBody(who), creds)).status, 201);
    assert.equal((await create(validBody(who), creds)).status, 201);
    assert.equal(await countPayments(creds.merchantId), 2);
  });

  it("does not reuse another merchant's payment", async () => {
    const who = customer();
    await create(validBody(who));
    assert.equal((await create(validBody(who), await svc.newMerchant())).status, 201);
  });

  it("still refuses a duplicate referenceId before looking for a reusable payment", async () => {
    const who = customer();
    const referenceId = unique("ref");
    await create(validBody({ ...who, referenceId }));
    assert.equal((await create(validBody({ ...who, referenceId }))).status, 409);
  });
});

describe("an idempotency key answered by PromptPay reuse", () => {
  const customer = () => ({ customerBankCode: "004", customerBankAccountNumber: freshAccount() });

  /** A merchant of its own, its payment P, and a create with a new key that reuse answers with P. */
  async function reusedOnce() {
    const creds = await svc.newMerchant();
    const who = customer();
    const first = await create(validBody({ ...who, idempotencyKey: unique("k") }), creds);
    assert.equal(first.status, 201);
    const body = validBody({ ...who, idempotencyKey: unique("k") });
    const reused = await create(body, creds);
    assert.equal(reused.status, 200);
    assert.equal(reused.headers["satang-payment-reused"], "true");
    assert.equal(reused.body.data.id, first.body.data.id);
    return { creds, body, paymentId: first.body.data.id as string };
  }

  const simulate = (id: string, creds: Credentials) =>
    svc.request(
      "POST",
      `/api/v1/sandbox/payments/${id}/simulate`,
      { outcome: "succeeded" },
      { credentials: creds },
    );

  it("returns the reused payment to a retry while it is open, as a replay", async () => {
    const { creds, body, paymentId } = await reusedOnce();
    const retry = await create(body, creds);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    // Still not this order's own payment: a retry whose first answer was lost must say so too.
    assert.equal(retry.headers["satang-payment-reused"], "true");
    assert.notEqual(retry.body.data.referenceId, body.referenceId);
    assert.equal(retry.body.data.id, paymentId);
  });

  it("returns the reused payment to a retry after the customer paid it: no second payment", async () => {
    const { creds, body, paymentId } = await reusedOnce();
    assert.equal((await simulate(paymentId, creds)).status, 200);
    const retry = await create(body, creds);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal(retry.headers["satang-payment-reused"], "true");
    assert.equal(retry.body.data.id, paymentId);
    assert.equal(retry.body.data.status, "succeeded");
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("returns the reused payment to a retry after it was canceled or expired", async () => {
    const canceled = await reusedOnce();
    const cancel = await svc.request("POST", `/api/v1/payments/${canceled.paymentId}/cancel`, undefined, {
      credentials: canceled.creds,
    });
    assert.equal(cancel.status, 200);
    const afterCancel = await create(canceled.body, canceled.creds);
    assert.equal(afterCancel.status, 200);
    assert.equal(afterCancel.body.data.id, canceled.paymentId);
    assert.equal(afterCancel.body.data.status, "canceled");
    assert.equal(afterCancel.headers["satang-payment-reused"], "true");

    const expired = await reusedOnce();
    svc.clock.advance(16 * 60_000);
    const afterExpiry = await create(expired.body, expired.creds);
    assert.equal(afterExpiry.status, 200);
    assert.equal(afterExpiry.body.data.id, expired.paymentId);
    assert.equal(await countPayments(expired.creds.merchantId), 1);
  });

  it("refuses the key with another body (422), before and after the payment closed", async () => {
    const { creds, body, paymentId } = await reusedOnce();
    for (const other of [
      { ...body, description: "another order" },
      { ...body, amount: "1001.00" },
      { ...body, customerBankAccountNumber: freshAccount() },
    ]) {
      const answer = await create(other, creds);
      assert.equal(answer.status, 422, JSON.stringify(other));
      assert.equal(answer.body.error.code, "IDEMPOTENCY_KEY_MISMATCH");
    }
    await simulate(paymentId, creds);
    const after = await create({ ...body, amount: "1001.00" }, creds);
    assert.equal(after.status, 422);
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("binds one key once when concurrent creates with it are answered by reuse", async () => {
    const creds = await svc.newMerchant();
    const who = customer();
    const first = await create(validBody(who), creds);
    const body = validBody({ ...who, idempotencyKey: unique("k") });
    const results = await Promise.all(Array.from({ length: 12 }, () => create(body, creds)));
    assert.ok(
      results.every((r) => r.status === 200),
      results.map((r) => r.status).join(),
    );
    assert.ok(results.every((r) => r.body.data.id === first.body.data.id));
    // One bound the key, the others replayed the binding: every answer says reused.
    assert.ok(results.every((r) => r.headers["satang-payment-reused"] === "true"));
    await simulate(first.body.data.id, creds);
    const retries = await Promise.all(Array.from({ length: 12 }, () => create(body, creds)));
    assert.ok(retries.every((r) => r.status === 200 && r.body.data.id === first.body.data.id));
    assert.ok(retries.every((r) => r.headers["satang-payment-reused"] === "true"));
    assert.equal(await countPayments(creds.merchantId), 1);
  });

  it("binds no generated key: a create without one is answered by reuse and leaves nothing behind", async () => {
    const creds = await svc.newMerchant();
    const who = customer();
    await create(validBody(who), creds);
    assert.equal((await create(validBody(who), creds)).status, 200);
    const bound = await svc.deps.db
      .selectFrom("payment_key_aliases")
      .select((eb) => eb.fn.countAll<bigint>().as("n"))
      .where("merchant_id", "=", creds.merchantId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(bound.n), 0);
  });

  it("casts each column of the guarded insert to the store's own type for it", async () => {
    const names = Object.keys(paymentColumnTypes);
    const types = Object.values(paymentColumnTypes);
    const { rows } = await sql<{ name: string; declared: string; stored: string | null }>`
      select wanted.name, wanted.type::regtype::text as declared, format_type(a.atttypid, a.atttypmod) as stored
      from unnest(${names}::text[], ${types}::text[]) as wanted (name, type)
      left join pg_attribute a on a.attrelid = 'payments'::regclass and a.attname = wanted.name
        and not a.attisdropped`.execute(svc.deps.db);
    assert.equal(rows.length, names.length);
    for (const row of rows) assert.equal(row.stored, row.declared, row.name);
  });

  it("leaves another merchant's same key alone", async () => {
    const { body } = await reusedOnce();
    const other = await svc.newMerchant();
    const answer = await create(body, other);
    assert.equal(answer.status, 201);
  });
});
