/**
 * The undecided list (CONTRACT 15) is decided in the merchant's business time (CONTRACT 10), and
 * the age it shows is measured on the same clock: a payout listed past PAYOUT_UNDECIDED_ALERT_S
 * shows at least that many seconds undecided, whatever the merchant's test clock says, and the
 * operator's resolution of it is stamped in that business time too.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";
import { advanceClock, createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

describe("undecided payouts' age", () => {
  it("shows a listed payout at least the alert bound old, on a test clock days ahead", async () => {
    const merchant = await fundedMerchant(svc);
    await advanceClock(svc, merchant, 3 * 24 * 3600);
    const withdraw = await createWithdraw(svc, merchant, { amount: "1234.00" });
    const answer = await simulateWithdrawRequest(svc, merchant, withdraw.id, "indeterminate");
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const listed = async () => {
      const res = await svc.admin("GET", "/admin/v1/payouts/undecided?limit=100");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.data.find((r: { withdrawId: string }) => r.withdrawId === withdraw.id);
    };
    assert.equal(await listed(), undefined, "not undecided long enough yet");
    await advanceClock(svc, merchant, 3700);
    const record = await listed();
    assert.ok(record, "listed once an hour has passed in the merchant's time");
    assert.ok(record.undecidedSeconds >= 3600, `undecidedSeconds ${record.undecidedSeconds}`);
    assert.ok(record.undecidedSeconds < 3800, `undecidedSeconds ${record.undecidedSeconds}`);

    // The operator's resolution is stamped on the same clock as the withdraw it moves.
    const resolved = await svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "the bank's statement shows no transfer",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    const { withdraw: moved, resolution } = resolved.body.data;
    assert.equal(moved.status, "failed");
    assert.equal(resolution.resolvedAt, moved.updatedAt, "one business time for both");
  });
});
