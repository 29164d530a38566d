/**
 * Queries served by a partial index write the index's fixed values into their text (db/fixed-sets.ts),
 * so a named statement's generic plan can still prove the index's predicate: the payout guard
 * (withdraws_active_amount) and the PromptPay reuse lookup (payments_promptpay_reuse). Checked on
 * the SQL the service sends; bench R6 measures what a parameter there costs (a merchant's whole
 * history read by the guard).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findSlottedPromptPay } from "../../src/payments/store.ts";
import { ACTIVE_WITHDRAW_STATUSES, ENDED_WITHDRAW_STATUSES } from "../../src/withdraws/statuses.ts";
import { findGuardCandidates } from "../../src/withdraws/store.ts";
import { recordingDb } from "../helpers/recording-db.ts";

describe("partial-index predicates written as literals", () => {
  it("the payout guard names the open statuses of withdraws_active_amount in its text", async () => {
    const { db, sent } = recordingDb();
    await findGuardCandidates(db, {
      merchantId: "00000000-0000-4000-8000-000000000001",
      amountSatang: 10n,
      activeStatuses: ACTIVE_WITHDRAW_STATUSES,
      endedStatuses: ENDED_WITHDRAW_STATUSES,
      recentSince: new Date(0),
    });
    assert.match(sent[0]!.sql, /"status" in \('awaiting_verification', 'pending', 'processing'\)/);
    assert.match(sent[0]!.sql, /"status" in \('paid', 'failed', 'canceled', 'expired'\)/);
    for (const status of [...ACTIVE_WITHDRAW_STATUSES, ...ENDED_WITHDRAW_STATUSES]) {
      assert.ok(!sent[0]!.parameters.includes(status), status);
    }
  });

  it("the PromptPay reuse lookup names the slot and open statuses of payments_promptpay_reuse", async () => {
    const { db, sent } = recordingDb();
    await findSlottedPromptPay(db, {
      merchantId: "00000000-0000-4000-8000-000000000001",
      bankCode: "014",
      accountNumber: "1234567890",
      amountSatang: 100n,
    });
    assert.match(sent[0]!.sql, / and reuse_slot /);
    assert.match(
      sent[0]!.sql,
      /"status" in \('requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture'\)/,
    );
    assert.ok(!sent[0]!.parameters.includes(true));
  });
});
