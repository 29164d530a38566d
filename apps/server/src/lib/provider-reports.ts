/**
 * What a payment or payout provider can report, in the service's own terms, and why a report
 * can be refused. providers/ translate a bank's vocabulary into these outcomes; payments/ and
 * withdraws/ decide what a report does to a record (their reports.ts); lifecycle/ records the
 * refusals the operator must look at.
 */

const PAYMENT_REPORT_OUTCOMES = ["processing", "succeeded", "failed"] as const;
export type PaymentReportOutcome = (typeof PAYMENT_REPORT_OUTCOMES)[number];

export const PAYOUT_REPORT_OUTCOMES = ["paid", "failed"] as const;
export type PayoutReportOutcome = (typeof PAYOUT_REPORT_OUTCOMES)[number];

/** Why a report was refused; `anomaly` says whether the operator must look at it. */
export interface Refusal {
  reason: string;
  message: string;
  anomaly: boolean;
  merchantId: string | null;
  subjectStatus: string | null;
  amountSatang: bigint | null;
}

/** A report about a record the service does not have: always one for the operator. */
export function unknownSubject(reason: string, message: string): Refusal {
  return { reason, message, anomaly: true, merchantId: null, subjectStatus: null, amountSatang: null };
}

/**
 * The notice of a late success booked though the wallet no longer covered it (withdraws/ and
 * refunds/ reports.ts): applied, the available wallet below zero, and the operator told.
 */
export function overdrawnNotice(
  subject: {
    label: "Withdraw" | "Refund";
    merchantId: string;
    status: string;
    amountSatang: bigint;
    /** What the wallet was debited, when less than the amount (a refund's settlement part). */
    walletDebitSatang?: bigint;
  },
  availableSatang: bigint,
  format: (satang: bigint) => string,
): Refusal {
  const { label, merchantId, status, amountSatang } = subject;
  const debit = subject.walletDebitSatang ?? amountSatang;
  return {
    reason: "late_success_overdrawn",
    message:
      `${label} was ${status} and was confirmed paid late; the available wallet ` +
      `(${format(availableSatang)}) did not cover ${format(debit)}, ` +
      `so it is debited below zero: the merchant owes ${format(debit - availableSatang)}`,
    anomaly: true,
    merchantId,
    subjectStatus: status,
    amountSatang,
  };
}
