/**
 * The CSV exports under /api/v1/reports (CONTRACT 11), signed like every GET (the HMAC scope in
 * app.ts). Each route is its schema and one service call; `sendCsv` writes the stream.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { merchantOf } from "../http/auth.ts";
import type { App } from "../http/typed-app.ts";
import { EXPORT_RANGE_DAYS_MAX } from "../lib/limits.ts";
import {
  CsvResponse,
  LedgerExportQuery,
  PaymentsExportQuery,
  RefundsExportQuery,
  WithdrawsExportQuery,
} from "./schemas.ts";
import {
  type CsvExport,
  exportLedger,
  exportPayments,
  exportRefunds,
  exportWithdraws,
  type ReportContext,
} from "./service.ts";

const tags = ["reports"];

/** The 200 answer in the OpenAPI document: CSV, not JSON. */
export const CSV_RESPONSES = {
  200: { description: "The CSV file", content: { "text/csv": { schema: CsvResponse } } },
};

const DESCRIPTION =
  `Every matching row created in [dateFrom, dateTo), oldest first, as CSV (RFC 4180, UTF-8, ` +
  `CRLF). dateFrom and dateTo are required and at most ${EXPORT_RANGE_DAYS_MAX} days apart, ` +
  "else 400 VALIDATION_ERROR with metadata.field. Amounts in THB with two decimals; timestamps " +
  "in UTC and Asia/Bangkok (YYYY-MM-DD HH:MM:SS); account numbers masked; a text cell starting " +
  "with = + - @ is prefixed with ' so spreadsheets do not run it. bom=true starts the file with a " +
  "UTF-8 byte-order mark for Excel. The file name (Content-Disposition) names the first and last " +
  "Asia/Bangkok days of the range.";

/** Answers an export: CSV headers, then the stream (errors before this point were envelopes). */
export function sendCsv(reply: FastifyReply, csv: CsvExport): FastifyReply {
  return reply
    .type("text/csv; charset=utf-8")
    .header("Content-Disposition", `attachment; filename="${csv.filename}"`)
    .send(csv.body);
}

export function reportRoutes(ctx: ReportContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    paymentsRoute(app, ctx);
    withdrawsRoute(app, ctx);
    refundsRoute(app, ctx);
    ledgerRoute(app, ctx);
  };
}

function paymentsRoute(app: App, ctx: ReportContext): void {
  app.get(
    "/payments.csv",
    {
      schema: {
        tags,
        summary: "Export payments as CSV",
        operationId: "exportPaymentsCsv",
        description: `${DESCRIPTION} Filters as in List payments.`,
        querystring: PaymentsExportQuery,
        response: CSV_RESPONSES,
      },
    },
    async (request, reply) => sendCsv(reply, await exportPayments(ctx, merchantOf(request), request.query)),
  );
}

function withdrawsRoute(app: App, ctx: ReportContext): void {
  app.get(
    "/withdraws.csv",
    {
      schema: {
        tags,
        summary: "Export withdraws as CSV",
        operationId: "exportWithdrawsCsv",
        description: `${DESCRIPTION} Filters as in List withdraws.`,
        querystring: WithdrawsExportQuery,
        response: CSV_RESPONSES,
      },
    },
    async (request, reply) => sendCsv(reply, await exportWithdraws(ctx, merchantOf(request), request.query)),
  );
}

function refundsRoute(app: App, ctx: ReportContext): void {
  app.get(
    "/refunds.csv",
    {
      schema: {
        tags,
        summary: "Export refunds as CSV",
        operationId: "exportRefundsCsv",
        description: `${DESCRIPTION} Filters as in List refunds (status, paymentId).`,
        querystring: RefundsExportQuery,
        response: CSV_RESPONSES,
      },
    },
    async (request, reply) => sendCsv(reply, await exportRefunds(ctx, merchantOf(request), request.query)),
  );
}

function ledgerRoute(app: App, ctx: ReportContext): void {
  app.get(
    "/ledger.csv",
    {
      schema: {
        tags,
        summary: "Export ledger movements as CSV",
        operationId: "exportLedgerCsv",
        description:
          `${DESCRIPTION} One row per ledger entry of the merchant's accounts, with the payment or ` +
          "withdraw it belongs to; filter by transaction type and by account.",
        querystring: LedgerExportQuery,
        response: CSV_RESPONSES,
      },
    },
    async (request, reply) => sendCsv(reply, await exportLedger(ctx, merchantOf(request), request.query)),
  );
}
