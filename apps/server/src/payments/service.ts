/**
 * Payment rules: create (idempotency, unique references, PromptPay reuse), retrieve, list and
 * cancel. Everything is scoped to the authenticated merchant, and every timestamp is the
 * merchant's business time (the injected clock plus its sandbox test-clock offset).
 *
 * Create checks, in order (CONTRACT 5): the body schema (in the route); rules the schema
 * cannot express; idempotent replay (same key and body -> the original record, 200; same key,
 * other body -> 422); duplicate referenceId (409); the merchant's setup for the method;
 * PromptPay reuse (200); insert (201). The checks run inside one transaction, and the insert
 * is `ON CONFLICT DO NOTHING` followed by the same lookups again, so two processes racing with
 * one key or one reference end with one record: the loser reads the winner's row.
 */
import type { Merchant, PaymentRow } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import type { AuthContext } from "../http/auth.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { addMinutes, businessNow } from "../lib/clock.ts";
import { canonicalJsonHash } from "../lib/crypto.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { isUuid, newId, randomToken, shortReference } from "../lib/ids.ts";
import {
  BANK_TRANSFER_EXPIRY_DEFAULT_MINUTES,
  BANK_TRANSFER_REFERENCE_ATTEMPTS_MAX,
  BANK_TRANSFER_REFERENCE_LENGTH,
  CLIENT_SECRET_RANDOM_BYTES,
  PROMPTPAY_EXPIRY_DEFAULT_MINUTES,
  PROMPTPAY_QR_AMOUNT_SATANG_MAX,
} from "../lib/limits.ts";
import { formatThb, parseAmount } from "../lib/money.ts";
import { expirePaymentIfDue, recordPaymentCanceled } from "../lifecycle/payment-transitions.ts";
import { type PromptPayProxy, promptPayPayload, promptPayProxyOf, qrPng } from "./qr.ts";
import type {
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentRecord,
  PaymentSortField,
  ResponseMode,
} from "./schemas.ts";
import {
  cancelOpenPayment,
  findPayment,
  findPaymentByReference,
  findPaymentForHostedPage,
  findPaymentsByKeyOrReference,
  findReusablePromptPay,
  insertPaymentIfAbsent,
  listPaymentRows,
  lockPromptPayCustomer,
} from "./store.ts";
import { isFinal, paymentView } from "./view.ts";

const paymentNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payment not found");

/** How a create request was answered: a new record (201), a replay or a reused payment (200). */
export type CreateOutcome = "created" | "replayed" | "reused";

export interface CreateResult {
  outcome: CreateOutcome;
  payment: PaymentRecord;
}

interface MethodSetup {
  proxy: PromptPayProxy | undefined;
  collection: { bankCode: string; accountNumber: string; accountName: string } | undefined;
}

/** What the merchant must have configured before it can take a payment by this method. */
function methodSetup(merchant: Merchant, method: CreatePaymentBody["paymentMethod"]): MethodSetup {
  if (method === "promptpay") {
    const proxy = promptPayProxyOf(merchant.promptpay_id);
    if (!proxy) {
      throw fieldError(
        "VALIDATION_ERROR",
        "paymentMethod",
        "promptpay is not available: the merchant has no usable PromptPay id configured",
      );
    }
    return { proxy, collection: undefined };
  }
  const bankCode = merchant.collection_bank_code;
  const accountNumber = merchant.collection_account_number;
  const accountName = merchant.collection_account_name;
  if (!bankCode || !accountNumber || !accountName) {
    throw fieldError(
      "VALIDATION_ERROR",
      "paymentMethod",
      "bank_transfer is not available: the merchant has no collection account configured",
    );
  }
  return { proxy: undefined, collection: { bankCode, accountNumber, accountName } };
}

function replayOf(existing: PaymentRow, requestHash: string): PaymentRow {
  if (existing.request_hash !== requestHash) {
    throw new AppError(
      "IDEMPOTENCY_KEY_MISMATCH",
      "idempotencyKey was already used with a different request body",
      { field: "idempotencyKey" },
    );
  }
  return existing;
}

/**
 * What an existing payment holding our idempotency key or our referenceId means for this
 * create: the key decides first (replay or 422), then the reference (409). Undefined when
 * there is none.
 */
function settleExisting(
  existing: PaymentRow[],
  idempotencyKey: string,
  referenceId: string,
  requestHash: string,
): PaymentRow | undefined {
  const sameKey = existing.find((row) => row.idempotency_key === idempotencyKey);
  if (sameKey) return replayOf(sameKey, requestHash);
  if (existing.length > 0) {
    throw fieldError(
      "DUPLICATE_REFERENCE_ID",
      "referenceId",
      `A payment with referenceId "${referenceId}" already exists`,
    );
  }
  return undefined;
}

