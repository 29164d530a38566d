/**
 * PromptPay reuse across processes (CONTRACT 1 and 6): concurrent creates of one customer and
 * amount sent round-robin to two server processes on one PostgreSQL database end with one
 * payment, the others answered 200 with Satang-Payment-Reused and that payment's body. The
 * unique index payments_promptpay_reuse decides it (migration 0095); a slotted payment past
 * its expiresAt is expired exactly once, by whichever create reaches it first.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { sql } from "kysely";
import { type Cluster, signedFetch, startCluster } from "../helpers/cluster.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { describeOnPostgres } from "../helpers/store.ts";

const BUSINESS_TIME = Date.UTC(2026, 2, 14, 12, 0, 0);
const REQUESTS = 40;

let sequence = 0;
const bodyFor = (customerBankAccountNumber: string) => ({
  amount: "321.00",
  referenceId: `reuse-cluster-${++sequence}`,
  paymentMethod: "promptpay",
  customerBankAccountName: "Somchai Jaidee",
  customerBankAccountNumber,
  customerBankCode: "004",
});

describeOnPostgres("PromptPay reuse across two server processes", () => {
  let svc: TestService;
  let cluster: Cluster;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    svc.clock.set(BUSINESS_TIME);
    const databaseUrl = svc.store.databaseUrl;
    if (!databaseUrl) throw new Error("the multi-process tests need PostgreSQL");
    cluster = await startCluster(databaseUrl, BUSINESS_TIME, 2);
    merchant = await svc.newMerchant(); // defaults: reuse on
  });
  after(async () => {
    await cluster?.close();
    await svc?.close();
  });

  const burst = (customer: string) =>
    Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        signedFetch(
          cluster.urls[i % cluster.urls.length]!,
          merchant,
          "POST",
          "/api/v1/payments",
          bodyFor(customer),
        ),
      ),
    );
  const paymentsOf = async (customer: string) =>
    (
      await sql<{ id: string; status: string }>`select id, status from payments
        where merchant_id = ${merchant.merchantId} and customer_bank_account_number = ${customer}`.execute(
        svc.deps.db,
      )
    ).rows;

  it(`${REQUESTS} concurrent creates for one customer and amount make one payment; the rest reuse it`, async () => {
    const customer = "3000000001";
    const answers = await burst(customer);
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [...Array(REQUESTS - 1).fill(200), 201],
      JSON.stringify(answers.filter((a) => a.status >= 300).map((a) => a.body)),
    );
    const created = answers.find((a) => a.status === 201)!;
    for (const answer of answers.filter((a) => a.status === 200)) {
      assert.equal(answer.headers.get("satang-payment-reused"), "true");
      assert.deepEqual(answer.body, created.body);
    }
    assert.equal((await paymentsOf(customer)).length, 1);
  });

  it("a slotted payment past its expiresAt is expired once; one new payment, the rest reuse it", async () => {
    const customer = "3000000002";
    const first = await signedFetch(
      cluster.urls[0]!,
      merchant,
      "POST",
      "/api/v1/payments",
      bodyFor(customer),
    );
    assert.equal(first.status, 201);
    await sql`update payments set expires_at = ${new Date(BUSINESS_TIME - 1000)}
      where id = ${first.body.data.id}`.execute(svc.deps.db);
    const answers = await burst(customer);
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [...Array(REQUESTS - 1).fill(200), 201],
      JSON.stringify(answers.filter((a) => a.status >= 300).map((a) => a.body)),
    );
    assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
    const rows = await paymentsOf(customer);
    assert.deepEqual(rows.map((p) => p.status).sort(), ["expired", "requires_action"]);
    const events = await sql<{ n: bigint }>`select count(*)::bigint as n from events
      where object_id = ${first.body.data.id} and type = 'payment.expired'`.execute(svc.deps.db);
    assert.equal(Number(events.rows[0]!.n), 1);
  });
});
