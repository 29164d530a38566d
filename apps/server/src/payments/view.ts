/**
 * The public payment record: exactly the fields of interface.md's Payment table, with every
 * nullable field present as `null` (CONTRACT 0). The customer's account number and the
 * merchant reference are stored but never leave through here (CONTRACT 6).
 *
 * `nextAction` (CONTRACT 6):
 * - a final payment (succeeded, canceled, expired, payment_failed) has none;
 * - promptpay: `use_payment_app` with the hosted page URL, or `redirect` with the creating
 *   integration's redirect URL plus `paymentId`, and the QR code;
 * - bank_transfer: `display_bank_transfer_instructions` from the account copied at create.
 * `responseMode` trims only the promptpay variants: `payment_link` drops `qrCode`, `qr_code`
 * keeps only `type` and `qrCode`. Bank transfer instructions have no QR and no link to trim.
 */
import type { PaymentRow } from "../db/types.ts";
import { findBank } from "../lib/bank-codes.ts";
import { formatAmount, formatThb } from "../lib/money.ts";
import type { NextAction, PaymentRecord, ResponseMode } from "./schemas.ts";
import { isFinal } from "./statuses.ts";

export interface ViewContext {
  publicBaseUrl: string;
}

/**
 * The hosted page's address, exactly `{PUBLIC_BASE_URL}/pay/{id}` (CONTRACT 6): the link alone
 * shows and follows the payment, and in sandbox its button pays it (hosted/service.ts). The page
 * also accepts the payment's client secret in its fragment (`#cs=...`), and then checks it.
 */
export function paymentAppUrl(ctx: ViewContext, id: string): string {
  return `${ctx.publicBaseUrl}/pay/${id}`;
}

function qrImageUrl(ctx: ViewContext, id: string): string {
  return `${ctx.publicBaseUrl}/pay/${id}/qr.png`;
}

/** The integration's redirect URL with `paymentId` set in its query (replacing one already there). */
function redirectUrlFor(base: string, id: string): string {
  const url = new URL(base);
  url.searchParams.set("paymentId", id);
  return url.toString();
}

function promptPayAction(row: PaymentViewRow, ctx: ViewContext, mode: ResponseMode): NextAction | null {
  const qrCode = row.qr_payload
    ? { type: "promptpay" as const, payload: row.qr_payload, imageUrl: qrImageUrl(ctx, row.id) }
    : undefined;
  // A connector that makes the QR image itself (a gateway) gives no payload: its image's URL is shown.
  const qr = { ...(qrCode ? { qrCode } : {}), ...(row.qr_image_url ? { qrImageUrl: row.qr_image_url } : {}) };
  const hasQr = qrCode !== undefined || row.qr_image_url !== null;
  if (row.redirect_url !== null) {
    if (mode === "qr_code") return hasQr ? { type: "redirect", ...qr } : null;
    const redirectUrl = redirectUrlFor(row.redirect_url, row.id);
    if (mode === "payment_link" || !hasQr) return { type: "redirect", redirectUrl };
    return { type: "redirect", redirectUrl, ...qr };
  }
  if (mode === "qr_code") return hasQr ? { type: "use_payment_app", ...qr } : null;
  const appUrl = paymentAppUrl(ctx, row.id);
  if (mode === "payment_link" || !hasQr) return { type: "use_payment_app", paymentAppUrl: appUrl };
  return { type: "use_payment_app", paymentAppUrl: appUrl, ...qr };
}

function bankTransferAction(row: PaymentViewRow): NextAction | null {
  if (
    row.bank_transfer_reference === null ||
    row.transfer_bank_code === null ||
    row.transfer_account_number === null ||
    row.transfer_account_name === null
  ) {
    return null;
  }
  return {
    type: "display_bank_transfer_instructions",
    bankTransferInstructions: {
      bankName: findBank(row.transfer_bank_code)?.name ?? row.transfer_bank_code,
      accountNumber: row.transfer_account_number,
      accountName: row.transfer_account_name,
      amount: formatThb(row.amount_satang),
      reference: row.bank_transfer_reference,
    },
  };
}

function nextActionOf(row: PaymentViewRow, ctx: ViewContext, mode: ResponseMode): NextAction | null {
  if (isFinal(row.status)) return null;
  if (row.payment_method === "promptpay") return promptPayAction(row, ctx, mode);
  if (row.payment_method === "bank_transfer") return bankTransferAction(row);
  return null;
}

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

/** The columns the record is made of: a list reads only these (payments/store.ts). */
export const PAYMENT_VIEW_COLUMNS = [
  "id",
  "amount_satang",
  "status",
  "payment_method",
  "reference_id",
  "description",
  "metadata",
  "client_secret",
  "qr_payload",
  "qr_image_url",
  "redirect_url",
  "bank_transfer_reference",
  "transfer_bank_code",
  "transfer_account_number",
  "transfer_account_name",
  "confirmed_at",
  "captured_at",
  "canceled_at",
  "expires_at",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof PaymentRow)[];

/** A payment as far as its record needs: the view cannot read a column a list leaves out. */
export type PaymentViewRow = Pick<PaymentRow, (typeof PAYMENT_VIEW_COLUMNS)[number]>;

export function paymentView(
  row: PaymentViewRow,
  ctx: ViewContext,
  mode: ResponseMode = "both",
): PaymentRecord {
  return {
    id: row.id,
    amount: formatAmount(row.amount_satang),
    currency: "THB",
    status: row.status,
    paymentMethod: row.payment_method,
    referenceId: row.reference_id,
    description: row.description,
    metadata: row.metadata,
    clientSecret: row.client_secret,
    nextAction: nextActionOf(row, ctx, mode),
    confirmedAt: iso(row.confirmed_at),
    capturedAt: iso(row.captured_at),
    canceledAt: iso(row.canceled_at),
    expiresAt: iso(row.expires_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