/** Rules on the body that its schema cannot express; the schema has run already. */
function checkBody(body: CreatePaymentBody) {
  const amountSatang = parseAmount(body.amount);
  if (amountSatang === null) throw fieldError("INVALID_AMOUNT", "amount", "amount is not a valid amount");
  if (body.paymentMethod === "promptpay" && amountSatang > PROMPTPAY_QR_AMOUNT_SATANG_MAX) {
    throw fieldError(
      "INVALID_AMOUNT",
      "amount",
      `amount exceeds the largest PromptPay QR amount (${formatThb(PROMPTPAY_QR_AMOUNT_SATANG_MAX)} THB)`,
    );
  }
  const accountNumber = normalizeAccountNumber(body.customerBankAccountNumber);
  if (accountNumber === null) {
    throw fieldError(
      "VALIDATION_ERROR",
      "customerBankAccountNumber",
      "customerBankAccountNumber must have 10 to 15 digits",
    );
  }
  if (
    body.merchantReference !== undefined &&
    body.invoiceNo !== undefined &&
    body.merchantReference !== body.invoiceNo
  ) {
    throw fieldError(
      "VALIDATION_ERROR",
      "invoiceNo",
      "invoiceNo is an alias of merchantReference; when both are sent they must be equal",
    );
  }
  return { amountSatang, accountNumber, merchantReference: body.merchantReference ?? body.invoiceNo ?? null };
}

export async function createPayment(
  deps: Deps,
  auth: AuthContext,
  body: CreatePaymentBody,
): Promise<CreateResult> {
  const { merchant, integration } = auth;
  const { amountSatang, accountNumber, merchantReference } = checkBody(body);
  const requestHash = canonicalJsonHash(body);
  const idempotencyKey = body.idempotencyKey ?? newId();
  const mode: ResponseMode = body.responseMode ?? "both";
  const method = body.paymentMethod;
  const reuse = method === "promptpay" && merchant.promptpay_reuse;
  const view = (row: PaymentRow) => paymentView(row, deps.config, mode);

  return deps.db.transaction().execute(async (trx): Promise<CreateResult> => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds.
    const now = businessNow(deps.clock, merchant.clock_offset_ms);
    const customer = {
      merchantId: merchant.id,
      bankCode: body.customerBankCode,
      accountNumber,
      amountSatang,
    };
    if (reuse) await lockPromptPayCustomer(trx, customer);

    const settle = async (): Promise<CreateResult | undefined> => {
      const existing = await findPaymentsByKeyOrReference(trx, merchant.id, idempotencyKey, body.referenceId);
      const replayed = settleExisting(existing, idempotencyKey, body.referenceId, requestHash);
      return replayed ? { outcome: "replayed", payment: view(replayed) } : undefined;
    };
    const earlier = await settle();
    if (earlier) return earlier;

    const setup = methodSetup(merchant, method);
    if (reuse) {
      const open = await findReusablePromptPay(trx, { ...customer, now });
      if (open) return { outcome: "reused", payment: view(open) };
    }

    const expiresInMinutes =
      body.expiresInMinutes ??
      (method === "promptpay" ? PROMPTPAY_EXPIRY_DEFAULT_MINUTES : BANK_TRANSFER_EXPIRY_DEFAULT_MINUTES);
    for (let attempt = 0; attempt < BANK_TRANSFER_REFERENCE_ATTEMPTS_MAX; attempt += 1) {
      const id = newId();
      const inserted = await insertPaymentIfAbsent(trx, {
        id,
        merchant_id: merchant.id,
        integration_id: integration.id,
        amount_satang: amountSatang,
        currency: "THB",
        status: "requires_action",
        payment_method: method,
        reference_id: body.referenceId,
        description: body.description ?? null,
        metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
        client_secret: `${id}_secret_${randomToken(CLIENT_SECRET_RANDOM_BYTES)}`,
        merchant_reference: merchantReference,
        customer_bank_account_name: body.customerBankAccountName,
        customer_bank_account_number: accountNumber,
        customer_bank_code: body.customerBankCode,
        idempotency_key: idempotencyKey,
        request_hash: requestHash,
        qr_payload: setup.proxy ? promptPayPayload(setup.proxy, amountSatang) : null,
        bank_transfer_reference: setup.collection ? shortReference(BANK_TRANSFER_REFERENCE_LENGTH) : null,
        redirect_url: method === "promptpay" ? integration.redirect_url : null,
        transfer_bank_code: setup.collection?.bankCode ?? null,
        transfer_account_number: setup.collection?.accountNumber ?? null,
        transfer_account_name: setup.collection?.accountName ?? null,
        expires_at: addMinutes(now, expiresInMinutes),
        confirmed_at: null,
        captured_at: null,
        canceled_at: null,
        created_at: now,
        updated_at: now,
      });
      if (inserted) return { outcome: "created", payment: view(inserted) };

      // Nothing was inserted: a concurrent request committed a row with one of our unique
      // keys after the lookup above (PostgreSQL waited for that commit, so this lookup,
      // a new statement under READ COMMITTED, sees it). Settle against it the same way.
      const later = await settle();
      if (later) return later;
      // What is left is a bank transfer reference already given to another payment of this
      // merchant (or, vanishingly rarely, a repeated UUID): draw again.
    }
    throw new Error("could not allocate a unique payment id and bank transfer reference");
  });
}

