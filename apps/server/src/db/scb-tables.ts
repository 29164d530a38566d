/**
 * Table types of the confirmations SCB posted and of the reconciler's schedule of questions
 * (migration 0030); the connector's other tables are typed in its folder (providers/scb/tables.ts).
 */
import type { ColumnType, Generated } from "kysely";

type Timestamp = ColumnType<Date, Date, Date>;

export type ScbConfirmationStatus = "received" | "verified" | "not_found" | "mismatch" | "unavailable";

interface ScbConfirmationsTable {
  /** SCB's transaction id: one row however often SCB sends the confirmation. */
  transaction_id: string;
  ref1: string;
  claimed_amount_satang: bigint | null;
  claimed_biller_id: string | null;
  /** The time the confirmation claims (SCB's transactionDateandTime). */
  paid_at: Date;
  payment_id: string | null;
  status: ScbConfirmationStatus;
  /** What the lifecycle did with a verified one: applied, duplicate or the refusal reason. */
  result: string | null;
  detail: string | null;
  deliveries: number;
  checks: Generated<number>;
  /** Real time of the next re-check of an undecided confirmation. */
  next_check_at: Date | null;
  received_at: Timestamp;
  updated_at: Timestamp;
}

interface ScbPaymentChecksTable {
  payment_id: string;
  checks: number;
  last_error: string | null;
  /** Business time of the reconciler's next question about this payment. */
  next_check_at: Date;
  updated_at: Timestamp;
  /** Migration 0085: real time of the last answered question; the next asks the dates since. */
  last_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface ScbCollectionTables {
  scb_confirmations: ScbConfirmationsTable;
  scb_payment_checks: ScbPaymentChecksTable;
}
