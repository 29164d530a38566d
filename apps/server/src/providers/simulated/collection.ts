/**
 * The simulated bank's collection side, behind the connector port (providers/port.ts).
 *
 * - `instruct` computes the QR in process: the bank takes payments straight to the merchant's
 *   own PromptPay id (`payee`), exactly the payload a sandbox payment shows; a bank transfer
 *   payment is paid to the merchant's collection account, which needs no QR. No statement, no
 *   round trip.
 * - `readNotice` reads the bank's signed callback (`Sandbox-Signature`, bank.ts): a
 *   `payment.succeeded` callback is a claim; the bank's payment notice names its transaction,
 *   the reference and the amount paid, and a simulate route's callback, which names only the
 *   payment, is a claim whose transaction is the callback itself. A body not signed by the bank
 *   is refused as forged (malformed), like any body that is not one of its callbacks.
 * - `inquire` and `find` answer from the bank's own book of what was paid (`SimulatedBank.pay`).
 */
import { ok } from "../../http/envelope.ts";
import type { Clock } from "../../lib/clock.ts";
import type {
  CollectionPort,
  CollectionSearch,
  CollectionVerdict,
  InstructInput,
  Instruction,
  NoticeClaim,
  NoticeReading,
  PaymentToCheck,
  ShownPayment,
} from "../port.ts";
import type { IncomingCallback } from "../provider.ts";
import { type BookedPayment, readCallbackBody, SIMULATED_BANK_DOWN, type SimulatedBank } from "./bank.ts";
import { simulatedPaymentIdOf, simulatedQrPayload } from "./instruction.ts";

const SATANG = /^[0-9]{1,19}$/;

function shown(payment: BookedPayment): ShownPayment {
  return {
    transactionId: payment.transactionId,
    reference: payment.reference,
    amountSatang: payment.amountSatang,
    paidAt: payment.paidAt,
  };
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

export class SimulatedCollection implements CollectionPort {
  readonly methods = ["promptpay", "bank_transfer"] as const;

  constructor(
    private readonly bank: SimulatedBank,
    /** Real time: when a notice that names no time arrived. */
    private readonly clock: Clock,
  ) {}

  async instruct(input: InstructInput): Promise<Instruction> {
    if (this.bank.faults.down()) return { status: "unavailable", error: SIMULATED_BANK_DOWN };
    const providerPaymentId = simulatedPaymentIdOf(input.paymentId);
    if (input.method === "bank_transfer") {
      if (!input.payee?.collectionAccount) {
        return { status: "unavailable", error: "the merchant has no collection account" };
      }
      return { status: "instructed", providerPaymentId, qrPayload: null, qrImageUrl: null };
    }
    const qrPayload = simulatedQrPayload(input.payee?.promptpayId ?? null, input.amountSatang);
    if (qrPayload === null) return { status: "unavailable", error: "the merchant has no valid PromptPay id" };
    return { status: "instructed", providerPaymentId, qrPayload, qrImageUrl: null };
  }

  async readNotice(notice: IncomingCallback): Promise<NoticeReading> {
    const acknowledgment = ok({ received: true });
    if (!(await this.bank.signedByBank(notice))) {
      return { status: "malformed", error: "forged: the notice does not carry the bank's Sandbox-Signature" };
    }
    let body: ReturnType<typeof readCallbackBody>;
    try {
      body = readCallbackBody(notice.rawBody);
    } catch (error) {
      return { status: "malformed", error: (error as Error).message };
    }
    if (body.type !== "payment.succeeded") {
      return { status: "ignored", reason: `${body.type} says no payment was made`, acknowledgment };
    }
    const amount = text(body.data.amountSatang);
    if (amount !== null && !SATANG.test(amount)) {
      return { status: "malformed", error: "data.amountSatang is not a whole number of satang" };
    }
    const createdAt = typeof body.createdAt === "string" ? new Date(body.createdAt) : null;
    return {
      status: "claim",
      claim: {
        transactionId: text(body.data.transactionId) ?? body.id,
        reference: text(body.data.reference),
        amountSatang: amount === null ? null : BigInt(amount),
        paidAt: createdAt && !Number.isNaN(createdAt.getTime()) ? createdAt : this.clock.now(),
      },
      acknowledgment,
    };
  }

  async inquire(claim: NoticeClaim): Promise<CollectionVerdict> {
    if (this.bank.faults.down()) return { status: "unavailable", claim, error: SIMULATED_BANK_DOWN };
    const booked = this.bank.bookedPayment(claim.transactionId);
    if (!booked) {
      return {
        status: "not_found",
        claim,
        reason: `the simulated bank has no payment ${claim.transactionId}`,
        retry: false,
      };
    }
    const fields: string[] = [];
    if (claim.reference !== null && claim.reference !== booked.reference) fields.push("reference");
    if (claim.amountSatang !== null && claim.amountSatang !== booked.amountSatang) fields.push("amount");
    if (fields.length > 0) return { status: "mismatch", claim, payment: shown(booked), fields };
    return { status: "verified", claim, payment: shown(booked) };
  }

  async find(payment: PaymentToCheck, from: Date, to: Date): Promise<CollectionSearch> {
    if (this.bank.faults.down()) return { status: "unavailable", error: SIMULATED_BANK_DOWN };
    const payments = this.bank
      .bookedPaymentsOf(payment.reference)
      .filter((booked) => booked.paidAt >= from && booked.paidAt <= to)
      .map(shown);
    return { status: "answered", payments, unreadable: [] };
  }
}
