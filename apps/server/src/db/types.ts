/**
 * Table types for the typed SQL builder. Column names say their unit (`amount_satang`).
 * `bigint` columns arrive as JS `bigint` (see connect.ts), timestamps as `Date`.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

type Timestamp = ColumnType<Date, Date, Date>;
type Json = ColumnType<Record<string, string> | null, string | null, string | null>;

export interface MerchantsTable {
  id: string;
  name: string;
  status: "active" | "disabled";
  daily_withdraw_limit_satang: bigint | null;
  monthly_withdraw_limit_satang: bigint | null;
  settlement_delay_hours: number;
  collection_bank_code: string | null;
  collection_account_number: string | null;
  collection_account_name: string | null;
  promptpay_id: string | null;
  promptpay_reuse: boolean;
  wallet_status: "active" | "frozen" | "closed";
  withdraw_verification_threshold_satang: bigint | null;
  clock_offset_ms: Generated<bigint>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IntegrationsTable {
  id: string;
  merchant_id: string;
  name: string | null;
  api_key: string;
  secret_encrypted: string;
  environment: "sandbox" | "live";
  redirect_url: string | null;
  require_signature_v2: Generated<boolean>;
  revoked_at: Date | null;
  created_at: Timestamp;
}

export const PAYMENT_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "succeeded",
  "canceled",
  "expired",
  "payment_failed",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_METHODS = ["promptpay", "bank_transfer"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface PaymentsTable {
  id: string;
  merchant_id: string;
  integration_id: string;
  amount_satang: bigint;
  currency: string;
  status: PaymentStatus;
  payment_method: PaymentMethod | null;
  reference_id: string;
  description: string | null;
  metadata: Json;
  client_secret: string;
  merchant_reference: string | null;
  customer_bank_account_name: string;
  customer_bank_account_number: string;
  customer_bank_code: string;
  idempotency_key: string;
  request_hash: string;
  qr_payload: string | null;
  bank_transfer_reference: string | null;
  redirect_url: string | null;
  expires_at: Date | null;
  confirmed_at: Date | null;
  captured_at: Date | null;
  canceled_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ServerSettingsTable {
  key: string;
  value: string;
  created_at: Timestamp;
}

export interface SignatureUsesTable {
  api_key: string;
  timestamp_ms: bigint;
  signature: string;
  expires_at: Timestamp;
}

export interface Database {
  merchants: MerchantsTable;
  integrations: IntegrationsTable;
  payments: PaymentsTable;
  server_settings: ServerSettingsTable;
  signature_uses: SignatureUsesTable;
}

export type Merchant = Selectable<MerchantsTable>;
export type NewMerchant = Insertable<MerchantsTable>;
export type MerchantUpdate = Updateable<MerchantsTable>;
export type Integration = Selectable<IntegrationsTable>;
export type PaymentRow = Selectable<PaymentsTable>;
export type NewPayment = Insertable<PaymentsTable>;
