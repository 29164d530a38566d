/**
 * SQL of the payments module. Every lookup of the public API is scoped by merchant (the hosted
 * page's lookup by payment id alone is in hosted/store.ts).
 */
import { CompiledQuery, type QueryCreator, sql } from "kysely";
import { boundsOf } from "../db/bounds.ts";
import { afterLastChange, notBeforeLastChange } from "../db/change-times.ts";
import { type CachedStatement, cachedStatement } from "../db/compiled.ts";
import { inFixedSet } from "../db/fixed-sets.ts";
import { type Db, withTransaction } from "../db/handles.ts";
import { inTurn } from "../db/key-queue.ts";
import { merchantListPages, type SortColumns } from "../db/pages.ts";
import { runTogetherAndCommit, type Statement } from "../db/pg-driver.ts";
import { isReplayRecordConflict, replayRecordRow, type SignatureUse } from "../db/replay-records.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import { poolQueueBound, StatementGroup } from "../db/statement-group.ts";
import type { Database, NewPayment, PaymentMethod, PaymentRow, PaymentStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import { boundPaymentQuery, type KeyAlias } from "./key-aliases.ts";
import type { PaymentSortField } from "./schemas.ts";
import { OPEN_PAYMENT_STATUSES } from "./statuses.ts";
import { PAYMENT_VIEW_COLUMNS, type PaymentViewRow } from "./view.ts";

/**
 * Inserts unless a unique key (id, idempotency key, reference id, transfer reference) is taken
 * or the idempotency key was answered by PromptPay reuse (`guardedInsert`).
 */
export async function insertPaymentIfAbsent(db: Db, row: NewPayment): Promise<PaymentRow | undefined> {
  return guardedInsert(db, [row]).executeTakeFirst();
}

/** The signed request's replay record was written before: nothing was inserted. */
export const SIGNATURE_USED = "signature_used";

/**
 * Every column a create writes (`settled_at` is set by settlement, and the refunded sums by
 * refunds, never at create).
 */
const NEW_PAYMENT_COLUMNS = [
  "id",
  "merchant_id",
  "integration_id",
  "amount_satang",
  "currency",
  "status",
  "payment_method",
  "reference_id",
  "description",
  "metadata",
  "client_secret",
  "merchant_reference",
  "customer_bank_account_name",
  "customer_bank_account_number",
  "customer_bank_code",
  "idempotency_key",
  "request_hash",
  "qr_payload",
  "collection_reference",
  "provider",
  "provider_payment_id",
  "bank_transfer_reference",
  "reuse_slot",
  "redirect_url",
  "transfer_bank_code",
  "transfer_account_number",
  "transfer_account_name",
  "expires_at",
  "confirmed_at",
  "captured_at",
  "canceled_at",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof NewPayment)[];

/**
 * The PostgreSQL type of each column a create writes: a guarded insert's rows are a VALUES list
 * read by a SELECT, which, unlike a plain INSERT's VALUES, does not take the columns' types.
 */
const NEW_PAYMENT_COLUMN_TYPES = {
  id: "uuid",
  merchant_id: "uuid",
  integration_id: "uuid",
  amount_satang: "bigint",
  currency: "text",
  status: "text",
  payment_method: "text",
  reference_id: "text",
  description: "text",
  metadata: "jsonb",
  client_secret: "text",
  merchant_reference: "text",
  customer_bank_account_name: "text",
  customer_bank_account_number: "text",
  customer_bank_code: "text",
  idempotency_key: "text",
  request_hash: "text",
  qr_payload: "text",
  collection_reference: "text",
  provider: "text",
  provider_payment_id: "text",
  bank_transfer_reference: "text",
  reuse_slot: "boolean",
  redirect_url: "text",
  transfer_bank_code: "text",
  transfer_account_number: "text",
  transfer_account_name: "text",
  expires_at: "timestamptz",
  confirmed_at: "timestamptz",
  captured_at: "timestamptz",
  canceled_at: "timestamptz",
  created_at: "timestamptz",
  updated_at: "timestamptz",
} as const satisfies Record<(typeof NEW_PAYMENT_COLUMNS)[number], string>;

/** For tests: the column types above, checked against the store's own catalog. */
export const paymentColumnTypes: Readonly<Record<string, string>> = NEW_PAYMENT_COLUMN_TYPES;

const NEW_PAYMENT_COLUMN_LIST = sql.raw(NEW_PAYMENT_COLUMNS.join(", "));

/**
 * `INSERT ... ON CONFLICT DO NOTHING RETURNING *` of `rows`, except that a row whose idempotency
 * key PromptPay reuse already answered with another payment (payment_key_aliases, migration
 * 0115) is not inserted either: that key is bound to the payment it was given, and the create
 * answers from it (payments/service.ts). One index probe a row, of a table that holds only such
 * keys.
 */
function guardedInsert(db: Pick<QueryCreator<Database>, "insertInto">, rows: readonly NewPayment[]) {
  // Each row's place (a literal) orders the insert as the rows were given: when two rows of a
  // group share a key, the earlier one is inserted and the later one finds it taken.
  const values = sql.join(
    rows.map(
      (row, place) =>
        sql`(${sql.join([
          ...NEW_PAYMENT_COLUMNS.map(
            (column) => sql`${row[column]}::${sql.raw(NEW_PAYMENT_COLUMN_TYPES[column])}`,
          ),
          sql.raw(String(place)),
        ])})`,
    ),
  );
  return db
    .insertInto("payments")
    .columns(NEW_PAYMENT_COLUMNS)
    .expression(
      sql`SELECT ${NEW_PAYMENT_COLUMN_LIST} FROM (VALUES ${values}) AS new (${NEW_PAYMENT_COLUMN_LIST}, place)
        WHERE NOT EXISTS (SELECT 1 FROM payment_key_aliases AS alias
          WHERE alias.merchant_id = new.merchant_id AND alias.idempotency_key = new.idempotency_key)
        ORDER BY place`,
    )
    .onConflict((oc) => oc.doNothing())
    .returningAll();
}

/** Fails to compile when a payments column is missing from the list above. */
type MissingPaymentColumn = Exclude<
  keyof NewPayment,
  | (typeof NEW_PAYMENT_COLUMNS)[number]
  | "settled_at"
  | "refunded_satang"
  | "refund_settlement_satang"
  // Written after the insert, by the connector's answer (payments/routing.ts).
  | "qr_image_url"
>;
const paymentColumnsComplete: [MissingPaymentColumn] extends [never] ? true : MissingPaymentColumn = true;
void paymentColumnsComplete;

type NewPaymentWithReplayRecord = NewPayment & {
  [K in keyof SignatureUse as `replay_${K}`]: SignatureUse[K];
};

const REPLAY_KEYS = ["replay_apiKey", "replay_timestampMs", "replay_signature", "replay_expiresAt"] as const;

/** The payment INSERT with its replay record in a data-modifying CTE, compiled once. */
const insertWithReplayRecord = cachedStatement<NewPaymentWithReplayRecord, PaymentRow>(
  [...NEW_PAYMENT_COLUMNS, ...REPLAY_KEYS],
  (db, params) => {
    const row = Object.fromEntries(
      NEW_PAYMENT_COLUMNS.map((column) => [column, params[column]]),
    ) as NewPayment;
    const use = {
      apiKey: params.replay_apiKey,
      timestampMs: params.replay_timestampMs,
      signature: params.replay_signature,
      expiresAt: params.replay_expiresAt,
    };
    return guardedInsert(
      // The CTE adds a name to what the statement may read; the INSERT reads none of it.
      db.with("replay_record", (q) => q.insertInto("signature_uses").values(replayRecordRow(use))) as Pick<
        QueryCreator<Database>,
        "insertInto"
      >,
      [row],
    );
  },
);

/**
 * Inserts the payment and, in the same statement, the signed request's replay record: one
 * round trip and, on a handle that is not a transaction, one commit. Answers the new row;
 * undefined when a unique key was taken (the replay record is kept: the request was not a
 * replay); SIGNATURE_USED when the replay record existed already (the statement failed as a
 * whole, so nothing of it is kept).
 */
export async function insertPaymentWithReplayRecord(
  db: Db,
  row: NewPayment,
  use: SignatureUse | undefined,
): Promise<PaymentRow | undefined | typeof SIGNATURE_USED> {
  if (!use) return insertPaymentIfAbsent(db, row);
  try {
    return await insertWithReplayRecord.takeFirst(db, {
      ...row,
      replay_apiKey: use.apiKey,
      replay_timestampMs: use.timestampMs,
      replay_signature: use.signature,
      replay_expiresAt: use.expiresAt,
    });
  } catch (error) {
    if (isReplayRecordConflict(error)) return SIGNATURE_USED;
    throw error;
  }
}

/** A new payment and, for a signed request, its replay record: one write of a group. */
export interface PaymentWrite {
  row: NewPayment;
  use: SignatureUse | undefined;
}

/** The most payments in one grouped INSERT. */
export const PAYMENT_GROUP_ITEMS_MAX = 32;
/** The most grouped INSERTs of payments in flight at once, per store (each holds a connection). */
export const PAYMENT_GROUPS_IN_FLIGHT_MAX = 4;
/**
 * How long creates that arrive while a group is in flight wait for it to end before a group
 * goes beside it (db/statement-group.ts `busyHoldMs`): a group answers within it while the
 * database is well, so under load the creates go in fewer and larger groups, and a slow group
 * delays the others by at most this.
 */
export const PAYMENT_GROUP_BUSY_HOLD_MS = 2;
/**
 * The longest a group's row waits for a lock (another transaction's uncommitted write of its
 * key) before the group gives up and each write runs alone.
 */
export const PAYMENT_GROUP_LOCK_WAIT_MAX_MS = 100;

type GroupParams = Record<string, unknown>;

/** The parameter names of the i-th write of a group (`p<i>_<column>`, `r<i>_<field>`). */
function groupKeysOf(i: number): { row: string[]; record: string[] } {
  return {
    row: NEW_PAYMENT_COLUMNS.map((column) => `p${i}_${column}`),
    record: REPLAY_KEYS.map((key) => `r${i}_${key}`),
  };
}

/** The grouped INSERT for each number of payments, with and without replay records. */
const groupStatements = new Map<string, CachedStatement<GroupParams, PaymentRow>>();

/**
 * `count` payments in one `INSERT ... ON CONFLICT DO NOTHING RETURNING *`, with their replay
 * records (when `withRecords`) in one data-modifying CTE. Parameters are `p<i>_<column>` and
 * `r<i>_<field>` for the i-th write.
 */
function groupStatement(count: number, withRecords: boolean): CachedStatement<GroupParams, PaymentRow> {
  const shape = `${count}:${withRecords}`;
  const known = groupStatements.get(shape);
  if (known) return known;
  const indexes = Array.from({ length: count }, (_, i) => i);
  const keys = indexes.map(groupKeysOf);
  const rowKeys = keys.flatMap((names) => names.row);
  const recordKeys = withRecords ? keys.flatMap((names) => names.record) : [];
  const statement = cachedStatement<GroupParams, PaymentRow>([...rowKeys, ...recordKeys], (db, params) => {
    const rows = indexes.map(
      (i) =>
        Object.fromEntries(
          NEW_PAYMENT_COLUMNS.map((column, c) => [column, params[keys[i]?.row[c] as string]]),
        ) as NewPayment,
    );
    if (!withRecords) return guardedInsert(db, rows);
    const records = indexes.map((i) =>
      replayRecordRow({
        apiKey: params[`r${i}_replay_apiKey`] as string,
        timestampMs: params[`r${i}_replay_timestampMs`] as bigint,
        signature: params[`r${i}_replay_signature`] as string,
        expiresAt: params[`r${i}_replay_expiresAt`] as Date,
      }),
    );
    return guardedInsert(
      db.with("replay_record", (q) => q.insertInto("signature_uses").values(records)) as Pick<
        QueryCreator<Database>,
        "insertInto"
      >,
      rows,
    );
  });
  groupStatements.set(shape, statement);
  return statement;
}

/**
 * The payments of `writes` (all with a replay record, or all without) in one statement, in a
 * transaction of its own sent in one round trip with its COMMIT (db/pg-driver.ts): each write's
 * new row, or undefined when one of its unique keys was taken (by an earlier payment or by an
 * earlier write of the group). Any failure fails every write: a replay record used before among
 * them fails the whole statement (statement-group.ts runs each alone).
 *
 * The transaction is there for its lock bound: a row of the group that waits for another
 * transaction's uncommitted write of the same merchant's key holds the group's other writes, of
 * any merchant, with it. The group waits at most PAYMENT_GROUP_LOCK_WAIT_MAX_MS (or the store's
 * lock bound when shorter), far inside CONTRACT 14's two seconds for other merchants; then it
 * fails with lock_not_available and each write runs alone (statement-group.ts).
 */
export async function insertPaymentGroup(
  db: Db,
  writes: readonly PaymentWrite[],
): Promise<(PaymentRow | undefined)[]> {
  const lockWaitMs = Math.min(boundsOf(db).lockTimeoutMs, PAYMENT_GROUP_LOCK_WAIT_MAX_MS);
  return withTransaction(db, async (trx) => {
    const [, inserted] = await runTogetherAndCommit<[unknown, (PaymentRow | undefined)[]]>(
      trx,
      {
        query: CompiledQuery.raw(`set local lock_timeout = '${Math.trunc(lockWaitMs)}ms'`),
        decode: () => null,
      },
      paymentGroupStatement(trx, writes),
    );
    return inserted;
  });
}

/** The grouped INSERT of `writes`, for sending (with the COMMIT) by db/pg-driver.ts. */
function paymentGroupStatement(
  db: Db,
  writes: readonly PaymentWrite[],
): Statement<(PaymentRow | undefined)[]> {
  const withRecords = writes[0]?.use !== undefined;
  // The values in the order of the statement's names: every write's columns, then every record.
  const values: unknown[] = [];
  for (const { row } of writes) for (const column of NEW_PAYMENT_COLUMNS) values.push(row[column]);
  for (const { use } of writes) {
    if ((use !== undefined) !== withRecords)
      throw new Error("a payment group mixes signed and unsigned writes");
    if (use) values.push(use.apiKey, use.timestampMs, use.signature, use.expiresAt);
  }
  return {
    query: groupStatement(writes.length, withRecords).compileValues(db, values),
    decode: (result) => {
      const inserted = new Map((result.rows as PaymentRow[]).map((row) => [row.id, row]));
      return writes.map(({ row }) => inserted.get(row.id));
    },
  };
}

type PaymentWriteGroup = StatementGroup<PaymentWrite, PaymentRow | undefined | typeof SIGNATURE_USED>;

/** Per store: the group of signed writes (with replay records) and the group of the others. */
const writeGroups = new WeakMap<Db, { signed: PaymentWriteGroup; unsigned: PaymentWriteGroup }>();

function writeGroupsOf(db: Db): { signed: PaymentWriteGroup; unsigned: PaymentWriteGroup } {
  const known = writeGroups.get(db);
  if (known) return known;
  const group = (): PaymentWriteGroup =>
    new StatementGroup({
      runGroup: (writes) => insertPaymentGroup(db, writes),
      runOne: ({ row, use }) => insertPaymentWithReplayRecord(db, row, use),
      // After a group failed (one of its rows waited past the group's lock bound: its merchant's
      // row or key is held elsewhere), a merchant's writes retry two at a time (CONTRACT 14: one
      // merchant's held lock must not take the pool from the others).
      runAgainAlone: ({ row, use }) =>
        inTurn(db, `payment-writes:${row.merchant_id}`, () => insertPaymentWithReplayRecord(db, row, use)),
      maxItems: PAYMENT_GROUP_ITEMS_MAX,
      maxInFlight: PAYMENT_GROUPS_IN_FLIGHT_MAX,
      busyHoldMs: PAYMENT_GROUP_BUSY_HOLD_MS,
      ...poolQueueBound(db),
    });
  const groups = { signed: group(), unsigned: group() };
  writeGroups.set(db, groups);
  return groups;
}

/**
 * `insertPaymentWithReplayRecord`, sent together with the other payment creates of this
 * process that arrive at the same time (db/statement-group.ts): the same answers, one statement
 * and one commit for the group. On a transaction it runs alone, in that transaction.
 */
export function insertPaymentGrouped(
  db: Db,
  row: NewPayment,
  use: SignatureUse | undefined,
): Promise<PaymentRow | undefined | typeof SIGNATURE_USED> {
  if (db.isTransaction) return insertPaymentWithReplayRecord(db, row, use);
  const groups = writeGroupsOf(db);
  return (use ? groups.signed : groups.unsigned).submit({ row, use });
}

const findPaymentStatement = cachedStatement<{ merchantId: string; id: string }, PaymentRow>(
  ["merchantId", "id"],
  (db, params) =>
    db
      .selectFrom("payments")
      .selectAll()
      .where("merchant_id", "=", params.merchantId)
      .where("id", "=", params.id),
);

export async function findPayment(db: Db, merchantId: string, id: string): Promise<PaymentRow | undefined> {
  return findPaymentStatement.takeFirst(db, { merchantId, id });
}

/** A payment asked for by its merchant and id. */
interface PaymentLookup {
  merchantId: string;
  id: string;
}

/** Several lookups in one statement, whatever their number: the pairs go as two arrays. */
const findPaymentsStatement = cachedStatement<{ merchantIds: string[]; ids: string[] }, PaymentRow>(
  ["merchantIds", "ids"],
  (db, params) => {
    const read = sql<PaymentRow>`SELECT payments.* FROM payments
      JOIN unnest(${params.merchantIds}::uuid[], ${params.ids}::uuid[]) AS wanted (merchant_id, id)
        ON payments.id = wanted.id AND payments.merchant_id = wanted.merchant_id`;
    return { compile: () => read.compile(db) };
  },
);

/** Each lookup's payment (undefined when its merchant has no payment of that id), in one statement. */
export async function findPayments(
  db: Db,
  lookups: readonly PaymentLookup[],
): Promise<(PaymentRow | undefined)[]> {
  const { rows } = await findPaymentsStatement.execute(db, {
    merchantIds: lookups.map((lookup) => lookup.merchantId),
    ids: lookups.map((lookup) => lookup.id),
  });
  const found = new Map(rows.map((row) => [`${row.merchant_id}/${row.id}`, row]));
  return lookups.map((lookup) => found.get(`${lookup.merchantId}/${lookup.id}`));
}

/** The most lookups in one grouped read, and grouped reads in flight at once, per store. */
export const PAYMENT_READ_GROUP_ITEMS_MAX = 64;
export const PAYMENT_READ_GROUPS_IN_FLIGHT_MAX = 4;

const readGroups = new WeakMap<Db, StatementGroup<PaymentLookup, PaymentRow | undefined>>();

/**
 * `findPayment`, sent together with the other lookups of this process that arrive at the same
 * time (db/statement-group.ts): the same answer, one statement for the group. `id` must be a
 * UUID. On a transaction it runs alone, in that transaction.
 */
export function findPaymentGrouped(db: Db, merchantId: string, id: string): Promise<PaymentRow | undefined> {
  if (db.isTransaction) return findPayment(db, merchantId, id);
  let group = readGroups.get(db);
  if (!group) {
    group = new StatementGroup({
      runGroup: (lookups) => findPayments(db, lookups),
      runOne: (lookup) => findPayment(db, lookup.merchantId, lookup.id),
      maxItems: PAYMENT_READ_GROUP_ITEMS_MAX,
      maxInFlight: PAYMENT_READ_GROUPS_IN_FLIGHT_MAX,
      ...poolQueueBound(db),
    });
    readGroups.set(db, group);
  }
  return group.submit({ merchantId, id });
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

/** The live PromptPay payment with this collection reference (a bank's ref1): unique in the deployment. */
export function findPaymentByCollectionReference(db: Db, reference: string): Promise<PaymentRow | undefined> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where("collection_reference", "=", reference)
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

/** The PromptPay reuse slot of a create: its customer account and amount. */
export interface ReuseKey {
  bankCode: string;
  accountNumber: string;
  amountSatang: bigint;
}

/**
 * What a create whose insert found a unique key taken looks for, in one statement (one
 * snapshot): the payments holding its idempotency key or reference; when `reuse` is given, the
 * open payment holding its PromptPay reuse slot; when `bound` is set, the payment PromptPay
 * reuse bound its key to (migration 0115), with that request's hash.
 */
export async function findCreateConflicts(
  db: Db,
  key: {
    merchantId: string;
    idempotencyKey: string;
    referenceId: string;
    reuse: ReuseKey | undefined;
    bound: boolean;
  },
): Promise<{ byKey: PaymentRow[]; slotted: PaymentRow | undefined; binding: KeyAlias | undefined }> {
  const byKeyQuery = db
    .selectFrom("payments")
    .selectAll()
    .where("merchant_id", "=", key.merchantId)
    .where((eb) =>
      eb.or([eb("idempotency_key", "=", key.idempotencyKey), eb("reference_id", "=", key.referenceId)]),
    );
  if (!key.reuse && !key.bound)
    return { byKey: await byKeyQuery.execute(), slotted: undefined, binding: undefined };
  let query = byKeyQuery.select([
    sql<Found>`'key'`.as("__found"),
    sql<string | null>`null`.as("__bound_hash"),
  ]);
  if (key.reuse) {
    query = query.unionAll(
      slottedQuery(db, { merchantId: key.merchantId, ...key.reuse }).select([
        sql<Found>`'slot'`.as("__found"),
        sql<string | null>`null`.as("__bound_hash"),
      ]),
    );
  }
  if (key.bound) {
    query = query.unionAll(
      boundPaymentQuery(db, key.merchantId, key.idempotencyKey).select([
        sql<Found>`'bound'`.as("__found"),
        "alias.request_hash as __bound_hash",
      ]),
    );
  }
  const rows = await query.execute();
  const strip = ({ __found: _, __bound_hash: __, ...row }: (typeof rows)[number]): PaymentRow => row;
  const slotted = rows.find((row) => row.__found === "slot");
  const bound = rows.find((row) => row.__found === "bound");
  return {
    byKey: rows.filter((row) => row.__found === "key").map(strip),
    slotted: slotted && strip(slotted),
    binding: bound && { payment: strip(bound), requestHash: bound.__bound_hash as string },
  };
}

/** Which part of `findCreateConflicts` found a row. */
type Found = "key" | "slot" | "bound";

function slottedQuery(db: Db, key: { merchantId: string } & ReuseKey) {
  return (
    db
      .selectFrom("payments")
      .selectAll()
      .where("merchant_id", "=", key.merchantId)
      .where("customer_bank_code", "=", key.bankCode)
      .where("customer_bank_account_number", "=", key.accountNumber)
      .where("amount_satang", "=", key.amountSatang)
      // Literals, so that every plan can use the partial index (db/fixed-sets.ts).
      .where(sql<boolean>`reuse_slot`)
      .where(inFixedSet("status", OPEN_PAYMENT_STATUSES))
  );
}

/**
 * The open PromptPay payment that holds the reuse slot of this merchant, customer account and
 * amount (at most one: the unique index payments_promptpay_reuse, migration 0095), expired by
 * its time or not: the caller decides.
 */
export async function findSlottedPromptPay(
  db: Db,
  key: { merchantId: string } & ReuseKey,
): Promise<PaymentRow | undefined> {
  return slottedQuery(db, key).executeTakeFirst();
}

/**
 * Takes an open payment out of PromptPay reuse: one whose `expiresAt` has passed while it is in
 * a status that does not expire (processing, requires_capture), so it is no longer reused and
 * must not hold a new payment back. Its status and record do not change.
 */
export async function giveUpReuseSlot(db: Db, id: string): Promise<void> {
  await db.updateTable("payments").set({ reuse_slot: null }).where("id", "=", id).execute();
}

/** Locks a payment for the rest of the transaction, read with its merchant's clock offset. */
export async function lockPayment(db: Db, paymentId: string): Promise<WithOffset<PaymentRow> | undefined> {
  const rows = await db
    .selectFrom("payments")
    .innerJoin("merchants", "merchants.id", "payments.merchant_id")
    .selectAll("payments")
    .select("merchants.clock_offset_ms")
    .where("payments.id", "=", paymentId)
    .forUpdate("payments")
    .execute();
  return withOffsets(rows)[0];
}

/** The reason a confirmation past the late-confirmation window is refused and recorded with. */
export const LATE_WINDOW_PASSED = "late_confirmation_window_passed";

/**
 * Whether a confirmation of this payment was refused before as past its late-confirmation
 * window (recorded for the operator, lifecycle/store.ts `insertAnomaly`). Such a refusal stands:
 * a sandbox clock reset brings the merchant's business time back inside the window, but nothing
 * moves backwards for a record (CONTRACT 10). Read only for a confirmation of an expired payment.
 */
export async function lateConfirmationRefusedBefore(
  db: Db,
  row: Pick<PaymentRow, "id" | "merchant_id">,
): Promise<boolean> {
  const found = await db
    .selectFrom("provider_anomalies")
    .select("id")
    .where("merchant_id", "=", row.merchant_id)
    .where("subject_type", "=", "payment")
    .where("subject_id", "=", row.id)
    .where("reason", "=", LATE_WINDOW_PASSED)
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** The columns a status change stamps besides `status` and `updated_at`. */
export type PaymentStamps = Partial<Pick<PaymentRow, "canceled_at" | "captured_at" | "confirmed_at">> & {
  /** Sets confirmed_at to this time unless the payment was confirmed before. */
  confirmedAtIfUnset?: Date;
};

/**
 * Moves a payment from one of `from` to `to` in one conditional statement, so a payment that
 * another request or a worker moved in the meantime is left alone. Undefined when nothing
 * changed. `merchantId` scopes a merchant's own request. Only payments/transitions.ts calls it.
 */
export async function updatePaymentStatus(
  db: Db,
  change: {
    id: string;
    merchantId: string | undefined;
    from: readonly PaymentStatus[];
    to: PaymentStatus;
    at: Date;
    stamps: PaymentStamps;
  },
): Promise<PaymentRow | undefined> {
  const { confirmedAtIfUnset, ...stamps } = change.stamps;
  let update = db
    .updateTable("payments")
    .set({
      status: change.to,
      updated_at: afterLastChange(change.at),
      ...Object.fromEntries(
        Object.entries(stamps).map(([column, at]) => [column, notBeforeLastChange(at as Date)]),
      ),
      ...(confirmedAtIfUnset === undefined
        ? {}
        : { confirmed_at: sql<Date>`coalesce(confirmed_at, ${notBeforeLastChange(confirmedAtIfUnset)})` }),
    })
    .where("id", "=", change.id)
    .where("status", "in", change.from);
  if (change.merchantId !== undefined) update = update.where("merchant_id", "=", change.merchantId);
  return update.returningAll().executeTakeFirst();
}

interface PaymentFilters {
  status: PaymentStatus | undefined;
  paymentMethod: PaymentMethod | undefined;
}

/** The sort fields of the payments list: their columns, text ones compared by bytes. */
const PAYMENT_SORT: SortColumns<PaymentSortField> = {
  columns: {
    amount: "amount_satang",
    status: "status",
    createdAt: "created_at",
    confirmedAt: "confirmed_at",
    capturedAt: "captured_at",
    referenceId: "reference_id",
  },
  byteOrdered: ["status", "referenceId"],
  emptyLast: ["confirmedAt", "capturedAt"],
};

const paymentPages = merchantListPages({
  table: "payments",
  variantColumn: "payment_method",
  sort: PAYMENT_SORT,
  columns: PAYMENT_VIEW_COLUMNS,
});

/**
 * One page of a merchant's payments and the total matching the filters (db/pages.ts: `id`
 * breaks ties, empty timestamps sort last in both directions), each row with the columns of the
 * record only.
 */
export async function listPaymentRows(
  db: Db,
  merchantId: string,
  filters: PaymentFilters,
  params: ListParams<PaymentSortField>,
): Promise<{ rows: PaymentViewRow[]; total: number }> {
  return paymentPages(db, { merchantId, status: filters.status, variant: filters.paymentMethod }, params);
}

/** Records the connector's answer on a routed payment still waiting for it (payments/routing.ts). */
export async function recordInstruction(
  db: Db,
  id: string,
  answer: Pick<NewPayment, "provider" | "provider_payment_id" | "qr_payload" | "qr_image_url">,
): Promise<PaymentRow | undefined> {
  return db
    .updateTable("payments")
    .set(answer)
    .where("id", "=", id)
    .where("provider", "is", null)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a routed payment no connector took: it was never shown to anyone but its replays. */
export async function deleteUninstructedPayment(db: Db, id: string): Promise<void> {
  await db.deleteFrom("payments").where("id", "=", id).where("provider", "is", null).execute();
}

/** A payment by its id alone, whatever its merchant: the operator's lookup. */
export async function findPaymentForOperator(db: Db, id: string): Promise<PaymentRow | undefined> {
  return db.selectFrom("payments").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * The operator's search by the merchant's own reference (`merchant_reference`, stored from
 * `merchantReference` or `invoiceNo`), of one merchant or all, newest first; compared exactly.
 * Read through `payments_by_merchant_reference` (migration 0120).
 */
export async function findPaymentsByMerchantReference(
  db: Db,
  search: { merchantReference: string; merchantId: string | undefined; offset: number; limit: number },
): Promise<{ rows: PaymentRow[]; total: number }> {
  let matching = db.selectFrom("payments").where("merchant_reference", "=", search.merchantReference);
  if (search.merchantId !== undefined) matching = matching.where("merchant_id", "=", search.merchantId);
  const [rows, counted] = await Promise.all([
    matching
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .offset(search.offset)
      .limit(search.limit)
      .execute(),
    matching.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(counted.total) };
}
