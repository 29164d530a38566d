/**
 * SCB behind the lifecycle's `Provider` interface (providers/provider.ts), for payouts: a send
 * is a credit initiate, the tokenizer id stored (store.ts), then the one credit confirm; a
 * lookup reads what was stored and asks SCB's transfer inquiry.
 *
 * How the interface's promises hold for SCB:
 * - "A send with the same key is the same payout": the partner transaction id is derived from
 *   the withdraw id, one tokenizer id is stored per withdraw (the first stored wins; another
 *   one is never confirmed), and the confirm is claimed by one conditional update before it
 *   leaves, so a withdraw is confirmed at most once, whatever process sends or resends it.
 * - `getPayout` answers `not_found` only while no confirm has left: a resend then confirms the
 *   stored tokenizer, or initiates again when none was stored (an initiate moves no money).
 * - An uncertain confirm (no answer, a non-success code) is never sent again: it is asked
 *   about with the inquiry, not before SCB_INQUIRY_DELAY_S, and stays open until SCB says
 *   completed or failed.
 *
 * Payment confirmations do not come through `parseCallback`: SCB's are unsigned claims, which
 * the lifecycle's SCB confirmation route checks with SCB's inquiry (lifecycle/scb-collection.ts).
 */
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import type {
  CancelPayoutResult,
  PaymentInstruction,
  PaymentInstructionInput,
  PayoutInput,
  PayoutLookup,
  Provider,
  ProviderReport,
  SendPayoutResult,
} from "../provider.ts";
import type { ScbCollection } from "./collection.ts";
import { SCB_PROVIDER_NAME } from "./names.ts";
import type { PayoutOutcome, ScbPayouts } from "./payouts.ts";
import {
  claimConfirm,
  findTransfer,
  noteTransfer,
  releaseConfirm,
  storeTransfer,
  type TransferRow,
} from "./store.ts";

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

  /** The tag-30 QR for the operator's biller id; `reference` is the payment's ref1. */
  async createPaymentInstruction(input: PaymentInstructionInput): Promise<PaymentInstruction> {
    if (input.method !== "promptpay" || !input.reference) {
      throw new Error("SCB collects PromptPay payments under a reference (ref1)");
    }
    const qr = this.deps.collection.instruction({ ref1: input.reference, amountSatang: input.amountSatang });
    return { providerReference: input.reference, qrPayload: qr.qrPayload, bankTransfer: null };
  }

  async sendPayout(input: PayoutInput): Promise<SendPayoutResult> {
    const payouts = this.payouts();
    let transfer = await findTransfer(this.deps.db, input.idempotencyKey);
    if (!transfer) {
      const initiated = await payouts.initiatePayout({
        withdrawId: input.idempotencyKey,
        amountSatang: input.amountSatang,
        destinationType: input.destinationType,
        bankCode: input.bankCode,
        accountNumber: input.accountNumber,
        accountName: input.accountName,
      });
      if (initiated.status === "rejected") {
        return { status: "failed", providerReference: input.idempotencyKey, reason: initiated.reason };
      }
      if (initiated.status === "unknown") return { status: "indeterminate", error: initiated.error };
      transfer = await storeTransfer(this.deps.db, {
        withdrawId: input.idempotencyKey,
        partnerTransactionId: initiated.partnerTransactionId,
        amountSatang: input.amountSatang,
        tokenizerId: initiated.tokenizerId,
        initiatedAt: initiated.initiatedAt,
      });
    }
    return this.confirm(transfer);
  }

  /** Sends the stored tokenizer's one confirm, unless it has left already: then asks about it. */
  private async confirm(transfer: TransferRow): Promise<SendPayoutResult> {
    const { db, clock } = this.deps;
    const claimed = await claimConfirm(db, transfer.withdraw_id, clock.now());
    if (!claimed) {
      const lookup = await this.getPayout(transfer.withdraw_id);
      return lookup.status === "not_found"
        ? { status: "indeterminate", error: "transfer not found" }
        : lookup;
    }
    const result = await this.payouts().confirmPayout({
      tokenizerId: claimed.tokenizer_id,
      initiatedAt: claimed.initiated_at,
      amountSatang: claimed.amount_satang,
    });
    if (result.status === "not_sent") {
      await releaseConfirm(db, claimed.withdraw_id, clock.now());
      return { status: "indeterminate", error: result.reason };
    }
    const answer = await this.book(claimed, result);
    return answer.status === "not_found" ? { status: "indeterminate", error: "transfer not found" } : answer;
  }

  async getPayout(idempotencyKey: string): Promise<PayoutLookup> {
    const transfer = await findTransfer(this.deps.db, idempotencyKey);
    // No confirm has left: nothing can have been paid, and a resend is the same transfer.
    if (!transfer?.confirm_sent_at) return { status: "not_found" };
    const now = this.deps.clock.now().getTime();
    const waitMs = (transfer.next_inquiry_at?.getTime() ?? 0) - now;
    if (waitMs > 0) {
      return {
        status: "accepted",
        providerReference: transfer.tokenizer_id,
        recheckAfterMs: Math.max(waitMs, this.deps.reconcileIntervalMs),
      };
    }
    const outcome = await this.payouts().inquirePayout({
      tokenizerId: transfer.tokenizer_id,
      initiatedAt: transfer.initiated_at,
      amountSatang: transfer.amount_satang,
    });
    return this.book(transfer, outcome);
  }

  /** Keeps SCB's word on the transfer and turns it into the lifecycle's terms. */
  private async book(transfer: TransferRow, outcome: PayoutOutcome): Promise<PayoutLookup> {
    const at = this.deps.clock.now();
    const reference = transfer.tokenizer_id;
    const scbStatus = outcome.scbStatus ?? transfer.scb_status;
    switch (outcome.status) {
      case "paid":
        await noteTransfer(this.deps.db, transfer.withdraw_id, { scbStatus, lastError: null, at });
        return { status: "paid", providerReference: reference };
      case "failed":
        await noteTransfer(this.deps.db, transfer.withdraw_id, { scbStatus, lastError: outcome.reason, at });
        return { status: "failed", providerReference: reference, reason: outcome.reason };
      case "accepted":
        await noteTransfer(this.deps.db, transfer.withdraw_id, { scbStatus, lastError: null, at });
        return {
          status: "accepted",
          providerReference: reference,
          recheckAfterMs: this.deps.reconcileIntervalMs,
        };
      default: {
        const waitMs = Math.max(outcome.checkAfterMs, this.deps.reconcileIntervalMs);
        await noteTransfer(this.deps.db, transfer.withdraw_id, {
          scbStatus,
          lastError: outcome.reason,
          nextInquiryAt: new Date(at.getTime() + outcome.checkAfterMs),
          at,
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

  /** SCB's transfer API has no recall. */
  async cancelPayout(_idempotencyKey: string): Promise<CancelPayoutResult> {
    return { status: "not_cancelable", reason: "SCB's credit transfer cannot be recalled" };
  }

  async parseCallback(): Promise<ProviderReport> {
    throw new AppError("RESOURCE_NOT_FOUND", "SCB confirmations are received at their own route");
  }
}
