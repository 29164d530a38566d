/**
 * Table types of the SCB connector's tables (migrations 0030, 0060 and 0085, docs/providers/scb.md):
 * its transfers, its recorded exchanges and the transactions it saw. The connector's own queries
 * reach them through db.ts; the core's `Database` does not know them.
 */
import type { ColumnType, Generated } from "kysely";

type Timestamp = ColumnType<Date, Date, Date>;

interface ScbTransfersTable {
  /** The withdraw or (0096) the refund this transfer pays: exactly one is set. */
  withdraw_id: ColumnType<string | null, string | null | undefined, string | null>;
  refund_id: ColumnType<string | null, string | null | undefined, string | null>;
  partner_transaction_id: string;
  amount_satang: bigint;
  /** Null while the transfer is still `initiating` (migration 0084). */
  tokenizer_id: string | null;
  initiated_at: Date;
  /** Set once, before the one credit confirm leaves; null while it may still be sent. */
  confirm_sent_at: Date | null;
  scb_status: string | null;
  last_error: string | null;
  /** Real time before which an uncertain transfer is not asked about (SCB_INQUIRY_DELAY_S). */
  next_inquiry_at: Date | null;
  /** Where the transfer stands (0084): see ScbTransferState. */
  state: ColumnType<ScbTransferState, ScbTransferState | undefined, ScbTransferState>;
  /** Initiates that may have reached SCB (0084): only the refusal of the first and only is final. */
  initiate_attempts: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * `initiating`: initiates may have reached SCB, no tokenizer is known. `initiated`: the tokenizer
 * is stored (its one confirm may be claimed). `rejected`: the first and only initiate was refused.
 * `closed`: no confirm will ever be sent again (fenced before a failure on SCB's inquiry).
 */
export type ScbTransferState = "initiating" | "initiated" | "rejected" | "closed";

export type ScbExchangeDirection = "outbound" | "inbound";

interface ScbExchangesTable {
  /** bigserial: read as a bigint like every int8 (db/connect.ts). */
  id: Generated<bigint>;
  /** Migration 0060: a call to SCB, or a confirmation SCB posted. */
  direction: ScbExchangeDirection;
  operation: string;
  request_uid: string;
  method: string;
  path: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  request_body: ColumnType<unknown, string | null, string | null>;
  response_status: number | null;
  response_body: ColumnType<unknown, string | null, string | null>;
  error: string | null;
  request_headers: ColumnType<unknown, string | null, string | null>;
  ref1: string | null;
  partner_transaction_id: string | null;
  tokenizer_id: string | null;
  trans_ref: string | null;
  payment_id: string | null;
  withdraw_id: string | null;
  /** Migration 0096: the refund whose transfer the exchange names. */
  refund_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0085: why the connector could not read SCB's answer; null when it could. */
  unreadable: ColumnType<string | null, string | null | undefined, string | null>;
}

export type ScbTransactionSource = "confirmation" | "reconciler" | "sweep";

/** Migration 0085: a transaction SCB showed for the operator's biller, and what became of it. */
interface ScbTransactionsTable {
  transaction_id: string;
  ref1: string;
  amount_satang: bigint;
  paid_at: Date | null;
  /** The Bangkok date it was paid on, "YYYY-MM-DD". */
  paid_date: string;
  payment_id: string | null;
  /** `applied`, or why it was not credited (the anomaly's reason). */
  result: string;
  seen_by: ScbTransactionSource;
  first_seen_at: Timestamp;
  updated_at: Timestamp;
}

export interface ScbTables {
  scb_transfers: ScbTransfersTable;
  scb_exchanges: ScbExchangesTable;
  scb_transactions: ScbTransactionsTable;
}
