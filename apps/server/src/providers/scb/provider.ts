/**
 * SCB behind the lifecycle's `Provider` interface (providers/provider.ts), for payouts: a send
 * is a credit initiate, the tokenizer id stored (store.ts), then the one credit confirm; a
 * lookup reads what was stored and asks SCB's transfer inquiry.
 *
 * How the interface's promises hold for SCB:
 * - "A send with the same key is the same payout": the key names a withdraw or a refund
 *   (lib/payout-subjects.ts), the partner transaction id is derived from it (a refund's never
 *   equals a withdraw's), one tokenizer id is stored per subject (the first stored wins; another
 *   one is never confirmed), and the confirm is claimed by one conditional update before it
 *   leaves, so a withdraw or refund is confirmed at most once, whatever process sends or
 *   resends it.
 * - `getPayout` answers `not_found` only while no confirm has left: a resend then confirms the
 *   stored tokenizer, or initiates again when none was stored (an initiate moves no money).
 * - An uncertain confirm (no answer, a non-success code) is never sent again: it is asked
 *   about with the inquiry, not before SCB_INQUIRY_DELAY_S, and stays open until SCB says
 *   completed or failed.
 *
 * Payment confirmations are SCB's collection side (collection-port.ts): unsigned claims, which
 * the lifecycle's notice route checks with SCB's inquiry (lifecycle/collections.ts).
 */
import type { Db, Trx } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import { PROVIDER_CALL_TIMEOUT_MS } from "../../lib/limits.ts";
import {
  type PayoutSubject,
  payoutKeyOf,
  payoutSubjectOfKey,
  subjectOfRow,
} from "../../lib/payout-subjects.ts";
import type {
  PayoutCallOptions,
  PayoutEvidence,
  PayoutInput,
  PayoutLookup,
  Provider,
  SendPayoutResult,
} from "../provider.ts";
import type { ScbCollection } from "./collection.ts";
import { SCB_PROVIDER_NAME } from "./names.ts";
import type { PayoutOutcome, ScbPayouts, ScbTransferInput } from "./payouts.ts";
import { partnerTransactionIdOf } from "./references.ts";
import {
  beginInitiate,
  claimConfirm,
  closeTransfer,
  findTransfer,
  hasTokenizer,
  type InitiatedTransfer,
  lastTransferExchanges,
  noteTransfer,
  rejectTransfer,
  releaseConfirm,
  storeTransfer,
  type TransferRow,
  uncountInitiate,
} from "./store.ts";

/**
 * SCB's answer to a confirm that went unanswered: "please inquiry payment status after 45
 * minutes". Before then, a transfer its inquiry shows not confirmed may still be confirmed by a
 * confirm on its way.
 */
export const SCB_CONFIRM_SETTLES_MS = 45 * 60_000;

/** The withdraw or refund a payout key names; a key that names neither is a bug of the caller. */
function subjectOfKey(key: string): PayoutSubject {
  const subject = payoutSubjectOfKey(key);
  if (!subject) throw new Error("an SCB payout key names a withdraw or a refund");
  return subject;
}

/** How many of SCB's last answers about a transfer the operator is shown. */
const EVIDENCE_ANSWERS_MAX = 5;

export interface ScbProviderDeps {
  db: Db;
  /** Real time: SCB's dates and the inquiry delay are bank time. */
  clock: Clock;
  collection: ScbCollection;
  /** Null when SATANG_PAYOUTS=manual: this provider then pays nothing. */
  payouts: ScbPayouts | null;
  /** SCB_RECONCILE_INTERVAL_S: the wait before an open transfer is asked about again. */
  reconcileIntervalMs: number;
}

export class ScbProvider implements Provider {
  readonly name = SCB_PROVIDER_NAME;

  constructor(private readonly deps: ScbProviderDeps) {}

  private payouts(): ScbPayouts {
    if (!this.deps.payouts) throw new Error("payouts through SCB are off (SATANG_PAYOUTS=manual)");
    return this.deps.payouts;
  }

