/**
 * Payment rules: create (idempotency, unique references, PromptPay reuse), retrieve, list and
 * cancel. Everything is scoped to the authenticated merchant, and every timestamp is the
 * merchant's business time (the injected clock plus its sandbox test-clock offset).
 *
 * Create checks, in order (CONTRACT 5): the body schema (in the route); rules the schema
 * cannot express; idempotent replay (same key and body -> the original record, 200; same key,
 * other body -> 422); duplicate referenceId (409); the merchant's setup for the method;
 * PromptPay reuse (200); insert (201). A create is first tried as one statement (the insert
 * with its replay record, `ON CONFLICT DO NOTHING`): it succeeds only when no lookup could have
 * found anything (the key, the reference, and for PromptPay reuse an open payment holding the
 * customer's and amount's reuse slot, all unique indexes), so its answer is the one the rules
 * give. Anything
 * else runs the checks inside one transaction, where the insert is `ON CONFLICT DO NOTHING`
 * followed by the same lookups again, so two processes racing with one key or one reference
 * end with one record: the loser reads the winner's row.
 */
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import type { Integration, Merchant, NewPayment, PaymentRow } from "../db/types.ts";
import type { PendingReplay } from "../http/auth.ts";
import { type Page, page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { addMinutes, businessNow, type Clock } from "../lib/clock.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { idempotencyKeyMismatch, requestHashOf, settleAgainst } from "../lib/idempotency.ts";
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
import { findMerchant } from "../merchants/store.ts";
import {
  COLLECTION_REFERENCE_LENGTH,
  COLLECTION_REFERENCE_PATTERN,
  type PaymentRouter,
} from "./collector.ts";
import { bindKeyToPayment, findKeyAlias, type KeyAlias } from "./key-aliases.ts";
import { type PromptPayProxy, promptPayPayload, promptPayProxyOf } from "./qr.ts";
import { awaitsInstruction, instructedPayment, instructPayment, noConnectorTookIt } from "./routing.ts";
import type {
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentRecord,
  PaymentSortField,
  ResponseMode,
} from "./schemas.ts";
import {
  findCreateConflicts,
  findPayment,
  findPaymentByCollectionReference,
  findPaymentByReference,
  findPaymentForOperator,
  findPaymentGrouped,
  findPaymentsByKeyOrReference,
  findPaymentsByMerchantReference,
  findSlottedPromptPay,
  giveUpReuseSlot,
  listPaymentRows,
  SIGNATURE_USED,
} from "./store.ts";
import {
  createPaymentRow,
  createPaymentRowWithReplayRecord,
  expirePaymentIfDue,
  isExpiryDue,
  movePayment,
} from "./transitions.ts";
import { paymentView, type ViewContext } from "./view.ts";

export const paymentNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payment not found");

/** A cancel of a payment in a final status (interface.md: 400 VALIDATION_ERROR). */
export function paymentNotCancelable(status: string): AppError {
  return fieldError("VALIDATION_ERROR", "status", `Payment cannot be canceled: its status is ${status}`);
}

/**
 * What the payment services use: the database or a transaction, the business clock, and the
 * public base URL the records' links start with.
 */
export interface PaymentContext {
  db: Db;
  clock: Clock;
  config: ViewContext;
  /** The live connectors' router (providers/routing/router.ts), when the deployment has one. */
  router?: PaymentRouter | undefined;
}

/** The integration a payment is created through: its id, and where its customers are sent back. */
type PaymentIntegration = Pick<Integration, "id" | "redirect_url">;

/** How a create request was answered: a new record (201), a replay or a reused payment (200). */
export type CreateOutcome = "created" | "replayed" | "reused";

export interface CreateResult {
  outcome: CreateOutcome;
  payment: PaymentRecord;
}

/**
 * A create's answer as the route sends it: `reused` when the payment came from PromptPay reuse,
 * for the request that was reused (outcome `reused`) and for every replay of its key (outcome
 * `replayed` with the reused payment's own referenceId), so a retry whose first answer was lost
 * still says the payment is not this order's own (header `Satang-Payment-Reused: true`).
 */
export interface CreateAnswer extends CreateResult {
  reused: boolean;
}

interface MethodSetup {
  proxy: PromptPayProxy | undefined;
  collection: { bankCode: string; accountNumber: string; accountName: string } | undefined;
}

/**
 * What the merchant must have configured before it can take a payment by this method. A routed
 * payment (a live connector takes it) is paid to the connector's account, not the merchant's own id.
 */
function methodSetup(
  merchant: Merchant,
  method: CreatePaymentBody["paymentMethod"],
  routed = false,
): MethodSetup {
  if (method === "promptpay" && routed) return { proxy: undefined, collection: undefined };
  if (method === "promptpay") {
    const proxy = promptPayProxyOf(merchant.promptpay_id);
    if (!proxy) throw methodUnavailable("promptpay");
    return { proxy, collection: undefined };
  }
  const bankCode = merchant.collection_bank_code;
  const accountNumber = merchant.collection_account_number;
  const accountName = merchant.collection_account_name;
  if (!bankCode || !accountNumber || !accountName) throw methodUnavailable("bank_transfer");
  return { proxy: undefined, collection: { bankCode, accountNumber, accountName } };
}

/** 400 for a payment method no connector of this deployment collects. */
function noConnectorFor(method: CreatePaymentBody["paymentMethod"]): AppError {
  return fieldError(
    "VALIDATION_ERROR",
    "paymentMethod",
    `${method} is not available: no payment connector of this deployment collects it`,
  );
}

/** 400 for a payment method the merchant is not set up to take. */
export function methodUnavailable(method: CreatePaymentBody["paymentMethod"]): AppError {
  return fieldError(
    "VALIDATION_ERROR",
    "paymentMethod",
    method === "promptpay"
      ? "promptpay is not available: the merchant has no usable PromptPay id configured"
      : "bank_transfer is not available: the merchant has no collection account configured",
  );
}

/** 400 for a PromptPay amount larger than a PromptPay QR can carry. */
export function promptPayAmountTooLarge(): AppError {
  return fieldError(
    "INVALID_AMOUNT",
    "amount",
    `amount exceeds the largest PromptPay QR amount (${formatThb(PROMPTPAY_QR_AMOUNT_SATANG_MAX)} THB)`,
  );
}

/** Rules on the body that its schema cannot express; the schema has run already. */
function checkBody(body: CreatePaymentBody) {
  const amountSatang = parseAmount(body.amount);
  if (amountSatang === null) throw fieldError("INVALID_AMOUNT", "amount", "amount is not a valid amount");
  if (body.paymentMethod === "promptpay" && amountSatang > PROMPTPAY_QR_AMOUNT_SATANG_MAX) {
    throw promptPayAmountTooLarge();
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

/** What a create writes that does not change between insert attempts. */
interface PaymentDraft {
  merchant: Merchant;
  integration: PaymentIntegration;
  body: CreatePaymentBody;
  checked: ReturnType<typeof checkBody>;
  idempotencyKey: string;
  requestHash: string;
  setup: MethodSetup;
  /** Whether a live connector is given the payment after its insert (payments/routing.ts). */
  routed: boolean;
  now: Date;
}

/** The row of a new payment with this id (and, for a bank transfer, a newly drawn reference). */
function paymentRowOf(draft: PaymentDraft, id: string): Omit<NewPayment, "status"> {
  const { merchant, integration, body, checked, setup, now } = draft;
  const method = body.paymentMethod;
  // A routed payment gets its reference now and its QR from the connector that takes it.
  const collected = draft.routed
    ? { reference: shortReference(COLLECTION_REFERENCE_LENGTH), qrPayload: null }
    : null;
  const expiresInMinutes =
    body.expiresInMinutes ??
    (method === "promptpay" ? PROMPTPAY_EXPIRY_DEFAULT_MINUTES : BANK_TRANSFER_EXPIRY_DEFAULT_MINUTES);
  return {
    id,
    merchant_id: merchant.id,
    integration_id: integration.id,
    amount_satang: checked.amountSatang,
    currency: "THB",
    payment_method: method,
    reference_id: body.referenceId,
    description: body.description ?? null,
    metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
    client_secret: `${id}_secret_${randomToken(CLIENT_SECRET_RANDOM_BYTES)}`,
    merchant_reference: checked.merchantReference,
    customer_bank_account_name: body.customerBankAccountName,
    customer_bank_account_number: checked.accountNumber,
    customer_bank_code: body.customerBankCode,
    idempotency_key: draft.idempotencyKey,
    request_hash: draft.requestHash,
    qr_payload:
      collected?.qrPayload ?? (setup.proxy ? promptPayPayload(setup.proxy, checked.amountSatang) : null),
    collection_reference: collected?.reference ?? null,
    bank_transfer_reference: setup.collection ? shortReference(BANK_TRANSFER_REFERENCE_LENGTH) : null,
    reuse_slot: reuses(merchant, body) ? true : null,
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
  };
}

/** Whether PromptPay reuse applies to this create (docs/payments.md "PromptPay reuse"). */
function reuses(merchant: Merchant, body: CreatePaymentBody): boolean {
  return body.paymentMethod === "promptpay" && merchant.promptpay_reuse;
}

/**
 * The open payment PromptPay reuse returns for this create, if any: the one holding the reuse
 * slot of the customer and amount (payments/store.ts), while its `expiresAt` is still ahead by
 * the merchant's business time. One past it does not hold the slot any longer: waiting for the
 * customer, it is expired now, as the expiry job would have (under its row lock, so two creates
 * expire it once); in a status that does not expire (processing, requires_capture), it gives
 * the slot up. Either way it leaves the unique index and the insert that follows can succeed.
 */
async function reusablePayment(
  trx: Trx,
  ctx: PaymentContext,
  draft: PaymentDraft,
): Promise<PaymentRow | undefined> {
  const { merchant, body, checked, now } = draft;
  const key = {
    merchantId: merchant.id,
    bankCode: body.customerBankCode,
    accountNumber: checked.accountNumber,
    amountSatang: checked.amountSatang,
  };
  // A slot given up passes to an older open payment of the customer and amount when one waits
  // for it (migration 0113), which is looked at in turn; each turn closes one payment or ends.
  for (let turn = 0; turn < REUSE_HANDOVERS_MAX; turn += 1) {
    const slotted = await findSlottedPromptPay(trx, key);
    if (!slotted) return undefined;
    if (slotted.expires_at !== null && slotted.expires_at.getTime() > now.getTime()) return slotted;
    if (isExpiryDue(slotted, now)) await expirePaymentIfDue(trx, ctx, merchant.id, slotted.id);
    else await giveUpReuseSlot(trx, slotted.id);
  }
  return undefined;
}

/** The most slotted payments past their `expiresAt` one create closes before it inserts. */
const REUSE_HANDOVERS_MAX = 16;

/**
 * Reuses an open payment (when reuse applies) or inserts the payment. When nothing was
 * inserted, a concurrent request committed a row with one of our unique keys after the lookup
 * (PostgreSQL waited for that commit, so the next lookup, a new statement under READ
 * COMMITTED, sees it): `settle` answers against it the same way, and a payment that took the
 * reuse slot is found by the next turn's reuse lookup. What is left is a bank transfer
 * reference already given to another payment of this merchant, a collection reference (ref1)
 * already given to any payment, or (vanishingly rarely) a repeated UUID: draw again.
 */
async function insertPayment(
  trx: Trx,
  ctx: PaymentContext,
  draft: PaymentDraft,
  settle: () => Promise<PaymentRow | undefined>,
): Promise<{ outcome: CreateOutcome; row: PaymentRow }> {
  const reuse = reuses(draft.merchant, draft.body);
  for (let attempt = 0; attempt < BANK_TRANSFER_REFERENCE_ATTEMPTS_MAX; attempt += 1) {
    const open = reuse ? await reusablePayment(trx, ctx, draft) : undefined;
    if (open) return reusedFor(trx, draft, open);
    const inserted = await createPaymentRow(trx, paymentRowOf(draft, newId()));
    if (inserted) return { outcome: "created", row: inserted };
    const later = await settle();
    if (later) return { outcome: "replayed", row: later };
  }
  throw new Error("could not insert the payment: its unique keys stayed taken");
}

/** What every way of creating a payment works from: the checked body and its keys. */
interface CreateRequest {
  merchant: Merchant;
  integration: PaymentIntegration;
  body: CreatePaymentBody;
  checked: ReturnType<typeof checkBody>;
  requestHash: string;
  idempotencyKey: string;
  /** Whether a live connector takes the payment after its insert (payments/routing.ts). */
  routed: boolean;
  view: (row: PaymentRow) => PaymentRecord;
}

/**
 * The common case in one statement: a new payment with fresh keys, written with the signed
 * request's replay record in one INSERT and one commit (payments/store.ts). Unique
 * constraints make that as safe as the lookups first: the insert succeeds only if no payment
 * of the merchant has the key or the reference. Answers undefined for everything else, which
 * the transaction below decides with the rules in their order (the insert found a key or the
 * PromptPay reuse slot taken, the merchant is not set up for the method, a signature used
 * before);
 * `recorded` then says whether the replay record committed already.
 */
async function createInOneStatement(
  ctx: PaymentContext,
  request: CreateRequest,
  replay: PendingReplay | undefined,
): Promise<{ result?: CreateResult; recorded: boolean }> {
  const { merchant, body } = request;
  if (ctx.db.isTransaction) return { recorded: false };
  let setup: MethodSetup;
  try {
    setup = methodSetup(merchant, body.paymentMethod, request.routed);
  } catch {
    return { recorded: false };
  }
  const now = businessNow(ctx.clock, merchant.clock_offset_ms);
  const row = paymentRowOf({ ...request, setup, routed: request.routed, now }, newId());
  const inserted = await createPaymentRowWithReplayRecord(ctx.db, row, replay?.use);
  if (inserted === SIGNATURE_USED) return { recorded: false };
  replay?.markWritten();
  if (!inserted) return { recorded: true };
  return { result: { outcome: "created", payment: request.view(inserted) }, recorded: true };
}

export async function createPayment(
  ctx: PaymentContext,
  merchant: Merchant,
  integration: PaymentIntegration,
  body: CreatePaymentBody,
  replay?: PendingReplay,
): Promise<CreateAnswer> {
  // In live a payment is made only when a connector collects its method (CONTRACT 15): no live
  // connector confirms a bank transfer, and one made anyway could never be paid.
  if (
    body.paymentMethod === "bank_transfer" &&
    ctx.router &&
    !ctx.router.collects("bank_transfer", merchant.provider ?? null)
  ) {
    throw noConnectorFor("bank_transfer");
  }
  const request: CreateRequest = {
    merchant,
    integration,
    body,
    checked: checkBody(body),
    requestHash: requestHashOf(body),
    idempotencyKey: body.idempotencyKey ?? newId(),
    routed: body.paymentMethod === "promptpay" && ctx.router?.collects("promptpay", null) === true,
    view: (row: PaymentRow) => paymentView(row, ctx.config, body.responseMode ?? "both"),
  };
  const made = await createWithoutConnector(ctx, request, replay);
  const result =
    !request.routed || !ctx.router || made.payment.paymentMethod !== "promptpay"
      ? made
      : await withConnector(ctx, ctx.router, request, made);
  // A replay answers the request's own payment, whose referenceId is the request's (it is part
  // of the body the key's hash covers), or the payment reuse bound the key to, whose is not.
  const reused =
    result.outcome === "reused" ||
    (result.outcome === "replayed" && result.payment.referenceId !== body.referenceId);
  return { ...result, reused };
}

async function createWithoutConnector(
  ctx: PaymentContext,
  request: CreateRequest,
  replay: PendingReplay | undefined,
): Promise<CreateResult> {
  const atOnce = await createInOneStatement(ctx, request, replay);
  if (atOnce.result) return atOnce.result;
  if (atOnce.recorded) {
    const answered = await answerFromOneRead(ctx, request);
    if (answered) return answered;
  }
  return createInTransaction(ctx, request, atOnce.recorded ? undefined : replay);
}

/**
 * A routed payment after its insert: the create that made it gives it to a connector; a replay
 * or a reuse of one still waiting returns it once that is done (payments/routing.ts).
 */
async function withConnector(
  ctx: PaymentContext,
  router: PaymentRouter,
  request: CreateRequest,
  result: CreateResult,
): Promise<CreateResult> {
  const { merchant, view } = request;
  const row = await findPayment(ctx.db, merchant.id, result.payment.id);
  if (!row) throw noConnectorTookIt();
  if (!awaitsInstruction(row)) return { outcome: result.outcome, payment: view(row) };
  if (result.outcome === "created") {
    return { outcome: "created", payment: view(await instructPayment(ctx.db, router, merchant, row)) };
  }
  return {
    outcome: result.outcome,
    payment: view(await instructedPayment(ctx.db, router, merchant.id, row.id)),
  };
}

/**
 * The answer to a create whose one statement inserted nothing, when one read decides it: the
 * payments holding its key or reference (replay 200, 422 or 409, as the rules in the
 * transaction would answer) and, with PromptPay reuse, the open payment holding its reuse slot
 * while its `expiresAt` is ahead (reused, 200). All in one statement and its one snapshot, with
 * no transaction: these answers write nothing. Undefined for what needs a write (the slot's
 * payment is past its `expiresAt`) or found nothing (the key's payment went away): the
 * transaction decides those.
 */
async function answerFromOneRead(
  ctx: PaymentContext,
  request: CreateRequest,
): Promise<CreateResult | undefined> {
  const { merchant, body, checked, idempotencyKey, requestHash, view } = request;
  const found = await findCreateConflicts(ctx.db, {
    merchantId: merchant.id,
    idempotencyKey,
    referenceId: body.referenceId,
    reuse: reuses(merchant, body)
      ? {
          bankCode: body.customerBankCode,
          accountNumber: checked.accountNumber,
          amountSatang: checked.amountSatang,
        }
      : undefined,
    bound: body.idempotencyKey !== undefined,
  });
  const binding = found.byKey.some((row) => row.idempotency_key === idempotencyKey)
    ? undefined
    : found.binding;
  const earlier = settleCreate(found.byKey, binding, {
    idempotencyKey,
    referenceId: body.referenceId,
    requestHash,
  });
  if (earlier) return { outcome: "replayed", payment: view(earlier) };
  const now = businessNow(ctx.clock, merchant.clock_offset_ms);
  const open = found.slotted;
  if (open?.expires_at && open.expires_at.getTime() > now.getTime()) {
    const { outcome, row } = await reusedFor(ctx.db, { ...request, now }, open);
    return { outcome, payment: view(row) };
  }
  return undefined;
}

/**
 * The payment PromptPay reuse bound this create's key to, when the merchant sent the key (a
 * generated one is never bound) and no payment holds it as its own.
 */
async function keyBinding(
  db: Db,
  request: Pick<CreateRequest, "merchant" | "body" | "idempotencyKey">,
  byKey: readonly PaymentRow[],
): Promise<KeyAlias | undefined> {
  if (request.body.idempotencyKey === undefined) return undefined;
  if (byKey.some((row) => row.idempotency_key === request.idempotencyKey)) return undefined;
  return findKeyAlias(db, request.merchant.id, request.idempotencyKey);
}

/**
 * What the payments holding a create's key or reference, and the payment PromptPay reuse bound
 * its key to, mean for it (CONTRACT 5): the key decides first (the payment holding it, else the
 * one it is bound to: a replay with the same body, 422 with another), then the reference (409).
 */
function settleCreate(
  byKey: PaymentRow[],
  binding: KeyAlias | undefined,
  create: { idempotencyKey: string; referenceId: string; requestHash: string },
): PaymentRow | undefined {
  if (!binding) return settleAgainst("payment", byKey, create);
  if (binding.requestHash !== create.requestHash) throw idempotencyKeyMismatch();
  return binding.payment;
}

/**
 * A create answered by PromptPay reuse with the open payment `open`: the merchant's key is bound
 * to it, so a retry gets it again once it is paid, canceled or expired (migration 0115). When a
 * concurrent create with the same key bound it first, the answer is that binding's, as a replay.
 */
async function reusedFor(
  db: Db,
  draft: Pick<PaymentDraft, "merchant" | "body" | "idempotencyKey" | "requestHash" | "now">,
  open: PaymentRow,
): Promise<{ outcome: CreateOutcome; row: PaymentRow }> {
  const { merchant, body, idempotencyKey, requestHash } = draft;
  if (body.idempotencyKey === undefined) return { outcome: "reused", row: open };
  const alias = { merchantId: merchant.id, idempotencyKey, paymentId: open.id, requestHash, at: draft.now };
  if (await bindKeyToPayment(db, alias)) return { outcome: "reused", row: open };
  const bound = await findKeyAlias(db, merchant.id, idempotencyKey);
  // Gone between the two statements only with its payment (a routed one no connector took).
  if (!bound) return { outcome: "reused", row: open };
  if (bound.requestHash !== requestHash) throw idempotencyKeyMismatch();
  return { outcome: "replayed", row: bound.payment };
}

/**
 * The rules in their order, in one transaction: replay record, idempotent replay or duplicate
 * reference, the merchant's setup, PromptPay reuse, insert.
 */
async function createInTransaction(
  ctx: PaymentContext,
  request: CreateRequest,
  replay: PendingReplay | undefined,
): Promise<CreateResult> {
  const { merchant, body, idempotencyKey, requestHash, view } = request;
  return withTransaction(ctx.db, async (trx): Promise<CreateResult> => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds. The signed request's replay record commits with the
    // payment (http/auth.ts).
    await replay?.recordIn(trx);
    const now = businessNow(ctx.clock, merchant.clock_offset_ms);
    const settle = async () => {
      const byKey = await findPaymentsByKeyOrReference(trx, merchant.id, idempotencyKey, body.referenceId);
      return settleCreate(byKey, await keyBinding(trx, request, byKey), {
        idempotencyKey,
        referenceId: body.referenceId,
        requestHash,
      });
    };
    const earlier = await settle();
    if (earlier) return { outcome: "replayed", payment: view(earlier) };

    const setup = methodSetup(merchant, body.paymentMethod, request.routed);
    const draft = { ...request, setup, routed: request.routed, now };
    const { outcome, row } = await insertPayment(trx, ctx, draft, settle);
    return { outcome, payment: view(row) };
  });
}

export async function getPayment(
  ctx: Pick<PaymentContext, "db" | "config">,
  merchant: Merchant,
  id: string,
  mode: ResponseMode = "both",
): Promise<PaymentRecord> {
  // A malformed id cannot name a payment: the same 404 as a missing one, not a 400 that would
  // tell the caller more than "not found".
  if (!isUuid(id)) throw paymentNotFound();
  const row = await findPaymentGrouped(ctx.db, merchant.id, id);
  if (!row) throw paymentNotFound();
  return paymentView(row, ctx.config, mode);
}

export async function getPaymentByReference(
  ctx: Pick<PaymentContext, "db" | "config">,
  merchant: Merchant,
  referenceId: string,
  mode: ResponseMode = "both",
): Promise<PaymentRecord> {
  const row = await findPaymentByReference(ctx.db, merchant.id, referenceId);
  if (!row) throw paymentNotFound();
  return paymentView(row, ctx.config, mode);
}

/** A payment as the operator finds it by its collection reference: the record, its merchant, the reference. */
export type OperatorPaymentRecord = PaymentRecord & { merchantId: string; collectionReference: string };

/**
 * The operator's lookup of a live PromptPay payment by its collection reference (the reference
 * the connector collects it under, which the provider shows), across merchants. References are
 * upper case; one typed in lower case is found too. Text that
 * cannot be a reference answers 404 like an unknown one.
 */
export async function getPaymentByCollectionReference(
  ctx: Pick<PaymentContext, "db" | "config">,
  reference: string,
): Promise<OperatorPaymentRecord> {
  const ref1 = reference.toUpperCase();
  if (!COLLECTION_REFERENCE_PATTERN.test(ref1)) throw paymentNotFound();
  const row = await findPaymentByCollectionReference(ctx.db, ref1);
  if (!row) throw paymentNotFound();
  return { ...paymentView(row, ctx.config), merchantId: row.merchant_id, collectionReference: ref1 };
}

/** The operator's view of a payment: the record, its merchant and the connector that took it. */
export interface OperatorPaymentView extends PaymentRecord {
  merchantId: string;
  /** The connector that took the payment (its SATANG_PROVIDER name); null for the sandbox bank's payments. */
  provider: string | null;
  /** That connector's own id of the payment (a gateway's charge id), or null. */
  providerPaymentId: string | null;
  /** The payment's collection reference at its connector (a bank's ref1, a gateway's metadata), or null. */
  collectionReference: string | null;
}

export async function getPaymentForOperator(
  ctx: Pick<PaymentContext, "db" | "config">,
  id: string,
): Promise<OperatorPaymentView> {
  if (!isUuid(id)) throw paymentNotFound();
  const row = await findPaymentForOperator(ctx.db, id);
  if (!row) throw paymentNotFound();
  return operatorPaymentView(row, ctx.config);
}

function operatorPaymentView(row: PaymentRow, config: ViewContext): OperatorPaymentView {
  return {
    ...paymentView(row, config),
    merchantId: row.merchant_id,
    provider: row.provider,
    providerPaymentId: row.provider_payment_id,
    collectionReference: row.collection_reference,
  };
}

/**
 * The operator's search by the merchant's own reference (CONTRACT 6: `merchantReference` and
 * its alias `invoiceNo` are stored and searchable by the operator, never in records), compared
 * exactly, of one merchant (an unknown one: 404) or of all, newest first. The records are the
 * operator's view; the reference itself is not shown in them.
 */
export async function searchPaymentsByMerchantReference(
  ctx: Pick<PaymentContext, "db" | "config">,
  query: { merchantReference: string; merchantId?: string | undefined; page: number; limit: number },
): Promise<Page<OperatorPaymentView>> {
  const merchantId = query.merchantId?.toLowerCase();
  if (merchantId !== undefined && !(isUuid(merchantId) && (await findMerchant(ctx.db, merchantId)))) {
    throw notFound("Merchant");
  }
  const { rows, total } = await findPaymentsByMerchantReference(ctx.db, {
    merchantReference: query.merchantReference,
    merchantId,
    offset: (query.page - 1) * query.limit,
    limit: query.limit,
  });
  return page(
    rows.map((row) => operatorPaymentView(row, ctx.config)),
    total,
    query.page,
    query.limit,
  );
}

export async function cancelPayment(
  ctx: PaymentContext,
  merchant: Merchant,
  id: string,
  /** Told why a live connector's charge was not ended (the route logs it for the operator). */
  onRevokeFailed?: (detail: { connector: string; providerPaymentId: string; error: string }) => void,
): Promise<PaymentRecord> {
  if (!isUuid(id)) throw paymentNotFound();
  type Outcome = { canceled: PaymentRow } | { refused: string };
  const outcome = await withTransaction(ctx.db, async (trx): Promise<Outcome> => {
    // A payment whose expiresAt has come is expired even if the expiry job has not run yet,
    // so it cannot be canceled any more (transitions.ts). The expiry commits with its event
    // although the cancel is refused: the answer says "expired", and so does the record.
    await expirePaymentIfDue(trx, ctx, merchant.id, id);
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const canceled = await movePayment(trx, ctx, "cancel", { id, merchantId: merchant.id }, at);
    if (canceled) return { canceled };
    const current = await findPayment(trx, merchant.id, id);
    if (!current) throw paymentNotFound();
    return { refused: String(current.status) };
  });
  if ("refused" in outcome) throw paymentNotCancelable(outcome.refused);
  const row = outcome.canceled;
  // A live connector's charge would still take the customer's money until its own expiry:
  // it is ended now, before the answer (best effort: a charge paid all the same is refused as an
  // anomaly, docs/lifecycle.md "Late confirmation").
  if (row.provider !== null && row.provider_payment_id !== null && ctx.router?.revoke) {
    const error = await ctx.router.revoke(row.provider, row.provider_payment_id);
    if (error !== null) {
      onRevokeFailed?.({ connector: row.provider, providerPaymentId: row.provider_payment_id, error });
    }
  }
  return paymentView(row, ctx.config);
}

export async function listPayments(
  ctx: Pick<PaymentContext, "db" | "config">,
  merchant: Merchant,
  query: ListPaymentsQuery,
): Promise<Page<PaymentRecord>> {
  const params = parseListQuery<PaymentSortField>(query, "createdAt");
  const { rows, total } = await listPaymentRows(
    ctx.db,
    merchant.id,
    { status: query.status, paymentMethod: query.paymentMethod },
    params,
  );
  const mode = query.responseMode ?? "both";
  return listPage(
    rows.map((row) => paymentView(row, ctx.config, mode)),
    total,
    params,
  );
}
