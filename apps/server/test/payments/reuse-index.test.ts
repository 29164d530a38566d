/**
 * PromptPay reuse decided by the unique index payments_promptpay_reuse (migration 0095): a
 * default merchant's create (reuse on) is the one grouped INSERT, and the create that finds
 * the customer's and amount's slot taken reads the open payment. A slotted payment past its
 * `expiresAt` does not hold the slot: waiting for the customer it is expired by the create
 * (once, however many race), in a status that does not expire it gives the slot up. A
 * merchant that turns reuse on finds the payments it made with reuse off. Both stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { signedCreate } from "../helpers/signed.ts";
import { statementsOf } from "../helpers/statements.ts";

let sequence = 0;
const account = () => String(2_000_000_000 + ++sequence);
const paymentBody = (customerBankAccountNumber: string, overrides: Record<string, unknown> = {}) => {
  sequence += 1;
  return JSON.stringify({
    amount: "250.00",
    referenceId: `reuse-index-${sequence}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber,
    customerBankCode: "004",
    ...overrides,
  });
};

describe("PromptPay reuse by unique index", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await svc.newMerchant(); // defaults: reuse on
  });
  after(async () => {
    await svc?.close();
  });

  const create = (body: string, credentials = merchant) => svc.app.inject(signedCreate(credentials, body));
  const paymentsOf = async (customer: string, merchantId = merchant.merchantId) =>
    (
      await sql<{ id: string; status: string; reuse_slot: boolean | null }>`select id, status, reuse_slot
        from payments where merchant_id = ${merchantId} and customer_bank_account_number = ${customer}
        order by created_at, status = 'requires_action', id`.execute(svc.deps.db)
    ).rows;
  const expiredEvents = async (paymentId: string) =>
    Number(
      (
        await sql<{ n: bigint }>`select count(*)::bigint as n from events
          where object_id = ${paymentId} and type = 'payment.expired'`.execute(svc.deps.db)
      ).rows[0]!.n,
    );
  const setPayment = (id: string, changes: { status?: string; expiresAt?: Date }) =>
    sql`update payments set status = coalesce(${changes.status ?? null}, status),
      expires_at = coalesce(${changes.expiresAt ?? null}::timestamptz, expires_at) where id = ${id}`.execute(
      svc.deps.db,
    );

  it("creates a default merchant's payment in one statement, with no lock and no BEGIN", async () => {
    await create(paymentBody(account())); // warm-up: the key is in the auth cache
    const { result, statements } = await statementsOf(() => create(paymentBody(account())));
    assert.equal(result.statusCode, 201, result.body);
    assert.equal(statements.length, 1, statements.join("\n"));
    assert.match(statements[0]!, /insert into "payments"/);
    assert.doesNotMatch(statements.join("\n"), /advisory/);
  });

  it("reuses the open payment (200, the header, the body as created) and stores nothing new", async () => {
    const customer = account();
    const first = await create(paymentBody(customer));
    assert.equal(first.statusCode, 201, first.body);
    const second = await create(paymentBody(customer));
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.headers["satang-payment-reused"], "true");
    assert.equal(second.headers["idempotent-replayed"], undefined);
    assert.deepEqual(second.json(), first.json());
    assert.deepEqual(
      (await paymentsOf(customer)).map((p) => p.id),
      [first.json().data.id],
    );
  });

  it("answers a reuse with the INSERT and one read: no transaction, nothing written", async () => {
    const customer = account();
    assert.equal((await create(paymentBody(customer))).statusCode, 201);
    const { result, statements } = await statementsOf(() => create(paymentBody(customer)));
    assert.equal(result.statusCode, 200, result.body);
    assert.equal(result.headers["satang-payment-reused"], "true");
    assert.equal(statements.length, 2, statements.join("\n"));
    assert.match(statements[0]!, /insert into "payments"/);
    assert.match(statements[1]!, /^select .* union all/);
  });

  it("expires a slotted payment past its expiresAt that the job has not expired, and creates anew", async () => {
    const customer = account();
    const first = (await create(paymentBody(customer))).json().data.id as string;
    await setPayment(first, { expiresAt: new Date(svc.clock.now().getTime() - 1000) });
    const second = await create(paymentBody(customer));
    assert.equal(second.statusCode, 201, second.body);
    assert.notEqual(second.json().data.id, first);
    const rows = await paymentsOf(customer);
    assert.deepEqual(
      rows.map((p) => p.status),
      ["expired", "requires_action"],
    );
    assert.equal(await expiredEvents(first), 1, "the expiry is the transition's, with its event");
  });

  it("expires such a payment once when twenty creates race for it, and reuses the one new payment", async () => {
    const customer = account();
    const first = (await create(paymentBody(customer))).json().data.id as string;
    await setPayment(first, { expiresAt: new Date(svc.clock.now().getTime() - 1000) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(paymentBody(customer))));
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [...Array(19).fill(200), 201],
      answers.map((a) => a.body).join("\n"),
    );
    assert.equal(new Set(answers.map((a) => a.json().data.id)).size, 1);
    assert.equal((await paymentsOf(customer)).length, 2);
    assert.equal(await expiredEvents(first), 1);
  });

  it("a processing payment past its expiresAt gives up its slot and stays processing; the new one is reused", async () => {
    const customer = account();
    const first = (await create(paymentBody(customer))).json().data.id as string;
    await setPayment(first, { status: "processing", expiresAt: new Date(svc.clock.now().getTime() - 1000) });
    const second = await create(paymentBody(customer));
    assert.equal(second.statusCode, 201, second.body);
    const third = await create(paymentBody(customer));
    assert.equal(third.statusCode, 200, third.body);
    assert.equal(third.json().data.id, second.json().data.id);
    assert.deepEqual(
      (await paymentsOf(customer)).map((p) => [p.status, p.reuse_slot]),
      [
        ["processing", null],
        ["requires_action", true],
      ],
    );
  });

  it("a status change out of the open statuses frees the slot: a canceled payment is not reused", async () => {
    const customer = account();
    const first = await create(paymentBody(customer));
    await svc.request("POST", `/api/v1/payments/${first.json().data.id}/cancel`, undefined, {
      credentials: merchant,
    });
    assert.equal((await create(paymentBody(customer))).statusCode, 201);
  });

  it("a merchant that turns reuse on reuses the newest open payment it made with reuse off", async () => {
    const toggled = await svc.newMerchant({ promptpayReuse: false });
    const customer = account();
    const older = await create(paymentBody(customer), toggled);
    svc.clock.advance(1000);
    const newer = await create(paymentBody(customer), toggled);
    assert.deepEqual([older.statusCode, newer.statusCode], [201, 201]);
    const on = await svc.admin("PATCH", `/admin/v1/merchants/${toggled.merchantId}`, {
      promptpayReuse: true,
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const again = await create(paymentBody(customer), toggled);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.id, newer.json().data.id);
  });

  /** Two open payments of one customer and amount made with reuse off, then reuse turned on. */
  const twoOpenThenReuseOn = async () => {
    const toggled = await svc.newMerchant({ promptpayReuse: false });
    const customer = account();
    const older = (await create(paymentBody(customer), toggled)).json().data.id;
    svc.clock.advance(1000);
    const newer = (await create(paymentBody(customer), toggled)).json().data.id;
    await svc.admin("PATCH", `/admin/v1/merchants/${toggled.merchantId}`, { promptpayReuse: true });
    return { toggled, customer, older: older as string, newer: newer as string };
  };

  it("passes the slot to an older open payment made with reuse off when the slotted one closes", async () => {
    const { toggled, customer, older, newer } = await twoOpenThenReuseOn();
    const canceled = await svc.request("POST", `/api/v1/payments/${newer}/cancel`, undefined, {
      credentials: toggled,
    });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    // The older one is still open: the customer keeps one valid QR code for the amount.
    const again = await create(paymentBody(customer), toggled);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.id, older);
    assert.equal(again.headers["satang-payment-reused"], "true");
    // Once it closes too, a create makes a new payment.
    await svc.request("POST", `/api/v1/payments/${older}/cancel`, undefined, { credentials: toggled });
    assert.equal((await create(paymentBody(customer), toggled)).statusCode, 201);
  });

  it("hands the slot over while creates race the cancel of the slotted payment: none makes a second one", async () => {
    const { toggled, customer, older, newer } = await twoOpenThenReuseOn();
    const [canceled, ...answers] = await Promise.all([
      svc.request("POST", `/api/v1/payments/${newer}/cancel`, undefined, { credentials: toggled }),
      ...Array.from({ length: 10 }, () => create(paymentBody(customer), toggled)),
    ]);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200, answer.body);
      assert.ok([older, newer].includes(answer.json().data.id), answer.body);
    }
    const open = (await paymentsOf(customer, toggled.merchantId)).filter(
      (p) => p.status === "requires_action",
    );
    assert.deepEqual(
      open.map((p) => [p.id, p.reuse_slot]),
      [[older, true]],
    );
  });

  it("passes the slot over a payment made while reuse was off, and past waiters whose expiresAt passed", async () => {
    const shop = await svc.newMerchant();
    const customer = account();
    const first = (await create(paymentBody(customer), shop)).json().data.id;
    await svc.admin("PATCH", `/admin/v1/merchants/${shop.merchantId}`, { promptpayReuse: false });
    svc.clock.advance(1000);
    const stale = (await create(paymentBody(customer), shop)).json().data.id;
    svc.clock.advance(1000);
    const made = (await create(paymentBody(customer), shop)).json().data.id;
    await svc.admin("PATCH", `/admin/v1/merchants/${shop.merchantId}`, { promptpayReuse: true });
    // The first still holds the slot; the two made with reuse off wait for it.
    assert.equal((await create(paymentBody(customer), shop)).json().data.id, first);
    await setPayment(stale, { expiresAt: new Date(svc.clock.now().getTime() - 1) });
    await svc.request("POST", `/api/v1/payments/${first}/cancel`, undefined, { credentials: shop });
    const again = await create(paymentBody(customer), shop);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.id, made);
    // The newest waiter took the slot; the stale one is expired when its turn comes.
    await svc.request("POST", `/api/v1/payments/${made}/cancel`, undefined, { credentials: shop });
    const fresh = await create(paymentBody(customer), shop);
    assert.equal(fresh.statusCode, 201, fresh.body);
    assert.equal(await expiredEvents(stale), 1);
    const open = (await paymentsOf(customer, shop.merchantId)).filter((p) => p.status === "requires_action");
    assert.deepEqual(
      open.map((p) => [p.id, p.reuse_slot]),
      [[fresh.json().data.id, true]],
    );
  });

  it("a merchant with reuse off makes a payment per create for one customer and amount", async () => {
    const off = await svc.newMerchant({ promptpayReuse: false });
    const customer = account();
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(paymentBody(customer), off)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      Array(5).fill(201),
    );
    const rows = await paymentsOf(customer, off.merchantId);
    assert.equal(rows.length, 5);
    assert.ok(rows.every((p) => p.reuse_slot === null));
  });
});