  async sendPayout(input: PayoutInput, options: PayoutCallOptions = {}): Promise<SendPayoutResult> {
    const payouts = this.payouts();
    const { db, clock } = this.deps;
    const signal = options.signal;
    const key = input.idempotencyKey;
    const subject = subjectOfKey(key);
    const existing = await findTransfer(db, subject);
    if (existing && existing.state !== "initiating") return this.continueTransfer(existing, signal);
    const details = {
      amountSatang: input.amountSatang,
      destinationType: input.destinationType,
      bankCode: input.bankCode,
      accountNumber: input.accountNumber,
      accountName: input.accountName,
    };
    const payoutInput: ScbTransferInput =
      subject.kind === "withdraw"
        ? { withdrawId: subject.id, ...details }
        : { refundId: subject.id, ...details };
    // Refused before SCB is called (a destination SCB does not serve): the same for every send
    // of this payout, so no initiate can ever have left.
    const payee = payouts.payeeOf(payoutInput);
    if (!payee.ok && !existing) return { status: "failed", providerReference: key, reason: payee.reason };
    const turn = await beginInitiate(db, {
      subject,
      partnerTransactionId: partnerTransactionIdOf(subject),
      amountSatang: input.amountSatang,
      at: clock.now(),
    });
    if (turn.kind === "initiated") return this.confirm(turn.transfer, signal);
    if (turn.kind === "stop") {
      return turn.transfer
        ? this.continueTransfer(turn.transfer, signal)
        : { status: "indeterminate", error: "the payout is no longer open" };
    }
    const initiated = await payouts.initiatePayout(payoutInput, signal);
    if (initiated.status === "rejected") {
      const final = await rejectTransfer(db, subject, turn.attempt, initiated.reason, clock.now());
      if (final) return { status: "failed", providerReference: key, reason: initiated.reason };
      // An earlier initiate may have reached SCB and its answer never came back: this refusal
      // (SCB's "duplicated" for the reused partner id, most often) says nothing about that one.
      const note = `SCB refused initiate ${turn.attempt} after an earlier one whose answer was lost: ${initiated.reason}`;
      await noteTransfer(db, subject, { lastError: note, at: clock.now(), ofInitiate: turn.attempt });
      return { status: "indeterminate", error: note };
    }
    if (initiated.status === "unknown") {
      if (!initiated.sent) await uncountInitiate(db, subject, turn.attempt, clock.now());
      const note = `initiate ${turn.attempt} undecided: ${initiated.error}`;
      await noteTransfer(db, subject, { lastError: note, at: clock.now(), ofInitiate: turn.attempt });
      return { status: "indeterminate", error: note };
    }
    const stored = await storeTransfer(db, {
      subject,
      tokenizerId: initiated.tokenizerId,
      initiatedAt: initiated.initiatedAt,
    });
    if (!stored) {
      return {
        status: "indeterminate",
        error: "the payout closed while SCB answered the initiate",
      };
    }
    return this.confirm(stored, signal);
  }

  /** A send that finds the transfer past initiating: confirm it, or say what SCB holds. */
  private async continueTransfer(transfer: TransferRow, signal?: AbortSignal): Promise<SendPayoutResult> {
    if (transfer.state === "initiated" && hasTokenizer(transfer) && transfer.confirm_sent_at === null) {
      return this.confirm(transfer, signal);
    }
    const lookup = await this.getPayout(payoutKeyOf(subjectOfRow(transfer)), { signal });
    return lookup.status === "not_found" ? { status: "indeterminate", error: "transfer not found" } : lookup;
  }

  /** Sends the stored tokenizer's one confirm, unless it has left already: then asks about it. */
  private async confirm(transfer: InitiatedTransfer, signal?: AbortSignal): Promise<SendPayoutResult> {
    const { db, clock } = this.deps;
    // Past the send's bound no confirm is claimed: the lifecycle has given this send up.
    if (signal?.aborted)
      return { status: "indeterminate", error: "the send's bound passed before the confirm" };
    const subject = subjectOfRow(transfer);
    const claimed = await claimConfirm(db, subject, clock.now());
    if (!claimed) {
      const lookup = await this.getPayout(payoutKeyOf(subject), { signal });
      return lookup.status === "not_found"
        ? { status: "indeterminate", error: "transfer not found" }
        : lookup;
    }
    const result = await this.payouts().confirmPayout(
      {
        tokenizerId: claimed.tokenizer_id,
        initiatedAt: claimed.initiated_at,
        amountSatang: claimed.amount_satang,
      },
      signal,
    );
    if (result.status === "not_sent") {
      await releaseConfirm(db, subject, claimed.confirm_sent_at!, clock.now());
      return { status: "indeterminate", error: result.reason };
    }
    const answer = await this.book(claimed, result, claimed.confirm_sent_at!);
    return answer.status === "not_found" ? { status: "indeterminate", error: "transfer not found" } : answer;
  }

