/**
 * The CSV exports under /api/v1/reports (CONTRACT 11), signed like every GET (the HMAC scope in
 * app.ts). Each route is its schema and one service call; `sendCsv` writes the stream.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { merchantOf } from "../http/auth.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { isAppError } from "../lib/errors.ts";
import { EXPORT_RANGE_DAYS_MAX, EXPORTS_OPEN_MAX, EXPORTS_PER_MERCHANT_MAX } from "../lib/limits.ts";
import { exportsBusy, exportsPerMerchantExceeded } from "./export-gate.ts";
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
  "Asia/Bangkok days of the range. At most " +
  `${EXPORTS_PER_MERCHANT_MAX} exports of one merchant stream at once (else 429 RATE_LIMIT_EXCEEDED), ` +
  `and at most ${EXPORTS_OPEN_MAX} of all merchants (else 503 SERVICE_UNAVAILABLE), both with Retry-After.`;

/**
 * Answers an export: CSV headers, then the stream. A refusal before that point is an envelope;
 * a refused admission (429, 503) also carries its Retry-After header.
 */
export async function sendCsv(reply: FastifyReply, start: () => Promise<CsvExport>): Promise<FastifyReply> {
  let csv: CsvExport;
  try {
    csv = await start();
  } catch (error) {
    if (isAppError(error) && (error.code === "RATE_LIMIT_EXCEEDED" || error.code === "SERVICE_UNAVAILABLE")) {
      reply.header("Retry-After", String(error.metadata.retryAfter));
    }
    throw error;
  }
  return reply
    .type("text/csv; charset=utf-8")
    .header("Content-Disposition", `attachment; filename="${csv.filename}"`)
    .send(csv.body);
}

/** The refusals of an export's admission, for the OpenAPI document (export-gate.ts). */
const ADMISSION_ERRORS = [
  documented(
    `The merchant already has ${EXPORTS_PER_MERCHANT_MAX} exports streaming (API and dashboard together)`,
    exportsPerMerchantExceeded(new Date("2026-01-15T08:00:00.000Z")),
  ),
  documented(`The service is already streaming ${EXPORTS_OPEN_MAX} exports of all merchants`, exportsBusy()),
];

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
        "x-errors": ADMISSION_ERRORS,
      },
    },
    async (request, reply) => sendCsv(reply, () => exportPayments(ctx, merchantOf(request), request.query)),
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
        "x-errors": ADMISSION_ERRORS,
      },
    },
    async (request, reply) => sendCsv(reply, () => exportWithdraws(ctx, merchantOf(request), request.query)),
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
        "x-errors": ADMISSION_ERRORS,
      },
    },
    async (request, reply) => sendCsv(reply, () => exportRefunds(ctx, merchantOf(request), request.query)),
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
        "x-errors": ADMISSION_ERRORS,
      },
    },
    async (request, reply) => sendCsv(reply, () => exportLedger(ctx, merchantOf(request), request.query)),
  );
}
