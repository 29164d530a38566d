import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { SCB_TOKEN_BACKOFF_MIN_MS } from "../../../src/providers/scb/limits.ts";
import type { ScbPayoutInput } from "../../../src/providers/scb/payouts.ts";
import { partnerTransactionId, withdrawIdOf } from "../../../src/providers/scb/references.ts";
import { SCB_TEST, type ScbRig, startScbRig } from "../../helpers/scb/setup.ts";

const withdraw = (overrides: Partial<ScbPayoutInput> = {}): ScbPayoutInput => ({
  withdrawId: randomUUID(),
  amountSatang: 250_000n,
  destinationType: "bank_account",
  bankCode: "004",
  accountNumber: "9876543210",
  accountName: "Somchai Jaidee",
  ...overrides,
});

async function initiated(rig: ScbRig, input: ScbPayoutInput) {
  const result = await rig.payouts.initiatePayout(input);
  assert.equal(result.status, "initiated", JSON.stringify(result));
  if (result.status !== "initiated") throw new Error("not initiated");
  return {
    tokenizerId: result.tokenizerId,
    initiatedAt: result.initiatedAt,
    amountSatang: input.amountSatang,
  };
}

describe("SCB payout references", () => {
  it("derives a 25-character partner transaction id from the withdraw id and reads it back", () => {
    for (const id of [
      randomUUID(),
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ]) {
      const partner = partnerTransactionId(id);
      assert.match(partner, /^[0-9A-Z]{25}$/);
      assert.equal(partner, partnerTransactionId(id.toUpperCase()), "the same withdraw, the same id");
      assert.equal(withdrawIdOf(partner), id);
    }
    assert.equal(withdrawIdOf("not-one-of-ours"), null);
    assert.equal(withdrawIdOf("Z".repeat(25)), null, "beyond 128 bits");
  });
});

