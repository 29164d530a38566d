/**
 * The operator's report of one Bangkok day (docs/providers/scb.md, "The daily report"): what
 * was paid in to the operator's biller (every SCB transaction of that date the service has seen:
 * confirmations, the reconciler, the daily sweep), what of it was credited to payments, what
 * was not (each one an anomaly), what was paid out (withdraws paid that day) and what is
 * undecided (withdraws created by the day's end still processing: their transfer is undecided).
 * As JSON (amounts in the wire form, and in THB) and as CSV (THB with two decimals).
 */
import type { Db } from "../db/handles.ts";
import { addDays, bangkokDayStart } from "../lib/bangkok-time.ts";
import { AppError } from "../lib/errors.ts";
import { formatAmount, formatThb } from "../lib/money.ts";
import { findSweep } from "./collections-store.ts";
import { type Figure, paidOutFigure, transactionFigures, undecidedFigure } from "./daily-report-store.ts";

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

export async function dailyReport(ctx: { db: Db }, date: string): Promise<DailyReport> {
  if (!validDate(date))
    throw new AppError("VALIDATION_ERROR", "date must be a calendar date YYYY-MM-DD", { field: "date" });
  const from = bangkokDayStart(date);
  const to = bangkokDayStart(addDays(date, 1));
  const [{ paidIn, credited }, paidOut, undecided, sweep] = await Promise.all([
    transactionFigures(ctx.db, date),
    paidOutFigure(ctx.db, from, to),
    undecidedFigure(ctx.db, to),
    findSweep(ctx.db, date),
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
    sweep: sweep
      ? { status: sweep.status, asked: sweep.asked, found: sweep.found, lastError: sweep.last_error }
      : { status: "not_started", asked: 0, found: 0, lastError: null },
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
