/**
 * The operator's report of one Bangkok day (GET /admin/v1/reports/daily): what was paid in
 * (every provider transaction of that date the service has seen, as each connector's day book
 * tells it: notifications, the reconciler, the daily sweep), what of it was credited to
 * payments, what was not (each one an anomaly), what was paid out (withdraws paid and refunds
 * succeeded that day) and what is undecided (withdraws and refunds created by the day's end still
 * processing with their transfer held open by a connector; the payout desk's lines are not). As
 * JSON (amounts in the wire form, and in THB) and as CSV (THB with two decimals).
 */
import type { Db } from "../db/handles.ts";
import { AppError } from "../lib/errors.ts";
import { formatAmount, formatThb } from "../lib/money.ts";
import type { DayBook, DaySweep, Figure } from "../providers/operator.ts";
import { CONNECTOR_DAY_BOOKS } from "../providers/registry.ts";
import { paidOutFigure, undecidedFigure } from "./daily-report-store.ts";

const BANGKOK_OFFSET_MS = 7 * 3_600_000;
const DAY_MS = 86_400_000;

/** The instant a Bangkok calendar date "YYYY-MM-DD" starts. */
function bangkokDayStart(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00Z`) - BANGKOK_OFFSET_MS);
}

export const REPORT_FIGURES = ["paid_in", "credited", "unmatched", "paid_out", "undecided"] as const;
type FigureName = (typeof REPORT_FIGURES)[number];

interface FigureView {
  count: number;
  /** Satang in the wire form ("25050.00"). */
  amount: string;
  /** The same amount in baht with two decimals ("250.50"). */
  amountThb: string;
}

export interface DailyReport {
  date: string;
  timeZone: "Asia/Bangkok";
  paidIn: FigureView;
  credited: FigureView;
  unmatched: FigureView;
  paidOut: FigureView;
  undecided: FigureView;
  /** The daily sweep of that date: not_started, running or finished, and how far it got. */
  sweep: {
    status: "not_started" | "running" | "finished";
    asked: number;
    found: number;
    lastError: string | null;
  };
}

const view = (figure: Figure): FigureView => ({
  count: figure.count,
  amount: formatAmount(figure.amountSatang),
  amountThb: formatThb(figure.amountSatang),
});

function validDate(date: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(date)) return false;
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

const add = (a: Figure, b: Figure): Figure => ({
  count: a.count + b.count,
  amountSatang: a.amountSatang + b.amountSatang,
});
const NONE: Figure = { count: 0, amountSatang: 0n };

/** What one connector's day book shows of a date. */
export interface DayBookPage {
  paidIn: Figure;
  credited: Figure;
  /** Undefined when the connector does not sweep days, or has not started that date. */
  sweep: DaySweep | undefined;
}

/**
 * Every connector's page of a date as one: figures added up; the sweeps of the connectors that
 * started one as one sweep, finished when every one of them has finished, references asked and
 * found added up, the first error shown; not_started when none has started.
 */
export function combineDayBooks(pages: readonly DayBookPage[]): Pick<DailyReport, "sweep"> & {
  paidIn: Figure;
  credited: Figure;
} {
  const started = pages.flatMap((page) => (page.sweep ? [page.sweep] : []));
  return {
    paidIn: pages.map((page) => page.paidIn).reduce(add, NONE),
    credited: pages.map((page) => page.credited).reduce(add, NONE),
    sweep:
      started.length === 0
        ? { status: "not_started", asked: 0, found: 0, lastError: null }
        : {
            status: started.every((sweep) => sweep.status === "finished") ? "finished" : "running",
            asked: started.reduce((sum, sweep) => sum + sweep.asked, 0),
            found: started.reduce((sum, sweep) => sum + sweep.found, 0),
            lastError: started.find((sweep) => sweep.lastError !== null)?.lastError ?? null,
          },
  };
}

async function dayBooks(db: Db, date: string) {
  const books: DayBook[] = await Promise.all(CONNECTOR_DAY_BOOKS.map((load) => load()));
  const pages = await Promise.all(
    books.map(async (book): Promise<DayBookPage> => {
      const [transactions, sweep] = await Promise.all([book.transactions(db, date), book.sweep?.(db, date)]);
      return { ...transactions, sweep };
    }),
  );
  return combineDayBooks(pages);
}

export async function dailyReport(ctx: { db: Db }, date: string): Promise<DailyReport> {
  if (!validDate(date))
    throw new AppError("VALIDATION_ERROR", "date must be a calendar date YYYY-MM-DD", { field: "date" });
  const from = bangkokDayStart(date);
  const to = new Date(from.getTime() + DAY_MS);
  const [{ paidIn, credited, sweep }, paidOut, undecided] = await Promise.all([
    dayBooks(ctx.db, date),
    paidOutFigure(ctx.db, from, to),
    undecidedFigure(ctx.db, to),
  ]);
  const unmatched = {
    count: paidIn.count - credited.count,
    amountSatang: paidIn.amountSatang - credited.amountSatang,
  };
  return {
    date,
    timeZone: "Asia/Bangkok",
    paidIn: view(paidIn),
    credited: view(credited),
    unmatched: view(unmatched),
    paidOut: view(paidOut),
    undecided: view(undecided),
    sweep,
  };
}

const FIELD: Record<
  FigureName,
  keyof Pick<DailyReport, "paidIn" | "credited" | "unmatched" | "paidOut" | "undecided">
> = {
  paid_in: "paidIn",
  credited: "credited",
  unmatched: "unmatched",
  paid_out: "paidOut",
  undecided: "undecided",
};

/** The report as CSV (RFC 4180): one line per figure, amounts in THB with two decimals. */
export function dailyReportCsv(report: DailyReport): string {
  const lines = ["date,figure,count,amount (THB)"];
  for (const name of REPORT_FIGURES) {
    const figure = report[FIELD[name]];
    lines.push(`${report.date},${name},${figure.count},${figure.amountThb}`);
  }
  return `${lines.join("\r\n")}\r\n`;
}