export async function getPayment(
  deps: Deps,
  auth: AuthContext,
  id: string,
  mode: ResponseMode = "both",
): Promise<PaymentRecord> {
  // A malformed id cannot name a payment: the same 404 as a missing one, not a 400 that would
  // tell the caller more than "not found".
  if (!isUuid(id)) throw paymentNotFound();
  const row = await findPayment(deps.db, auth.merchant.id, id);
  if (!row) throw paymentNotFound();
  return paymentView(row, deps.config, mode);
}

export async function getPaymentByReference(
  deps: Deps,
  auth: AuthContext,
  referenceId: string,
  mode: ResponseMode = "both",
): Promise<PaymentRecord> {
  const row = await findPaymentByReference(deps.db, auth.merchant.id, referenceId);
  if (!row) throw paymentNotFound();
  return paymentView(row, deps.config, mode);
}

export async function cancelPayment(deps: Deps, auth: AuthContext, id: string): Promise<PaymentRecord> {
  if (!isUuid(id)) throw paymentNotFound();
  const { merchant } = auth;
  const row = await deps.db.transaction().execute(async (trx) => {
    // A payment whose expiresAt has come is expired even if the expiry job has not run yet,
    // so it cannot be canceled any more (lifecycle/payment-transitions.ts).
    await expirePaymentIfDue(trx, deps, merchant.id, id);
    const at = businessNow(deps.clock, merchant.clock_offset_ms);
    const canceled = await cancelOpenPayment(trx, merchant.id, id, at);
    if (canceled) {
      await recordPaymentCanceled(trx, deps, canceled, at);
      return canceled;
    }
    const current = await findPayment(trx, merchant.id, id);
    if (!current) throw paymentNotFound();
    throw fieldError(
      "VALIDATION_ERROR",
      "status",
      `Payment cannot be canceled: its status is ${current.status}`,
    );
  });
  return paymentView(row, deps.config);
}

export async function listPayments(
  deps: Deps,
  auth: AuthContext,
  query: ListPaymentsQuery,
): Promise<Page<PaymentRecord>> {
  const params = parseListQuery<PaymentSortField>(query, "createdAt");
  const { rows, total } = await listPaymentRows(
    deps.db,
    auth.merchant.id,
    { status: query.status, paymentMethod: query.paymentMethod },
    params,
  );
  const mode = query.responseMode ?? "both";
  return listPage(
    rows.map((row) => paymentView(row, deps.config, mode)),
    total,
    params,
  );
}

/** What the hosted payment page shows: no API key, only the payment id the customer holds. */
export interface HostedPaymentView {
  id: string;
  merchantName: string;
  amountThb: string;
  status: PaymentRecord["status"];
  paymentMethod: PaymentRecord["paymentMethod"];
  expiresAt: string | null;
  hasQr: boolean;
}

export async function getHostedPayment(deps: Deps, id: string): Promise<HostedPaymentView> {
  if (!isUuid(id)) throw paymentNotFound();
  const found = await findPaymentForHostedPage(deps.db, id);
  if (!found) throw paymentNotFound();
  const { payment, merchantName } = found;
  return {
    id: payment.id,
    merchantName,
    amountThb: formatThb(payment.amount_satang),
    status: payment.status,
    paymentMethod: payment.payment_method,
    expiresAt: payment.expires_at ? payment.expires_at.toISOString() : null,
    hasQr: payment.qr_payload !== null && !isFinal(payment.status),
  };
}

/**
 * The QR image of a payment that can still be paid. A final payment has no QR any more, so a
 * customer holding an old link cannot pay a canceled or expired payment.
 */
export async function getPaymentQrPng(deps: Deps, id: string): Promise<Buffer> {
  if (!isUuid(id)) throw paymentNotFound();
  const found = await findPaymentForHostedPage(deps.db, id);
  if (!found) throw paymentNotFound();
  const { payment } = found;
  if (payment.qr_payload === null || isFinal(payment.status)) {
    throw new AppError("RESOURCE_NOT_FOUND", "QR code not found");
  }
  return qrPng(payment.qr_payload);
}
