/**
 * `satang scb exchanges|exchange|payment`: what SCB was asked and answered, and a payment found
 * by its ref1, through the operator API of a live SCB service (against the local simulator)
 * listening in this test process. The commands run through `runCli`, as the entry point runs
 * them.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { dispatchPendingWithdraws } from "../../src/lifecycle/payouts.ts";
import { partnerTransactionId } from "../../src/providers/scb/references.ts";
import { type CliRun, runSatangCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { createPayment, createWithdraw } from "../helpers/lifecycle.ts";
import { type LiveScb, startLiveScb } from "../helpers/scb/live.ts";

let live: LiveScb;
let target: string[] = [];

before(async () => {
  live = await startLiveScb();
  await fundWallet(live.svc.deps, live.merchant.merchantId, 10_000_000n);
  const port = (live.svc.app.server.address() as AddressInfo).port;
  target = ["--url", `http://127.0.0.1:${port}`, "--token", ADMIN_TOKEN];
});
after(async () => {
  await live.close();
});

function satang(args: string[]): Promise<CliRun> {
  return runSatangCli([...args, ...target]);
}

async function paidPayment() {
  const payment = await createPayment(live.svc, live.merchant, { amount: "777.00" });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select(["collection_reference", "amount_satang"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  const ref1 = row.collection_reference as string;
  const paid = await live.sim.pay({ ref1, amountSatang: row.amount_satang });
  return { payment, ref1, paid };
}

describe("satang scb", () => {
  it("exchanges --payment lists a payment's confirmation and inquiry, as JSON and as text", async () => {
    const { payment, ref1, paid } = await paidPayment();
    const json = await satang(["scb", "exchanges", "--payment", payment.id, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout);
    assert.deepEqual(list.data.map((e: { operation: string }) => e.operation).sort(), [
      "bill_payment_inquiry",
      "payment_confirmation",
    ]);
    assert.equal(list.total, 2);

    const text = await satang(["scb", "exchanges", "--payment", payment.id]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /inbound\s+payment_confirmation\s+POST \/providers\/scb\/confirmations\//);
    assert.match(text.stdout, /outbound\s+bill_payment_inquiry\s+GET \/v1\/payment\/billpayment\/inquiry/);
    assert.match(text.stdout, new RegExp(`ref1 ${ref1}`));
    assert.match(text.stdout, /\(page 1 of 1, 2 in all\)/);

    const one = list.data.find((e: { operation: string }) => e.operation === "payment_confirmation");
    const shown = await satang(["scb", "exchange", one.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`"transactionId": "${paid.transactionId}"`));

    const byReference = await satang(["scb", "exchanges", "--reference", ref1, "--json"]);
    assert.equal(JSON.parse(byReference.stdout).total, 2);
  });

  it("exchanges --withdraw lists a transfer's initiate, confirm and inquiry", async () => {
    const withdraw = await createWithdraw(live.svc, live.merchant, {
      amount: "900.00",
      customerBankCode: "014",
      customerBankAccountNumber: "5556667778",
    });
    await dispatchPendingWithdraws(live.svc.deps);
    const run = await satang(["scb", "exchanges", "--withdraw", withdraw.id, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      JSON.parse(run.stdout)
        .data.map((e: { operation: string }) => e.operation)
        .sort(),
      ["credit_confirm", "credit_initiate", "transfer_inquiry"],
    );
    const byPartner = await satang([
      "scb",
      "exchanges",
      "--reference",
      partnerTransactionId(withdraw.id),
      "--json",
    ]);
    assert.deepEqual(
      JSON.parse(byPartner.stdout).data.map((e: { operation: string }) => e.operation),
      ["credit_initiate"],
    );
  });

  it("payment REF1 shows the payment and its merchant; an unknown reference exits 1", async () => {
    const { payment, ref1 } = await paidPayment();
    const json = await satang(["scb", "payment", ref1, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const found = JSON.parse(json.stdout);
    assert.equal(found.id, payment.id);
    assert.equal(found.merchantId, live.merchant.merchantId);

    const text = await satang(["scb", "payment", ref1]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`Payment ${payment.id}`));
    assert.match(text.stdout, new RegExp(`merchant\\s+${live.merchant.merchantId}`));
    assert.match(text.stdout, /status\s+succeeded/);

    const missing = await satang(["scb", "payment", "NOSUCHREF1"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RESOURCE_NOT_FOUND/);
  });

  it("refuses a malformed filter before calling the server", async () => {
    const run = await satang(["scb", "exchanges", "--page", "x"]);
    assert.equal(run.code, 2);
  });

  it("report --date prints the day's figures in THB, and the API's data with --json", async () => {
    const { paid } = await paidPayment();
    const day = paid.transactionDateandTime.slice(0, 10);
    const text = await satang(["scb", "report", "--date", day]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${day} \\(Asia/Bangkok\\), amounts in THB`));
    assert.match(text.stdout, /^credited +[1-9][0-9]* +[0-9.]+ THB$/m);
    const json = await satang(["scb", "report", "--date", day, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const data = JSON.parse(json.stdout);
    assert.equal(data.date, day);
    assert.ok(data.credited.count >= 1);
    const bad = await satang(["scb", "report", "--date", "15/01/2026"]);
    assert.notEqual(bad.code, 0);
  });
});
