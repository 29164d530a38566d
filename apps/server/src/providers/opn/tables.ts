/** Table types of the Opn connector's tables (migrations 0097 and 0098, docs/providers/opn.md). */
import type { ColumnType } from "kysely";

type Timestamp = ColumnType<Date, Date, Date>;

interface OpnRecipientsTable {
  bank_code: string;
  account_number: string;
  account_name: string;
  /** Null while Opn has not answered the create. */
  recipient_id: string | null;
  verified: ColumnType<boolean, boolean | undefined, boolean>;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  failure_code: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type OpnTransferState = "waiting_recipient" | "sending" | "sent" | "refused" | "abandoned";

interface OpnTransfersTable {
  payout_key: string;
  bank_code: string;
  account_number: string;
  account_name: string;
  amount_satang: bigint;
  state: OpnTransferState;
  transfer_id: string | null;
  send_attempts: ColumnType<number, number | undefined, number>;
  last_attempt_at: Date | null;
  /** Why a payout failed without a transfer (`recipient_not_verified`) or Opn's refusal code. */
  failure_reason: string | null;
  last_error: string | null;
  /** A transfer Opn shows under this payout's key for another amount (migration 0127). */
  other_amount_transfer_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OpnTables {
  opn_recipients: OpnRecipientsTable;
  opn_transfers: OpnTransfersTable;
}
