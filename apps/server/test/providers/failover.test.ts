/**
 * Failover between connectors (CONTRACT 15, docs/providers/routing.md), end to end in live mode
 * with `SATANG_PROVIDER=scb,opn` against both local simulators: SCB goes down, the reconciler's
 * questions to SCB fail and open SCB's breaker within its bound, new PromptPay payments are then
 * made by Opn (each once, however many concurrent creates share a key), SCB's open payment stays
 * with SCB and is confirmed when SCB comes back, and SCB takes new payments again after the
 * breaker's cool-down.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { CONNECTOR_BREAKER_COOLDOWN_MS, CONNECTOR_BREAKER_FAILURES_MAX } from "../../src/lib/limits.ts";
import { reconcileCollectionsOnce } from "../../src/lifecycle/collections.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { createPayment, ledgerKinds, paymentBody } from "../helpers/lifecycle.ts";
import { OPN_CALLBACK_TOKEN, OPN_SECRET_KEY, opnEnv } from "../helpers/opn/live.ts";
import { OpnSimulator } from "../helpers/opn/simulator.ts";
import { type LiveScb, RECONCILE_INTERVAL_S, startLiveScb } from "../helpers/scb/live.ts";
import type { SimOperation } from "../helpers/scb/simulator.ts";

let live: LiveScb;
let opn: OpnSimulator;

before(async () => {
  opn = await OpnSimulator.start({ secretKey: OPN_SECRET_KEY });
  live = await startLiveScb({ env: { SATANG_PROVIDER: "scb,opn", ...opnEnv(opn) } });
  const { port } = live.svc.app.server.address() as AddressInfo;
  opn.webhookUrl = `http://127.0.0.1:${port}/providers/opn/confirmations/${OPN_CALLBACK_TOKEN}`;
});
after(async () => {
  await live?.close();
  await opn?.close();
});

const SCB_CALLS: SimOperation[] = ["token", "bill_payment_inquiry", "slip_verification"];

function scbDown(): void {
  for (const operation of SCB_CALLS) {
    live.sim.failNext(
      operation,
      { kind: "answer", httpStatus: 503, code: 9500, description: "Service unavailable" },
      1_000,
    );
  }
}

async function connectorOf(paymentId: string) {
  return live.svc.deps.db
    .selectFrom("payments")
    .select(["provider", "collection_reference", "amount_satang", "status"])
    .where("id", "=", paymentId)
    .executeTakeFirstOrThrow();
}

/** The breaker state /readyz shows the operator for one connector. */
async function breakerState(name: string): Promise<string | undefined> {
  const ready = await live.svc.app.inject({ method: "GET", url: "/readyz" });
  const connectors = ready.json().data.connectors as { name: string; breaker: string }[];
  return connectors.find((c) => c.name === name)?.breaker;
}

describe("failover from SCB to Opn", () => {
  const scbPayments: string[] = [];

  it("gives new payments to SCB first while it is healthy", async () => {
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) {
      const payment = await createPayment(live.svc, live.merchant, { amount: "50000.00" });
      assert.equal((await connectorOf(payment.id)).provider, "scb");
      scbPayments.push(payment.id);
    }
    assert.equal(opn.charges.size, 0);
    assert.equal(await breakerState("scb"), "closed");
  });

  it("opens SCB's breaker from the reconciler's failed questions, within its bound", async () => {
    scbDown();
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await breakerState("scb"), "open");
    for (const id of scbPayments) assert.equal((await connectorOf(id)).status, "requires_action");
  });

  it("makes new payments with Opn while SCB is skipped, each once for concurrent creates with one key", async () => {
    const key = `failover-${Date.now()}`;
    const body = paymentBody({ amount: "50000.00", idempotencyKey: key });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        live.svc.request("POST", "/api/v1/payments", body, { credentials: live.merchant }),
      ),
    );
    for (const res of answers) assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
    const ids = new Set(answers.map((res) => res.body.data.id));
    assert.equal(ids.size, 1, "one payment");
    const [id] = ids as Set<string>;
    assert.equal((await connectorOf(id!)).provider, "opn");
    const charges = [...opn.charges.values()].filter((c) => c.metadata.satang_payment_id === id);
    assert.equal(charges.length, 1, "one Opn charge");
    assert.ok(answers[0]!.body.data.nextAction.qrImageUrl, "Opn's QR image");

    await opn.pay(charges[0]!.id);
    assert.equal((await connectorOf(id!)).status, "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, id!), ["payment_succeeded"]);
  });

  it("confirms SCB's open payment through SCB when SCB comes back: made payments stay with their connector", async () => {
    live.sim.clearFailures();
    const row = await connectorOf(scbPayments[0]!);
    await live.sim.pay({ ref1: row.collection_reference as string, amountSatang: row.amount_satang });
    // SCB's confirmation arrives at once; what SCB's inquiry could not show is asked again.
    for (let i = 0; i < 5 && (await connectorOf(scbPayments[0]!)).status !== "succeeded"; i += 1) {
      live.advance(60_000);
      await reconcileCollectionsOnce(live.svc.deps);
    }
    const after = await connectorOf(scbPayments[0]!);
    assert.equal(after.status, "succeeded");
    assert.equal(after.provider, "scb");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, scbPayments[0]!), ["payment_succeeded"]);
  });

  it("gives new payments to SCB again after the breaker's cool-down", async () => {
    live.advance(CONNECTOR_BREAKER_COOLDOWN_MS + 1_000);
    const payment = await createPayment(live.svc, live.merchant, { amount: "50000.00" });
    assert.equal((await connectorOf(payment.id)).provider, "scb");
    assert.equal(await breakerState("scb"), "closed");
    await assertLedgerConsistent(live.svc.deps.db);
  });
});
