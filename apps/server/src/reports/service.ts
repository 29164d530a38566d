/**
 * CSV exports of a merchant's payments, withdraws and ledger movements (CONTRACT 11).
 *
 * `exportCsv` checks the query and reads the first batch before it returns, so every refusal
 * (a bad or missing date, a range over 366 days) and a failing first read answer in the JSON
 * envelope before the first byte. The rest streams batch by batch (store.ts) through a Node
 * `Readable`, which waits for the client to take each chunk: memory stays one batch whatever
 * the number of rows.
 *
 * Every export passes the process's export gate (export-gate.ts): a merchant's third export at
 * once answers 429 and the process's ninth 503, both with Retry-After and before any CSV byte;
 * an admitted export reads each batch in a turn shared by all exports and yields the event loop
 * between batches, so other merchants' requests are not stuck behind it.
 */
import { Readable } from "node:stream";
import type { Db } from "../db/handles.ts";
import type { Merchant } from "../db/types.ts";
import { withinListDates, writtenInstantOf } from "../http/list-query.ts";
import { maskAccountNumber } from "../lib/account-number.ts";
import { findBank } from "../lib/bank-codes.ts";
import type { Clock } from "../lib/clock.ts";
import { fieldError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { EXPORT_BATCH_ROWS, EXPORT_RANGE_DAYS_MAX } from "../lib/limits.ts";
import { formatThb } from "../lib/money.ts";
import {
  bangkokDay,
  type Cell,
  csvHeader,
  csvRow,
  numberCell,
  textCell,
  timeCells,
  timeColumns,
  UTF8_BOM,
} from "./csv.ts";
import { type ExportSlot, exportGateOf } from "./export-gate.ts";
import { PostingOrder } from "./posting-order.ts";
import type {
  LedgerExportQuery,
  PaymentsExportQuery,
  RefundsExportQuery,
  WithdrawsExportQuery,
} from "./schemas.ts";
import {
  type ExportWindow,
  type KeysetPosition,
  type LedgerExportRow,
  ledgerExportBatch,
  type PaymentExportRow,
  paymentExportBatch,
  type RefundExportRow,
  refundExportBatch,
  type WithdrawExportRow,
  withdrawExportBatch,
} from "./store.ts";

export interface ReportContext {
  db: Db;
  /** Real time, for the Retry-After of a refused export (never the sandbox clock). */
  wallClock: Clock;
}

export const EXPORT_KINDS = ["payments", "withdraws", "refunds", "ledger"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export interface CsvExport {
  /**
   * A file name for Content-Disposition: `<kind>-<first day>-<last day>.csv`, the Asia/Bangkok
   * calendar days of the first and the last instant of [dateFrom, dateTo). A dashboard range of
   * Bangkok days 1-26 November is named `...-2026-11-01-2026-11-26.csv`; an API range of UTC
   * days, 2026-01-01 to 2026-02-01, keeps `...-2026-01-01-2026-02-01.csv` (its last instant is
   * 06:59 on 1 February in Bangkok).
   */
  filename: string;
  body: Readable;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The export's [dateFrom, dateTo): both valid instants, in order, at most 366 days apart. */
export function exportRange(query: { dateFrom: string; dateTo: string }): { dateFrom: Date; dateTo: Date } {
  // Order and span are checked on the instants as written: brought within the list dates
  // first, two valid dates before LIST_DATE_MIN would read as equal ("not after").
  const dateFrom = writtenInstantOf(query.dateFrom, "dateFrom");
  const dateTo = writtenInstantOf(query.dateTo, "dateTo");
  if (!dateFrom || !dateTo)
    throw fieldError("VALIDATION_ERROR", dateFrom ? "dateTo" : "dateFrom", "required");
  if (dateTo.getTime() <= dateFrom.getTime()) {
    throw fieldError("VALIDATION_ERROR", "dateTo", "dateTo must be after dateFrom");
  }
  if (dateTo.getTime() - dateFrom.getTime() > EXPORT_RANGE_DAYS_MAX * DAY_MS) {
    throw fieldError(
      "VALIDATION_ERROR",
      "dateTo",
      `dateTo must be at most ${EXPORT_RANGE_DAYS_MAX} days after dateFrom`,
    );
  }
  return { dateFrom: withinListDates(dateFrom), dateTo: withinListDates(dateTo) };
}

/** How one kind of export reads and prints its rows. */
interface ExportPlan<R extends { id: string; created_at: Date }> {
  columns: readonly string[];
  read(window: ExportWindow): Promise<R[]>;
  cells(row: R): Cell[];
  /** Rows given back in another order than read (the ledger's posting order), one per export. */
  order?: () => { take(rows: readonly R[], last: boolean): R[] };
}

const bankName = (code: string | null) => (code === null ? null : (findBank(code)?.shortName ?? null));
const masked = (digits: string | null) => (digits === null ? null : maskAccountNumber(digits));
const thb = (satang: bigint) => numberCell(formatThb(satang));

const PAYMENT_COLUMNS = [
  "payment_id",
  "reference_id",
  "status",
  "payment_method",
  "amount_thb",
  "currency",
  "customer_name",
  "customer_account",
  "customer_bank_code",
  "customer_bank",
  "description",
  ...timeColumns("created_at"),
  ...timeColumns("paid_at"),
  ...timeColumns("canceled_at"),
  ...timeColumns("expires_at"),
];

function paymentCells(row: PaymentExportRow): Cell[] {
  return [
    textCell(row.id),
    textCell(row.reference_id),
    textCell(row.status),
    textCell(row.payment_method),
    thb(row.amount_satang),
    textCell(row.currency),
    textCell(row.customer_bank_account_name),
    textCell(masked(row.customer_bank_account_number)),
    textCell(row.customer_bank_code),
    textCell(bankName(row.customer_bank_code)),
    textCell(row.description),
    ...timeCells(row.created_at),
    ...timeCells(row.captured_at),
    ...timeCells(row.canceled_at),
    ...timeCells(row.expires_at),
  ];
}

const WITHDRAW_COLUMNS = [
  "withdraw_id",
  "reference_id",
  "status",
  "destination_type",
  "amount_thb",
  "currency",
  "account_name",
  "account_number",
  "bank_code",
  "bank",
  "description",
  ...timeColumns("created_at"),
  ...timeColumns("paid_at"),
  ...timeColumns("failed_at"),
  ...timeColumns("canceled_at"),
];

function withdrawCells(row: WithdrawExportRow): Cell[] {
  return [
    textCell(row.id),
    textCell(row.reference_id),
    textCell(row.status),
    textCell(row.destination_type),
    thb(row.amount_satang),
    textCell(row.currency),
    textCell(row.bank_account_name),
    textCell(masked(row.bank_account_number)),
    textCell(row.bank_code),
    textCell(bankName(row.bank_code)),
    textCell(row.description),
    ...timeCells(row.created_at),
    ...timeCells(row.paid_at),
    ...timeCells(row.failed_at),
    ...timeCells(row.canceled_at),
  ];
}

const REFUND_COLUMNS = [
  "refund_id",
  "payment_id",
  "reference_id",
  "status",
  "amount_thb",
  "currency",
  "reason",
  "failure_reason",
  "account_name",
  "account_number",
  "bank_code",
  "bank",
  ...timeColumns("created_at"),
  ...timeColumns("succeeded_at"),
  ...timeColumns("failed_at"),
  ...timeColumns("canceled_at"),
];

function refundCells(row: RefundExportRow): Cell[] {
  return [
    textCell(row.id),
    textCell(row.payment_id),
    textCell(row.reference_id),
    textCell(row.status),
    thb(row.amount_satang),
    textCell(row.currency),
    textCell(row.reason),
    textCell(row.failure_reason),
    textCell(row.bank_account_name),
    textCell(masked(row.bank_account_number)),
    textCell(row.bank_code),
    textCell(bankName(row.bank_code)),
    ...timeCells(row.created_at),
    ...timeCells(row.succeeded_at),
    ...timeCells(row.failed_at),
    ...timeCells(row.canceled_at),
  ];
}

const LEDGER_COLUMNS = [
  "entry_id",
  "transaction_id",
  "type",
  "account",
  "subject_type",
  "subject_id",
  "reference_id",
  "status",
  "amount_thb",
  "balance_after_thb",
  "masked_account",
  "reason",
  ...timeColumns("created_at"),
];

function ledgerCells(row: LedgerExportRow): Cell[] {
  return [
    textCell(row.id),
    textCell(row.transaction_id),
    textCell(row.kind),
    textCell(row.account),
    textCell(row.subject_type),
    textCell(row.subject_id),
    textCell(row.payment_reference ?? row.withdraw_reference ?? row.refund_reference),
    textCell(row.payment_status ?? row.withdraw_status ?? row.refund_status),
    thb(row.amount_satang),
    thb(row.balance_after_satang),
    textCell(masked(row.payment_account ?? row.withdraw_account ?? row.refund_account)),
    textCell(row.reason),
    ...timeCells(row.created_at),
  ];
}

const lastPosition = (
  rows: { id: string; created_at: Date; posting_seq?: bigint | string }[],
): KeysetPosition | undefined => {
  const last = rows.at(-1);
  if (!last) return undefined;
  const position: KeysetPosition = { createdAt: last.created_at, id: last.id };
  if (last.posting_seq !== undefined) position.postingSeq = BigInt(last.posting_seq);
  return position;
};

/** One batch: its rows (for the next position) and their CSV text. */
interface Batch<R> {
  rows: R[];
  text: string;
}

/** One export's reading: its plan, window and the order its rows are written in. */
interface Reading<R extends { id: string; created_at: Date }> {
  plan: ExportPlan<R>;
  window: ExportWindow;
  order: { take(rows: readonly R[], last: boolean): R[] } | undefined;
}

/**
 * Reads the batch after `after` and prints it (the rows its order gives back, all of the rest
 * after the last batch), in one of the gate's turns.
 */
function readBatch<R extends { id: string; created_at: Date }>(
  slot: ExportSlot,
  reading: Reading<R>,
  after: KeysetPosition | undefined,
): Promise<Batch<R>> {
  const { plan, window, order } = reading;
  return slot.read(async () => {
    const rows = await plan.read({ ...window, after });
    const written = order ? order.take(rows, rows.length < window.limit) : rows;
    return { rows, text: written.map((row) => csvRow(plan.cells(row))).join("") };
  });
}

async function* csvChunks<R extends { id: string; created_at: Date }>(
  slot: ExportSlot,
  reading: Reading<R>,
  first: Batch<R>,
  bom: boolean,
): AsyncGenerator<string> {
  let batch = first;
  yield (bom ? UTF8_BOM : "") + csvHeader(reading.plan.columns) + batch.text;
  while (batch.rows.length === reading.window.limit) {
    batch = await readBatch(slot, reading, lastPosition(batch.rows));
    if (batch.text !== "") yield batch.text;
  }
}

/**
 * The stream of an admitted export: it gives the export's place back when it closes, whether
 * the client took the last byte, went away, or a read failed.
 */
function exportStream<R extends { id: string; created_at: Date }>(
  slot: ExportSlot,
  reading: Reading<R>,
  first: Batch<R>,
  bom: boolean,
): Readable {
  const body = Readable.from(csvChunks(slot, reading, first, bom), { objectMode: false });
  body.once("close", () => slot.close());
  return body;
}

async function startExport<R extends { id: string; created_at: Date }>(
  ctx: ReportContext,
  kind: ExportKind,
  merchant: Merchant,
  query: { dateFrom: string; dateTo: string; bom?: boolean | undefined },
  plan: ExportPlan<R>,
): Promise<CsvExport> {
  const range = exportRange(query);
  const window: ExportWindow = {
    merchantId: merchant.id,
    ...range,
    after: undefined,
    limit: EXPORT_BATCH_ROWS,
  };
  const slot = exportGateOf(ctx).open(merchant.id, ctx.wallClock);
  const reading: Reading<R> = { plan, window, order: plan.order?.() };
  let first: Batch<R>;
  try {
    first = await readBatch(slot, reading, undefined);
  } catch (error) {
    slot.close();
    throw error;
  }
  const lastInstant = new Date(range.dateTo.getTime() - 1);
  return {
    filename: `${kind}-${bangkokDay(range.dateFrom)}-${bangkokDay(lastInstant)}.csv`,
    body: exportStream(slot, reading, first, query.bom === true),
  };
}

export function exportPayments(ctx: ReportContext, merchant: Merchant, query: PaymentsExportQuery) {
  const filters = { status: query.status, paymentMethod: query.paymentMethod };
  return startExport(ctx, "payments", merchant, query, {
    columns: PAYMENT_COLUMNS,
    read: (window) => paymentExportBatch(ctx.db, window, filters),
    cells: paymentCells,
  });
}

export function exportWithdraws(ctx: ReportContext, merchant: Merchant, query: WithdrawsExportQuery) {
  const filters = { status: query.status, destinationType: query.destinationType };
  return startExport(ctx, "withdraws", merchant, query, {
    columns: WITHDRAW_COLUMNS,
    read: (window) => withdrawExportBatch(ctx.db, window, filters),
    cells: withdrawCells,
  });
}

export function exportRefunds(ctx: ReportContext, merchant: Merchant, query: RefundsExportQuery) {
  // A malformed payment id names no refund: the filter then matches nothing, as for an unknown one.
  const paymentId = query.paymentId === undefined ? undefined : query.paymentId.toLowerCase();
  const filters = { status: query.status, paymentId };
  return startExport(ctx, "refunds", merchant, query, {
    columns: REFUND_COLUMNS,
    read: (window) =>
      paymentId !== undefined && !isUuid(paymentId)
        ? Promise.resolve([])
        : refundExportBatch(ctx.db, window, filters),
    cells: refundCells,
  });
}

export function exportLedger(ctx: ReportContext, merchant: Merchant, query: LedgerExportQuery) {
  const filters = { type: query.type, account: query.account };
  return startExport(ctx, "ledger", merchant, query, {
    columns: LEDGER_COLUMNS,
    read: (window) => ledgerExportBatch(ctx.db, window, filters),
    cells: ledgerCells,
    order: () => new PostingOrder<LedgerExportRow>(),
  });
}
