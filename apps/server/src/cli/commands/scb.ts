/**
 * `satang scb exchanges|exchange|payment`: what an operator can see of SCB through the operator
 * API (docs/providers/scb.md, "What the operator can see"): the recorded calls to SCB and the
 * confirmations SCB posted, and a payment found by the ref1 SCB shows for it.
 */
import { type Command, InvalidArgumentError } from "commander";
import { adminClient } from "../client.ts";
import { formatScbExchange, formatScbExchangeList, formatScbPayment } from "../format.ts";
import type { CliIo, CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface ExchangeFlags extends OutputOptions {
  payment?: string;
  withdraw?: string;
  reference?: string;
  operation?: string;
  direction?: string;
  from?: string;
  to?: string;
  page?: number;
  limit?: number;
  unreadable?: boolean;
}

/** The list's query parameters, by the API's names. */
const QUERY_OF: ReadonlyArray<[keyof ExchangeFlags, string]> = [
  ["page", "page"],
  ["limit", "limit"],
  ["from", "dateFrom"],
  ["to", "dateTo"],
  ["operation", "operation"],
  ["direction", "direction"],
  ["payment", "paymentId"],
  ["withdraw", "withdrawId"],
  ["reference", "reference"],
  ["unreadable", "unreadable"],
];

function directionOption(value: string): string {
  if (value !== "inbound" && value !== "outbound") {
    throw new InvalidArgumentError('expected "inbound" or "outbound"');
  }
  return value;
}

function registerExchanges(scb: Command, io: CliIo): void {
  clientFlags(
    scb
      .command("exchanges")
      .description("calls to SCB and confirmations from SCB, newest first, as recorded (redacted)"),
  )
    .option("--payment <id>", "only those about this payment (its ref1)")
    .option("--withdraw <id>", "only those about this withdraw's transfer")
    .option(
      "--reference <ref>",
      "only those naming this ref1, partner transaction id, tokenizer id or transRef",
    )
    .option("--operation <name>", "only this kind, e.g. bill_payment_inquiry, payment_confirmation")
    .option("--direction <way>", "outbound (calls to SCB) or inbound (confirmations)", directionOption)
    .option("--from <date>", "started at or after this ISO 8601 date or time")
    .option("--to <date>", "started before this ISO 8601 date or time")
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "exchanges per page (1-100)", wholeNumber)
    .option("--unreadable", "only the answers the connector could not read")
    .action(async (flags: ExchangeFlags) => {
      const query = new URLSearchParams();
      for (const [flag, name] of QUERY_OF) {
        if (flags[flag] !== undefined) query.set(name, String(flags[flag]));
      }
      const suffix = query.size > 0 ? `?${query}` : "";
      const data = await adminClient(flags, io.env).call<{
        data: Record<string, unknown>[];
        total: number;
        page: number;
        totalPages: number;
      }>("GET", `/providers/scb/exchanges${suffix}`);
      printResult(io, flags, data, () => formatScbExchangeList(data));
    });
}

function registerExchange(scb: Command, io: CliIo): void {
  clientFlags(scb.command("exchange").description("one exchange in full: headers and bodies as recorded"))
    .argument("<id>", "exchange id")
    .action(async (id: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call(
        "GET",
        `/providers/scb/exchanges/${encodeURIComponent(id)}`,
      );
      printResult(io, flags, data, () => formatScbExchange(data));
    });
}

function registerPayment(scb: Command, io: CliIo): void {
  clientFlags(scb.command("payment").description("the payment with this SCB ref1, and its merchant"))
    .argument("<ref1>", "the ref1 SCB shows for the bill payment")
    .action(async (ref1: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call(
        "GET",
        `/payments/by-scb-reference/${encodeURIComponent(ref1)}`,
      );
      printResult(io, flags, data, () => formatScbPayment(data));
    });
}

interface ReportFigure {
  count: number;
  amountThb: string;
}

interface DailyReportData {
  date: string;
  paidIn: ReportFigure;
  credited: ReportFigure;
  unmatched: ReportFigure;
  paidOut: ReportFigure;
  undecided: ReportFigure;
  sweep: { status: string; asked: number; found: number };
}

function dateOption(value: string): string {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) throw new InvalidArgumentError("expected YYYY-MM-DD");
  return value;
}

/** The report as lines a person reads: figure, count, amount in THB. */
export function formatDailyReport(report: DailyReportData): string {
  const rows: [string, ReportFigure][] = [
    ["paid in", report.paidIn],
    ["credited", report.credited],
    ["unmatched", report.unmatched],
    ["paid out", report.paidOut],
    ["undecided", report.undecided],
  ];
  const lines = [`${report.date} (Asia/Bangkok), amounts in THB`];
  for (const [name, figure] of rows)
    lines.push(
      `${name.padEnd(10)} ${String(figure.count).padStart(6)}  ${figure.amountThb.padStart(16)} THB`,
    );
  lines.push(
    `sweep      ${report.sweep.status} (${report.sweep.asked} references asked, ${report.sweep.found} found)`,
  );
  return lines.join("\n");
}

function registerReport(scb: Command, io: CliIo): void {
  clientFlags(
    scb
      .command("report")
      .description("the day's figures: paid in, credited, unmatched, paid out, undecided (THB)"),
  )
    .requiredOption("--date <date>", "the Bangkok day, YYYY-MM-DD", dateOption)
    .action(async (flags: OutputOptions & { date: string }) => {
      const data = await adminClient(flags, io.env).call<DailyReportData>(
        "GET",
        `/reports/daily?date=${encodeURIComponent(flags.date)}`,
      );
      printResult(io, flags, data, () => formatDailyReport(data));
    });
}

/** Adds `scb exchanges`, `scb exchange`, `scb payment` and `scb report` to the program. */
export function registerScbCommands(program: Command, { io }: CommandContext): void {
  const scb = program.command("scb").description("what SCB was asked and answered; payments by SCB ref1");
  registerExchanges(scb, io);
  registerExchange(scb, io);
  registerPayment(scb, io);
  registerReport(scb, io);
}