describe("SCB payouts: initiate, confirm, inquiry", () => {
  let rig: ScbRig;
  before(async () => {
    rig = await startScbRig({ timeoutMs: 3_000 });
  });
  after(() => rig.close());

  it("pays another bank's account cross-bank: initiate returns the tokenizer id, confirm and inquiry say paid", async () => {
    const input = withdraw({ amountSatang: 250_050n });
    const initiate = await rig.payouts.initiatePayout(input);
    assert.equal(initiate.status, "initiated");
    if (initiate.status !== "initiated") return;
    assert.equal(initiate.partnerTransactionId, partnerTransactionId(input.withdrawId));
    const transfer = rig.sim.transfers.get(initiate.tokenizerId)!;
    assert.equal(transfer.status, "INITIATE_COMPLETED", "initiate moves no money");
    assert.equal(transfer.executions, 0);
    assert.deepEqual(transfer.payee, {
      name: "Somchai Jaidee",
      accountInfo: { accountNo: "9876543210", bankCode: "004" },
    });
    assert.equal(transfer.amount, 2500.5);
    const body = rig.sim.of("credit_initiate").at(-1)!.body as any;
    assert.equal(body.corporateId, SCB_TEST.payer.corporateId);
    assert.deepEqual(body.payer, {
      taxId: SCB_TEST.payer.taxId,
      accountInfo: { accountNo: SCB_TEST.payer.accountNumber, bankCode: "014" },
    });
    assert.match(body.channelDateTime, /^2026-01-15T12:00:00\.000\+07:00$/);

    const outcome = await rig.payouts.confirmPayout({ ...initiate, amountSatang: input.amountSatang });
    assert.deepEqual(outcome, { status: "paid", scbStatus: "CONFIRM_COMPLETED", amountSatang: 250_050n });
    assert.equal(transfer.executions, 1);
  });

  it("pays an SCB account by direct credit above the cross-bank limit", async () => {
    const direct = await rig.payouts.initiatePayout(
      withdraw({ bankCode: "014", amountSatang: 300_000_000n }),
    );
    assert.equal(direct.status, "initiated");
  });

  it("holds cross-bank and PromptPay transfers to 2,000,000.00 baht", async () => {
    assert.equal(
      (await rig.payouts.initiatePayout(withdraw({ amountSatang: 200_000_000n }))).status,
      "initiated",
    );
    const calls = rig.sim.of("credit_initiate").length;
    const over = await rig.payouts.initiatePayout(withdraw({ amountSatang: 200_000_001n }));
    assert.deepEqual(over, {
      status: "rejected",
      reason: "amount_above_scb_transfer_limit",
      code: null,
      sent: false,
    });
    const wallet = await rig.payouts.initiatePayout(
      withdraw({ destinationType: "wallet", accountNumber: "1103700012345", amountSatang: 200_000_001n }),
    );
    assert.equal(wallet.status, "rejected");
    assert.equal(rig.sim.of("credit_initiate").length, calls, "refused before SCB is called");
  });

  it("pays a wallet by PromptPay to a 13-digit id and refuses other wallets before calling SCB", async () => {
    const input = withdraw({ destinationType: "wallet", accountNumber: "1103700012345" });
    const { tokenizerId } = await initiated(rig, input);
    assert.deepEqual(rig.sim.transfers.get(tokenizerId)!.payee, {
      name: "Somchai Jaidee",
      proxy: { type: "NATID", value: "1103700012345" },
    });
    const calls = rig.sim.of("credit_initiate").length;
    for (const accountNumber of ["0812345678", "123456789012345"]) {
      const result = await rig.payouts.initiatePayout(withdraw({ destinationType: "wallet", accountNumber }));
      assert.deepEqual(result, {
        status: "rejected",
        reason: "wallet_not_supported_by_scb",
        code: null,
        sent: false,
      });
    }
    assert.equal(rig.sim.of("credit_initiate").length, calls);
  });

  it("reports a refused initiate as rejected with SCB's code: no transfer exists to confirm", async () => {
    rig.sim.failNext("credit_initiate", {
      kind: "answer",
      httpStatus: 400,
      code: 8101,
      description: "VF0003 Validation Fail",
    });
    const result = await rig.payouts.initiatePayout(withdraw());
    assert.equal(result.status, "rejected");
    if (result.status === "rejected") {
      assert.equal(result.code, "8101");
      assert.match(result.reason, /VF0003/);
    }
  });

  it("reports an initiate whose answer was lost as unknown, and a second initiate is a new tokenizer for the same partner id", async () => {
    const input = withdraw();
    rig.sim.failNext("credit_initiate", { kind: "timeout_but_execute" });
    const lost = await rig.payouts.initiatePayout(input);
    assert.deepEqual(
      { status: lost.status, sent: lost.status === "unknown" && lost.sent },
      { status: "unknown", sent: true },
    );
    const again = await initiated(rig, input);
    const transfers = rig.sim.transfersOf(partnerTransactionId(input.withdrawId));
    assert.equal(transfers.length, 2, "SCB holds the lost tokenizer too");
    await rig.payouts.confirmPayout(again);
    assert.deepEqual(
      transfers.map((t) => t.executions).sort(),
      [0, 1],
      "only the tokenizer the caller holds is ever confirmed",
    );
  });

  it("reports a confirm whose answer was lost as unknown, to be asked after SCB's delay; the inquiry then says paid", async () => {
    const input = withdraw();
    const held = await initiated(rig, input);
    rig.sim.failNext("credit_confirm", { kind: "timeout_but_execute" });
    const lost = await rig.payouts.confirmPayout(held);
    assert.equal(lost.status, "unknown");
    if (lost.status === "unknown") assert.equal(lost.checkAfterMs, SCB_TEST.inquiryDelayMs);
    const later = await rig.payouts.inquirePayout(held);
    assert.deepEqual(later, {
      status: "paid",
      scbStatus: "CONFIRM_COMPLETED",
      amountSatang: input.amountSatang,
    });
    assert.equal(rig.sim.transfers.get(held.tokenizerId)!.executions, 1);
    assert.equal(rig.sim.transfers.get(held.tokenizerId)!.confirmsReceived, 1);
  });

  it("says not_sent when the confirm never left (no token before its first attempt), so it may be sent again", async () => {
    const held = await initiated(rig, withdraw());
    // The cached token reaches its expiry, and SCB's token endpoint is down: nothing is sent.
    rig.clock.advance(1_800_000);
    rig.sim.failNext("token", { kind: "answer", httpStatus: 503, code: 9999, description: "down" });
    const confirms = rig.sim.of("credit_confirm").length;
    const result = await rig.payouts.confirmPayout(held);
    assert.equal(result.status, "not_sent");
    assert.equal(rig.sim.of("credit_confirm").length, confirms, "no confirm request left");
    rig.clock.advance(SCB_TOKEN_BACKOFF_MIN_MS);
    const retried = await rig.payouts.confirmPayout(held);
    assert.equal(retried.status, "paid");
  });

  it("keeps a confirm refused with 401 uncertain when no new token can be had: never not_sent", async () => {
    const held = await initiated(rig, withdraw());
    rig.sim.expireTokens();
    rig.sim.failNext("token", { kind: "answer", httpStatus: 503, code: 9999, description: "down" });
    const confirms = rig.sim.of("credit_confirm").length;
    const result = await rig.payouts.confirmPayout(held);
    assert.equal(rig.sim.of("credit_confirm").length, confirms + 1, "the confirm reached SCB once");
    assert.equal(result.status, "unknown", JSON.stringify(result));
    if (result.status !== "unknown") return;
    assert.equal(result.checkAfterMs, SCB_TEST.inquiryDelayMs, "the inquiry decides, after SCB's delay");
    assert.match(result.reason, /may have reached SCB/);
    rig.clock.advance(SCB_TOKEN_BACKOFF_MIN_MS);
  });

  it("keeps a pending answer unknown and then accepted while SCB processes, failed when SCB fails it", async () => {
    const held = await initiated(rig, withdraw());
    rig.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    rig.sim.failNext("credit_confirm", {
      kind: "answer",
      httpStatus: 409,
      code: 8101,
      description: "LB9002 Business rule error from legacy - Transaction is pending",
      execute: true,
    });
    const pending = await rig.payouts.confirmPayout(held);
    assert.equal(pending.status, "unknown");
    if (pending.status === "unknown") assert.equal(pending.checkAfterMs, SCB_TEST.inquiryDelayMs);
    assert.deepEqual(await rig.payouts.inquirePayout(held), {
      status: "accepted",
      scbStatus: "CONFIRM_PROCESSING",
    });
    rig.sim.setTransferStatus(held.tokenizerId, "CONFIRM_FAILED", {
      code: "125",
      description: "Invalid Destination Bank",
    });
    assert.deepEqual(await rig.payouts.inquirePayout(held), {
      status: "failed",
      scbStatus: "CONFIRM_FAILED",
      code: "125",
      reason: "SCB failed the transfer (125 Invalid Destination Bank)",
    });
    rig.sim.transferOutcome = { status: "CONFIRM_COMPLETED" };
  });

  it("fails a transfer SCB canceled, and leaves one SCB never confirmed unknown", async () => {
    const canceled = await initiated(rig, withdraw());
    rig.sim.setTransferStatus(canceled.tokenizerId, "CANCELED");
    const outcome = await rig.payouts.inquirePayout(canceled);
    assert.equal(outcome.status, "failed");
    const unconfirmed = await initiated(rig, withdraw());
    const open = await rig.payouts.inquirePayout(unconfirmed);
    assert.deepEqual(
      { status: open.status, scb: open.status === "unknown" ? open.scbStatus : null },
      { status: "unknown", scb: "INITIATE_COMPLETED" },
    );
  });

  it("stays unknown when SCB's inquiry does not know the tokenizer", async () => {
    const outcome = await rig.payouts.inquirePayout({
      tokenizerId: "NOSUCHTOKENIZER",
      initiatedAt: rig.clock.now(),
      amountSatang: 1n,
    });
    assert.equal(outcome.status, "unknown");
    if (outcome.status === "unknown") assert.equal(outcome.checkAfterMs, SCB_TEST.inquiryDelayMs);
  });

  it("does not call a completed transfer paid when SCB shows another amount", async () => {
    const held = await initiated(rig, withdraw({ amountSatang: 10_000n }));
    await rig.payouts.confirmPayout(held);
    const outcome = await rig.payouts.inquirePayout({ ...held, amountSatang: 10_001n });
    assert.equal(outcome.status, "unknown");
  });

  it("asks about a transfer over at most three dates from its initiation, however late", async () => {
    const held = await initiated(rig, withdraw());
    rig.clock.advance(5 * 86_400_000);
    const outcome = await rig.payouts.inquirePayout(held);
    assert.equal(outcome.status === "unknown" && outcome.scbStatus, "INITIATE_COMPLETED");
    const body = rig.sim.of("transfer_inquiry").at(-1)!.body as any;
    assert.deepEqual([body.dateFrom, body.dateTo], ["2026-01-15", "2026-01-17"]);
  });
});
