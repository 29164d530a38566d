/**
 * SCB's bill payment collection behind the connector port (providers/port.ts,
 * docs/providers/scb.md):
 *
 * - `instruct` makes the bill payment QR locally (the operator's biller id, ref1 = the payment's
 *   reference, ref2 and ref3 from the settings): no call to SCB.
 * - `readNotice` reads SCB's payment confirmation as a claim; the acknowledgment is the body SCB
 *   expects, `{ resCode: "00", resDesc: "success", transactionId }`.
 * - `inquire` asks SCB's bill payment inquiry for the claimed ref1 on the claimed Bangkok date;
 *   `find` asks it for every date since the last answered question.
 * - `keepShown` keeps each transaction SCB showed in `scb_transactions` (the daily report's
 *   paid-in figures), with what became of it.
 */
import type { Db } from "../../db/handles.ts";
import type { PaymentMethod } from "../../db/types.ts";
import type {
  CollectionPort,
  CollectionSearch,
  CollectionVerdict,
  InstructInput,
  Instruction,
  NoticeClaim,
  NoticeReading,
  PaymentToCheck,
  ShownOutcome,
  ShownPayment,
} from "../port.ts";
import type { IncomingCallback } from "../provider.ts";
import {
  type ConfirmationClaim,
  confirmationAck,
  parseConfirmation,
  ScbCollection,
  type VerifiedPayment,
} from "./collection.ts";
import { scbTables } from "./db.ts";
import { bangkokDate } from "./time.ts";

const shown = (payment: VerifiedPayment): ShownPayment => ({
  transactionId: payment.transactionId,
  reference: payment.ref1,
  amountSatang: payment.amountSatang,
  paidAt: payment.paidAt,
});

const noticeClaimOf = (claim: ConfirmationClaim): NoticeClaim => ({
  transactionId: claim.transactionId,
  reference: claim.ref1,
  amountSatang: claim.amountSatang,
  paidAt: claim.paidAt,
  payee: claim.billerId,
});

export class ScbCollectionPort extends ScbCollection implements CollectionPort {
  readonly methods: readonly PaymentMethod[] = ["promptpay"];
  /**
   * Confirmations get lost, and SCB's inquiry cannot list a biller's payments of a date (it needs
   * the reference): every reference is asked about once a day after the date ended.
   */
  readonly sweepsDaily = true;

  async instruct(input: InstructInput): Promise<Instruction> {
    if (input.method !== "promptpay") {
      return { status: "unavailable", error: `SCB collects promptpay only, not ${input.method}` };
    }
    const { qrPayload } = this.instruction({ ref1: input.reference, amountSatang: input.amountSatang });
    return { status: "instructed", providerPaymentId: null, qrPayload, qrImageUrl: null };
  }

  readNotice(notice: IncomingCallback): NoticeReading {
    const parsed = parseConfirmation(notice.rawBody);
    if (!parsed.ok) return { status: "malformed", error: parsed.error };
    return {
      status: "claim",
      claim: noticeClaimOf(parsed.claim),
      acknowledgment: confirmationAck(parsed.claim.transactionId),
    };
  }

  async inquire(claim: NoticeClaim): Promise<CollectionVerdict> {
    if (claim.reference === null) {
      return {
        status: "not_found",
        claim,
        reason: "the confirmation names no billPaymentRef1",
        retry: false,
      };
    }
    const check = await this.checkClaim({
      transactionId: claim.transactionId,
      ref1: claim.reference,
      amountSatang: claim.amountSatang,
      paidAt: claim.paidAt,
      billerId: claim.payee ?? null,
    });
    switch (check.status) {
      case "verified":
        return { status: "verified", claim, payment: shown(check.payment) };
      case "mismatch":
        return { status: "mismatch", claim, payment: shown(check.payment), fields: check.fields };
      case "not_found":
        return { status: "not_found", claim, reason: check.reason, retry: check.retry };
      default:
        return { status: "unavailable", claim, error: check.error };
    }
  }

  async find(payment: PaymentToCheck, from: Date, to: Date): Promise<CollectionSearch> {
    const search = await this.findPayments({ ref1: payment.reference, from, to });
    if (search.status === "unavailable") return search;
    return { status: "answered", payments: search.payments.map(shown), unreadable: search.unreadable };
  }

  async keepShown(db: Db, outcome: ShownOutcome): Promise<void> {
    const { payment } = outcome;
    await scbTables(db)
      .insertInto("scb_transactions")
      .values({
        transaction_id: payment.transactionId,
        ref1: payment.reference,
        amount_satang: payment.amountSatang,
        paid_at: payment.paidAt,
        // The Bangkok date SCB paid it on (its own clock when SCB printed no time).
        paid_date: bangkokDate(payment.paidAt ?? outcome.realNow),
        payment_id: outcome.paymentId,
        result: outcome.result.slice(0, 100),
        seen_by: outcome.seenBy,
        first_seen_at: outcome.at,
        updated_at: outcome.at,
      })
      // The first sighting wins; a later one changes nothing.
      .onConflict((oc) => oc.column("transaction_id").doNothing())
      .execute();
  }
}
