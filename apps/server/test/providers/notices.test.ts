/**
 * The one notice route, `POST /providers/{name}/confirmations/{token}`, for a connector other
 * than SCB: Opn's webhook reaches the generic collections flow, which retrieves the charge before
 * anything is credited. An unknown connector name and a wrong token answer 404; a forged webhook
 * and a webhook whose charge Opn does not show paid credit nothing; one Opn charge credits once,
 * however many notices carry it and however many processes receive them.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { buildApp } from "../../src/app.ts";
import { opnConfigFrom } from "../../src/config.ts";
import { createOpnConnector } from "../../src/providers/opn/connector.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { anomaliesOf, createPayment, ledgerKinds } from "../helpers/lifecycle.ts";
import { OpnSimulator, type SimWebhook } from "../helpers/opn/simulator.ts";

const SECRET_KEY = "skey_test_notices0route";
const WEBHOOK_SECRET = Buffer.from("opn-webhook-secret-of-the-notice-tests").toString("base64");
const TOKEN = "opn_token_0123456789abcdefghijklmnopqrstu";

let sim: OpnSimulator;
let svc: TestService;
let merchant: Credentials;

before(async () => {
  sim = await OpnSimulator.start({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  const config = opnConfigFrom({
    OPN_SECRET_KEY: SECRET_KEY,
    OPN_CALLBACK_TOKEN: TOKEN,
    OPN_API_BASE_URL: sim.url,
    OPN_WEBHOOK_SECRET: WEBHOOK_SECRET,
    OPN_TIMEOUT_MS: "20000",
  });
  svc = await startService({
    deps: {
      liveConnectors: ({ db, clock }) => [createOpnConnector(config, { db, clock, payouts: false })],
    },
  });
  merchant = await svc.newMerchant({ settlementDelayHours: 0 });
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
  await sim.close();
});

/** A live PromptPay payment Opn took: its charge id, as the payment row remembers it. */
async function newPayment() {
  const payment = await createPayment(svc, merchant, { paymentMethod: "promptpay", amount: "15050.00" });
  const row = await svc.deps.db
    .selectFrom("payments")
    .select(["provider", "provider_payment_id", "collection_reference"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.provider, "opn");
  assert.ok(row.provider_payment_id);
  assert.ok(sim.charges.has(row.provider_payment_id));
  return { payment, chargeId: row.provider_payment_id };
}

function post(app: TestService["app"], webhook: SimWebhook, path = `/providers/opn/confirmations/${TOKEN}`) {
  return app.inject({ method: "POST", url: path, headers: webhook.headers, payload: webhook.rawBody });
}

async function statusOf(id: string): Promise<string> {
  const row = await svc.deps.db
    .selectFrom("payments")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

const retrievals = (chargeId: string) =>
  sim.requests.filter((r) => r.method === "GET" && r.path === `/charges/${chargeId}`).length;

describe("the notice route", () => {
  it("answers 404 for a connector the deployment does not have, and for a wrong token", async () => {
    const { chargeId } = await newPayment();
    const webhook = await sim.pay(chargeId);
    for (const path of [
      `/providers/nosuch/confirmations/${TOKEN}`,
      `/providers/opn/confirmations/${TOKEN.slice(0, -1)}x`,
      `/providers/opn/confirmations/short`,
    ]) {
      const res = await post(svc.app, webhook, path);
      assert.equal(res.statusCode, 404, path);
    }
    assert.equal(retrievals(chargeId), 0, "nothing is asked for a stranger's post");
  });

  it("confirms a live Opn payment once Opn's charge is retrieved and shows it paid", async () => {
    const { payment, chargeId } = await newPayment();
    const webhook = await sim.pay(chargeId);
    const before = retrievals(chargeId);
    const res = await post(svc.app, webhook);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, data: { received: true } });
    assert.equal(retrievals(chargeId), before + 1, "the charge is retrieved before the payment succeeds");
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
    const confirmation = await svc.deps.db
      .selectFrom("provider_confirmations")
      .select(["status", "result", "reference"])
      .where("provider", "=", "opn")
      .where("transaction_id", "=", chargeId)
      .executeTakeFirstOrThrow();
    assert.equal(confirmation.status, "verified");
    assert.equal(confirmation.result, "applied");
  });

  it("never credits a forged webhook: signed with another secret, or not signed at all", async () => {
    const { payment, chargeId } = await newPayment();
    const charge = { ...sim.charges.get(chargeId)!, status: "successful", paid: true };
    const forged = sim.webhookFor(charge, {
      secret: Buffer.from("not-opns-secret-at-all-0000").toString("base64"),
    });
    const unsigned = { ...forged, headers: { "content-type": "application/json" } };
    for (const webhook of [forged, unsigned]) {
      const res = await post(svc.app, webhook);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
    }
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), []);
    const callbacks = await svc.deps.db
      .selectFrom("provider_callbacks")
      .select("callback_id")
      .where("callback_id", "=", chargeId)
      .execute();
    assert.deepEqual(callbacks, []);
  });

  it("credits nothing on a well-signed claim Opn's charge does not bear out (still pending)", async () => {
    const { payment, chargeId } = await newPayment();
    const claim = sim.webhookFor({ ...sim.charges.get(chargeId)!, status: "successful", paid: true });
    const res = await post(svc.app, claim);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), []);
    assert.deepEqual(await anomaliesOf(svc.deps.db, payment.id), []);
  });

  it("credits one Opn charge once across two notices received by two processes", async () => {
    const { payment, chargeId } = await newPayment();
    const webhook = await sim.pay(chargeId);
    const again = await sim.resend(webhook.eventId);
    const other = await buildApp(svc.depsWith({}));
    await other.ready();
    try {
      const answers = await Promise.all([post(svc.app, webhook), post(other, again), post(other, webhook)]);
      for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    } finally {
      await other.close();
    }
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
    const callbacks = await svc.deps.db
      .selectFrom("provider_callbacks")
      .select("result")
      .where("provider", "=", "opn")
      .where("callback_id", "=", chargeId)
      .execute();
    assert.deepEqual(callbacks, [{ result: "applied" }]);
    const confirmation = await svc.deps.db
      .selectFrom("provider_confirmations")
      .select("deliveries")
      .where("provider", "=", "opn")
      .where("transaction_id", "=", chargeId)
      .executeTakeFirstOrThrow();
    assert.equal(confirmation.deliveries, 3);
  });
});