  /**
   * How long after its confirm was claimed SCB's inquiry is the last word on a transfer: the
   * send that claimed it has stopped (its bound, PROVIDER_CALL_TIMEOUT_MS, has passed, so the
   * confirm left before it or never will), and SCB's own wait has passed: "please inquiry payment
   * status after 45 minutes" (SCB_CONFIRM_SETTLES_MS). A shorter SCB_INQUIRY_DELAY_S asks sooner,
   * and a transfer shown completed is booked paid at once, but an inquiry that shows it not
   * confirmed decides nothing before then: a confirm that left may still reach SCB, held on its
   * way (a proxy, a queue), and be carried out.
   */
  private settledAfterMs(): number {
    return PROVIDER_CALL_TIMEOUT_MS + Math.max(this.payouts().inquiryDelayMs, SCB_CONFIRM_SETTLES_MS);
  }

  async getPayout(idempotencyKey: string, options: PayoutCallOptions = {}): Promise<PayoutLookup> {
    const subject = subjectOfKey(idempotencyKey);
    let transfer = await findTransfer(this.deps.db, subject);
    // The first and only initiate was refused: no tokenizer exists, nothing can be paid.
    if (transfer?.state === "rejected") {
      return {
        status: "failed",
        providerReference: idempotencyKey,
        reason: transfer.last_error ?? "SCB refused the credit initiate",
      };
    }
    // No confirm has left: nothing can have been paid, and a resend is the same transfer.
    if (!transfer?.confirm_sent_at || !hasTokenizer(transfer)) return { status: "not_found" };
    const now = this.deps.clock.now().getTime();
    const waitMs = (transfer.next_inquiry_at?.getTime() ?? 0) - now;
    if (waitMs > 0) {
      return {
        status: "accepted",
        providerReference: transfer.tokenizer_id,
        recheckAfterMs: Math.max(waitMs, this.deps.reconcileIntervalMs),
      };
    }
    // Once the confirm is settled (above), the transfer is closed before SCB is asked: no
    // confirm will ever be sent for it again, so an inquiry that shows it never confirmed
    // shows a transfer that can no longer move money.
    if (transfer.state === "initiated" && transfer.confirm_sent_at.getTime() <= now - this.settledAfterMs()) {
      transfer =
        (await closeTransfer(this.deps.db, subject, new Date(now - this.settledAfterMs()), new Date(now))) ??
        transfer;
    }
    const askedAt = new Date(now);
    const outcome = await this.payouts().inquirePayout(
      {
        tokenizerId: transfer.tokenizer_id!,
        initiatedAt: transfer.initiated_at,
        amountSatang: transfer.amount_satang,
      },
      options.signal,
    );
    if (
      transfer.state === "closed" &&
      outcome.status === "unknown" &&
      outcome.scbStatus === "INITIATE_COMPLETED"
    ) {
      const reason =
        "SCB shows the transfer never confirmed, and it can no longer be confirmed: nothing was paid";
      await noteTransfer(this.deps.db, subject, {
        scbStatus: outcome.scbStatus,
        lastError: reason,
        at: new Date(now),
        askedAt,
      });
      return { status: "failed", providerReference: transfer.tokenizer_id!, reason };
    }
    return this.book(transfer as InitiatedTransfer, outcome, askedAt);
  }

