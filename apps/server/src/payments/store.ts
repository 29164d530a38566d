/**
 * SQL of the payments module. Every lookup of the public API is scoped by merchant; the one
 * unscoped read (`findPaymentForHostedPage`) serves the hosted page, whose only key is the
 * payment id the customer was sent.
 */
import { sql } from "kysely";
import type { NewPayment, PaymentMethod, PaymentRow, PaymentStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import type { Db } from "../merchants/store.ts";
import type { PaymentSortField } from "./schemas.ts";

/** Statuses a payment can still be paid (or canceled) from. */
export const OPEN_PAYMENT_STATUSES: readonly PaymentStatus[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
];

/**
 * Class id of the payments module's advisory locks. The two-key form of pg_advisory_xact_lock
 * lives in a key space apart from the one-key (bigint) form, so these locks cannot collide
 * with another module's; the class id keeps them apart from other two-key users.
 */
const PAYMENTS_LOCK_CLASS = 0x5041_5931;

/**
 * Serializes PromptPay creates for one merchant, customer account and amount until the
 * transaction ends, so two concurrent creates cannot both miss the reusable payment and both
 * insert. Different customers or amounts do not wait on each other (barring a hash collision,
 * which only costs a wait).
 */
export async function lockPromptPayCustomer(
  db: Db,
  key: { merchantId: string; bankCode: string; accountNumber: string; amountSatang: bigint },
): Promise<void> {
  const text = `promptpay:${key.merchantId}:${key.bankCode}:${key.accountNumber}:${key.amountSatang}`;
  await sql`select pg_advisory_xact_lock(${PAYMENTS_LOCK_CLASS}::int4, hashtext(${text}))`.execute(db);
}

/** Inserts unless a unique key (id, idempotency key, reference id, transfer reference) is taken. */
export async function insertPaymentIfAbsent(db: Db, row: NewPayment): Promise<PaymentRow | undefined> {
  return db
    .insertInto("payments")
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findPayment(db: Db, merchantId: string, id: string): Promise<PaymentRow | undefined> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function findPaymentByReference(
  db: Db,
  merchantId: string,
  referenceId: string,
): Promise<PaymentRow | undefined> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("reference_id", "=", referenceId)
    .executeTakeFirst();
}

/**
 * The payments holding either unique key of a create, read in one statement: one snapshot, so
 * a row committed by a concurrent create is seen under both keys or under neither. (Two
 * separate lookups could miss it by key and then find it by reference, and call a replay a
 * duplicate.)
 */
export async function findPaymentsByKeyOrReference(
  db: Db,
  merchantId: string,
  idempotencyKey: string,
  referenceId: string,
): Promise<PaymentRow[]> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where((eb) => eb.or([eb("idempotency_key", "=", idempotencyKey), eb("reference_id", "=", referenceId)]))
    .execute();
}

/**
 * The newest open PromptPay payment of this merchant for the same customer account and amount
 * that has not expired at `now` (the merchant's business time). Served by the partial index
 * payments_open_promptpay.
 */
export async function findReusablePromptPay(
  db: Db,
  key: { merchantId: string; bankCode: string; accountNumber: string; amountSatang: bigint; now: Date },
): Promise<PaymentRow | undefined> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("merchant_id", "=", key.merchantId)
    .where("customer_bank_code", "=", key.bankCode)
    .where("customer_bank_account_number", "=", key.accountNumber)
    .where("amount_satang", "=", key.amountSatang)
    .where("payment_method", "=", "promptpay")
    .where("status", "in", OPEN_PAYMENT_STATUSES)
    .where("expires_at", ">", key.now)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Cancels in one conditional statement, so a payment that another request or a worker moved
 * to a final status in the meantime is left alone. Undefined when nothing was changed.
 */
export async function cancelOpenPayment(
  db: Db,
  merchantId: string,
  id: string,
  at: Date,
): Promise<PaymentRow | undefined> {
  return db
    .updateTable("payments")
    .set({ status: "canceled", canceled_at: at, updated_at: at })
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .where("status", "in", OPEN_PAYMENT_STATUSES)
    .returningAll()
    .executeTakeFirst();
}

export interface PaymentFilters {
  status: PaymentStatus | undefined;
  paymentMethod: PaymentMethod | undefined;
}

const SORT_COLUMNS = {
  amount: "amount_satang",
  status: "status",
  createdAt: "created_at",
  confirmedAt: "confirmed_at",
  capturedAt: "captured_at",
  referenceId: "reference_id",
} as const satisfies Record<PaymentSortField, string>;

/** Text columns sort by byte order, so both stores give the same order whatever their locale. */
const BYTE_ORDERED: ReadonlySet<PaymentSortField> = new Set(["status", "referenceId"]);

/**
 * One page of a merchant's payments and the total matching the filters. The sort column is
 * followed by `id` in the same direction, so rows with equal sort values keep one order across
 * pages; empty timestamps sort last in both directions.
 */
export async function listPaymentRows(
  db: Db,
  merchantId: string,
  filters: PaymentFilters,
  params: ListParams<PaymentSortField>,
): Promise<{ rows: PaymentRow[]; total: number }> {
  let query = db.selectFrom("payments").where("merchant_id", "=", merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.paymentMethod !== undefined) query = query.where("payment_method", "=", filters.paymentMethod);
  if (params.dateFrom !== undefined) query = query.where("created_at", ">=", params.dateFrom);
  if (params.dateTo !== undefined) query = query.where("created_at", "<", params.dateTo);

  const counted = await query.select((eb) => eb.fn.countAll<bigint>().as("n")).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (params.offset >= total) return { rows: [], total };

  const column = SORT_COLUMNS[params.sortBy];
  const byteOrdered = BYTE_ORDERED.has(params.sortBy);
  const rows = await query
    .selectAll()
    .orderBy(column, (ob) => {
      const directed = params.sortOrder === "asc" ? ob.asc() : ob.desc();
      return byteOrdered ? directed.nullsLast().collate("C") : directed.nullsLast();
    })
    .orderBy("id", params.sortOrder)
    .limit(params.limit)
    .offset(params.offset)
    .execute();
  return { rows, total };
}

export interface HostedPayment {
  payment: PaymentRow;
  merchantName: string;
}

export async function findPaymentForHostedPage(db: Db, id: string): Promise<HostedPayment | undefined> {
  const row = await db
    .selectFrom("payments")
    .innerJoin("merchants", "merchants.id", "payments.merchant_id")
    .selectAll("payments")
    .select("merchants.name as merchant_name")
    .where("payments.id", "=", id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { merchant_name: merchantName, ...payment } = row;
  return { payment, merchantName };
}
