/**
 * The matching-payout guard (interface.md "Create withdraw" rule 4, CONTRACT 7).
 *
 * Two payouts of one merchant match when their amounts are equal and their account holder
 * names are more than 90% similar (lib/similarity.ts: lowercase, whitespace and punctuation
 * removed, 1 - Levenshtein / longer length, in code points). The bank account number plays no
 * part, so sending the same payout to a second account of the same person is still caught.
 *
 * A match blocks a new payout when it is open (awaiting_verification, pending, processing),
 * whatever its age, or when it was created less than 15 minutes ago (business time) in any
 * status. An open match is reported first (`active_payout`); otherwise the terminal matches
 * are `recent_payout` and `retryAfter` is the end of the latest one's window, the moment the
 * request can succeed.
 *
 * The guard runs under the merchant's wallet lock (withdraws/admission.ts), so two matching
 * requests cannot both pass it.
 */

import type { PayoutGuardBlock } from "../lib/error-metadata.ts";
import { AppError } from "../lib/errors.ts";
import { namesSimilarAbove } from "../lib/similarity.ts";
import { ACTIVE_WITHDRAW_STATUSES, ENDED_WITHDRAW_STATUSES, isActive } from "./statuses.ts";
import type { GuardCandidate, GuardQuery } from "./store.ts";

/** How long a payout blocks a matching one after its creation, whatever became of it. */
export const PAYOUT_GUARD_WINDOW_MS = 15 * 60_000;
/** Names match when their similarity is strictly above this. */
const PAYOUT_GUARD_SIMILARITY_MIN = 0.9;

/** What blocked the payout: the STATE_CONFLICT metadata (retryAfter only for recent_payout). */
type GuardBlock = PayoutGuardBlock;

function namesMatch(a: string, b: string): boolean {
  return namesSimilarAbove(a, b, PAYOUT_GUARD_SIMILARITY_MIN);
}

/**
 * Decides from candidates that already have the same amount. Pure, so the rule can be tested
 * without a database. `candidates` come newest first.
 */
export function decideGuard(candidates: GuardCandidate[], name: string, now: Date): GuardBlock | undefined {
  const recentSince = now.getTime() - PAYOUT_GUARD_WINDOW_MS;
  const matches = candidates.filter((c) => namesMatch(c.bank_account_name, name));
  const newestFirst = [...matches].sort(
    (a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1),
  );
  const active = newestFirst.find((c) => isActive(c.status));
  if (active) {
    return { existingWithdrawId: active.id, existingWithdrawStatus: active.status, reason: "active_payout" };
  }
  const recent = newestFirst.find((c) => c.created_at.getTime() > recentSince);
  if (!recent) return undefined;
  return {
    existingWithdrawId: recent.id,
    existingWithdrawStatus: recent.status,
    reason: "recent_payout",
    retryAfter: new Date(recent.created_at.getTime() + PAYOUT_GUARD_WINDOW_MS).toISOString(),
  };
}

export function guardError(block: GuardBlock): AppError {
  const message =
    block.reason === "active_payout"
      ? `A matching payout (same amount, similar account holder name) is still ${block.existingWithdrawStatus}`
      : `A matching payout (same amount, similar account holder name) was created less than 15 minutes ago; retry after ${block.retryAfter}`;
  return new AppError("STATE_CONFLICT", message, { ...block });
}

/** What the guard reads for a payout at `now`: same amount, open or created in the window. */
export function guardQuery(payout: { merchantId: string; amountSatang: bigint; now: Date }): GuardQuery {
  return {
    merchantId: payout.merchantId,
    amountSatang: payout.amountSatang,
    activeStatuses: ACTIVE_WITHDRAW_STATUSES,
    endedStatuses: ENDED_WITHDRAW_STATUSES,
    recentSince: new Date(payout.now.getTime() - PAYOUT_GUARD_WINDOW_MS),
  };
}
