/**
 * `satang payouts batch create|list|show|csv|record`: the manual payout desk
 * (docs/payout-desk.md) for deployments with SATANG_PAYOUTS=manual. Take pending withdraws into
 * a batch, download its CSV, pay from the bank's own channel, then record each outcome.
 */
import { writeFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import { formatThb, parseWireFigure } from "../../lib/money.ts";
import {
  ApiError,
  addressSource,
  adminClient,
  REQUEST_TIMEOUT_MS,
  resolveBaseUrl,
  resolveToken,
  UnreachableError,
  UsageError,
} from "../client.ts";
import type { CliIo, CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface BatchItem {
  position: number;
  /** What the line pays; absent from servers older than refunds through the desk. */
  kind?: "withdraw" | "refund";
  withdrawId: string | null;
  refundId?: string | null;
  referenceId: string;
  amount: string;
  destinationType: string;
  bankCode: string;
  bankAccountNumber: string;
  bankAccountName: string;
  withdrawStatus: string | null;
  refundStatus?: string | null;
  outcome: string | null;
  bankReference: string | null;
  failureReason: string | null;
  recordedBy: string | null;
  recordedVia: string | null;
}

interface Batch {
  id: string;
  status: string;
  createdBy: string;
  createdByOperator: string | null;
  itemCount: number;
  totalAmount: string;
  paidAmount: string;
  paidCount: number;
  failedCount: number;
  openCount: number;
  createdAt: string;
  items?: BatchItem[];
}

/**
 * A wire amount (a decimal string of satang, "150000.00") as the operator pays it: "1500.00
 * THB", the figure of the CSV's amount_thb with its unit. A value that is not a wire amount is
 * shown as it came, so nothing is silently re-read.
 */
export function thb(wire: string): string {
  const satang = parseWireFigure(wire);
  return satang === null ? wire : `${formatThb(satang)} THB`;
}

/**
 * How many lines a batch has, and of which kind when its lines are known: "3 withdraws", or "3
 * lines (2 withdraws, 1 refund)"; a batch listed without its lines is "3 lines", since some may
 * be refunds.
 */
function lineCount(batch: Batch): string {
  const lines = batch.itemCount === 1 ? "line" : "lines";
  if (batch.items === undefined) return `${batch.itemCount} ${lines}`;
  const refunds = batch.items.filter((item) => item.kind === "refund").length;
  if (refunds === 0) return counted(batch.itemCount, "withdraw");
  const withdraws = batch.itemCount - refunds;
  return `${batch.itemCount} ${lines} (${counted(withdraws, "withdraw")}, ${counted(refunds, "refund")})`;
}

/** "1 withdraw", "0 withdraws", "2 refunds". */
function counted(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Who created a batch: its label, and the operator token when the label names someone else. */
function createdBy(batch: Batch): string {
  const operator = batch.createdByOperator;
  return operator === null || operator === batch.createdBy
    ? batch.createdBy
    : `${batch.createdBy} (operator token ${operator})`;
}

function summary(batch: Batch): string {
  return (
    `Batch ${batch.id} (${batch.status}): ${lineCount(batch)}, total ${thb(batch.totalAmount)}; ` +
    `${batch.paidCount} paid (${thb(batch.paidAmount)}), ${batch.failedCount} failed, ${batch.openCount} open; ` +
    `created by ${createdBy(batch)}`
  );
}

function recordedBy(item: BatchItem): string {
  if (item.recordedBy === null) return "";
  return `, recorded by ${item.recordedBy}${item.recordedVia === null ? "" : ` via ${item.recordedVia}`}`;
}

function itemLine(item: BatchItem): string {
  const result =
    item.outcome === "paid"
      ? `paid (${item.bankReference}${recordedBy(item)})`
      : item.outcome === "failed"
        ? `failed (${item.failureReason}${recordedBy(item)})`
        : "open";
  return (
    `  ${item.position}. ${thb(item.amount)}  ${item.destinationType} ${item.bankCode} ` +
    `${item.bankAccountNumber} ${item.bankAccountName}\n` +
    (item.kind === "refund"
      ? `     REFUND ${item.refundId} (reference ${item.referenceId}, status ${item.refundStatus})  ${result}`
      : `     withdraw ${item.withdrawId} (reference ${item.referenceId}, status ${item.withdrawStatus})  ${result}`)
  );
}

function details(batch: Batch): string {
  return [summary(batch), ...(batch.items ?? []).map(itemLine)].join("\n");
}

interface CreateFlags extends OutputOptions {
  merchant?: string;
  max?: number;
  by?: string;
}

function registerCreate(batch: Command, io: CliIo): void {
  clientFlags(
    batch.command("create").description("take pending withdraws into a new batch (they become processing)"),
  )
    .option("--merchant <id>", "only this merchant's pending withdraws")
    .option("--max <count>", "at most this many withdraws, oldest first", wholeNumber)
    .option("--by <name>", "who creates the batch, for the record")
    .action(async (flags: CreateFlags) => {
      const body: Record<string, unknown> = {};
      if (flags.merchant !== undefined) body.merchantId = flags.merchant;
      if (flags.max !== undefined) body.maxCount = flags.max;
      if (flags.by !== undefined) body.createdBy = flags.by;
      const data = await adminClient(flags, io.env).call<Batch>("POST", "/payout-batches", body);
      printResult(io, flags, data, () => details(data));
    });
}

interface ListFlags extends OutputOptions {
  status?: string;
  page?: number;
  limit?: number;
}

function statusOption(value: string): string {
  if (value !== "open" && value !== "closed") throw new InvalidArgumentError('expected "open" or "closed"');
  return value;
}

function registerList(batch: Command, io: CliIo): void {
  clientFlags(batch.command("list").description("list batches, newest first"))
    .option("--status <status>", "open or closed", statusOption)
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "batches per page", wholeNumber)
    .action(async (flags: ListFlags) => {
      const query = new URLSearchParams();
      if (flags.status) query.set("status", flags.status);
      if (flags.page !== undefined) query.set("page", String(flags.page));
      if (flags.limit !== undefined) query.set("limit", String(flags.limit));
      const suffix = query.size > 0 ? `?${query}` : "";
      const data = await adminClient(flags, io.env).call<{ data: Batch[]; total: number }>(
        "GET",
        `/payout-batches${suffix}`,
      );
      const counted = `${data.total} ${data.total === 1 ? "batch" : "batches"}`;
      printResult(io, flags, data, () =>
        data.data.length > 0
          ? [counted, ...data.data.map(summary)].join("\n")
          : data.total > 0
            ? `${counted}, none on this page (past the last)`
            : "No payout batches",
      );
    });
}

function registerShow(batch: Command, io: CliIo): void {
  clientFlags(batch.command("show").description("a batch with its withdraws and their outcomes"))
    .argument("<batchId>", "batch id")
    .action(async (id: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call<Batch>(
        "GET",
        `/payout-batches/${encodeURIComponent(id)}`,
      );
      printResult(io, flags, data, () => details(data));
    });
}

/** Downloads the batch's CSV: text, not the JSON envelope the other calls answer. */
async function downloadCsv(flags: OutputOptions, env: NodeJS.ProcessEnv, id: string): Promise<string> {
  const baseUrl = resolveBaseUrl(flags, env);
  const token = resolveToken(flags, env);
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/admin/v1/payout-batches/${encodeURIComponent(id)}/csv`, {
      headers: { authorization: `Bearer ${token}`, "x-satang-client": "cli" },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new UnreachableError(
      baseUrl,
      error instanceof Error ? error.message : String(error),
      addressSource(flags, env),
    );
  }
  // Decoded by hand: Response.text() would drop the byte order mark spreadsheets need.
  const text = Buffer.from(await response.arrayBuffer()).toString("utf8");
  if (response.ok) return text;
  let error: Record<string, unknown> | undefined;
  try {
    error = JSON.parse(text).error;
  } catch {
    error = undefined;
  }
  throw new ApiError(
    response.status,
    String(error?.code ?? "UNEXPECTED_RESPONSE"),
    String(error?.message ?? `${baseUrl} answered HTTP ${response.status}`),
    error?.metadata as Record<string, unknown> | undefined,
  );
}

function registerCsv(batch: Command, io: CliIo): void {
  clientFlags(batch.command("csv").description("download a batch as CSV (account numbers in full)"))
    .argument("<batchId>", "batch id")
    .option("--out <file>", "write to this file instead of standard output")
    .action(async (id: string, flags: OutputOptions & { out?: string }) => {
      const csv = await downloadCsv(flags, io.env, id);
      if (flags.out === undefined) {
        io.stdout(csv);
        return;
      }
      writeFileSync(flags.out, csv, { mode: 0o600 });
      io.stdout(`Wrote ${flags.out}\n`);
    });
}

interface RecordFlags extends OutputOptions {
  paid?: string;
  failed?: string;
  refund?: boolean;
}

function registerRecord(batch: Command, io: CliIo): void {
  clientFlags(
    batch.command("record").description("record what the bank did with one withdraw (or refund) of a batch"),
  )
    .argument("<batchId>", "batch id")
    .argument("<withdrawId>", "withdraw id (a refund's id with --refund)")
    .option("--paid <bankReference>", "it was paid; the bank's reference of the transfer")
    .option("--failed <reason>", "it failed; why")
    .option("--refund", "the line is a refund (marked REFUND in `payouts batch show`)")
    .action(async (batchId: string, withdrawId: string, flags: RecordFlags) => {
      if ((flags.paid === undefined) === (flags.failed === undefined)) {
        throw new UsageError("record needs exactly one of --paid <bankReference> or --failed <reason>");
      }
      const body =
        flags.paid !== undefined
          ? { outcome: "paid", bankReference: flags.paid }
          : { outcome: "failed", reason: flags.failed };
      const data = await adminClient(flags, io.env).call<Batch>(
        "POST",
        flags.refund
          ? `/payout-batches/${encodeURIComponent(batchId)}/refunds/${encodeURIComponent(withdrawId)}/outcome`
          : `/payout-batches/${encodeURIComponent(batchId)}/items/${encodeURIComponent(withdrawId)}/outcome`,
        body,
      );
      printResult(io, flags, data, () => details(data));
    });
}

/** Adds `payouts batch ...` to the program. */
export function registerPayoutCommands(program: Command, { io }: CommandContext): void {
  const payouts = program.command("payouts").description("the manual payout desk (SATANG_PAYOUTS=manual)");
  const batch = payouts.command("batch").description("batches of pending withdraws and refunds paid by hand");
  registerCreate(batch, io);
  registerList(batch, io);
  registerShow(batch, io);
  registerCsv(batch, io);
  registerRecord(batch, io);
}