  /**
   * A confirm claimed less than `settledAfterMs` ago may still be on its way to SCB (it leaves
   * within its send's bound or never), and SCB's answer or inquiry decides first: the operator
   * may not resolve the payout failed before then.
   */
  async moneyInFlight(trx: Trx, idempotencyKey: string): Promise<string | null> {
    const transfer = await findTransfer(trx, subjectOfKey(idempotencyKey));
    if (transfer?.state !== "initiated" || transfer.confirm_sent_at === null) return null;
    const settledAt = transfer.confirm_sent_at.getTime() + this.settledAfterMs();
    if (this.deps.clock.now().getTime() >= settledAt) return null;
    return `SCB's confirm was sent at ${transfer.confirm_sent_at.toISOString()} and may still be carried out; SCB's answer, or its inquiry from ${new Date(settledAt).toISOString()}, decides first`;
  }

  /**
   * SCB's last inquiry showed the transfer completed (`CONFIRM_COMPLETED`) but it was not booked
   * (another amount than the payout's): SCB says money left, so the operator may not resolve it
   * failed (docs/providers/scb.md, "What the operator does").
   */
  async bankShowsPaid(trx: Trx, idempotencyKey: string): Promise<string | null> {
    const transfer = await findTransfer(trx, subjectOfKey(idempotencyKey));
    if (transfer?.scb_status !== "CONFIRM_COMPLETED") return null;
    const noted = transfer.last_error ? ` (${transfer.last_error})` : "";
    return `SCB's last answer shows its transfer ${transfer.tokenizer_id ?? transfer.partner_transaction_id} completed${noted}`;
  }

  /** The transfer and SCB's last answers about it, for the operator's undecided list. */
  async payoutEvidence(idempotencyKey: string): Promise<PayoutEvidence> {
    const subject = subjectOfKey(idempotencyKey);
    const transfer = await findTransfer(this.deps.db, subject);
    const exchanges = await lastTransferExchanges(this.deps.db, subject, EVIDENCE_ANSWERS_MAX);
    return {
      transfer: transfer
        ? {
            state: transfer.state,
            partnerTransactionId: transfer.partner_transaction_id,
            tokenizerId: transfer.tokenizer_id,
            initiateAttempts: transfer.initiate_attempts,
            initiatedAt: transfer.initiated_at,
            confirmSentAt: transfer.confirm_sent_at,
            scbStatus: transfer.scb_status,
            lastError: transfer.last_error,
            nextInquiryAt: transfer.next_inquiry_at,
          }
        : null,
      lastAnswers: exchanges.map((e) => ({
        at: e.started_at,
        operation: e.operation,
        httpStatus: e.response_status,
        answer: e.response_body,
        error: e.error,
      })),
    };
  }

  /**
   * Keeps SCB's word on the transfer (unless a step that asked SCB later has noted its answer
   * already: `askedAt`) and turns it into the lifecycle's terms.
   */
  private async book(
    transfer: InitiatedTransfer,
    outcome: PayoutOutcome,
    askedAt: Date,
  ): Promise<PayoutLookup> {
    const at = this.deps.clock.now();
    const reference = transfer.tokenizer_id;
    const subject = subjectOfRow(transfer);
    const scbStatus = outcome.scbStatus ?? transfer.scb_status;
    switch (outcome.status) {
      case "paid":
        await noteTransfer(this.deps.db, subject, { scbStatus, lastError: null, at, askedAt });
        return { status: "paid", providerReference: reference };
      case "failed":
        await noteTransfer(this.deps.db, subject, { scbStatus, lastError: outcome.reason, at, askedAt });
        return { status: "failed", providerReference: reference, reason: outcome.reason };
      case "accepted":
        await noteTransfer(this.deps.db, subject, { scbStatus, lastError: null, at, askedAt });
        return {
          status: "accepted",
          providerReference: reference,
          recheckAfterMs: this.deps.reconcileIntervalMs,
        };
      default: {
        const waitMs = Math.max(outcome.checkAfterMs, this.deps.reconcileIntervalMs);
        await noteTransfer(this.deps.db, subject, {
          scbStatus,
          lastError: outcome.reason,
          nextInquiryAt: new Date(at.getTime() + outcome.checkAfterMs),
          at,
          askedAt,
        });
        // SCB holds a confirm whose outcome is not known yet: the transfer is with SCB.
        return {
          status: "accepted",
          providerReference: reference,
          recheckAfterMs: waitMs,
          note: outcome.reason,
        };
      }
    }
  }
}
