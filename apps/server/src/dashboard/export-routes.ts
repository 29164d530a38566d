/**
 * The CSV exports from the dashboard: GET /dashboard/api/reports/{payments,withdraws,refunds,ledger}.csv
 * with the session's bearer token, the same query schemas and services as the public
 * /api/v1/reports routes (reports/), so columns, bounds and refusals are exactly the API's.
 * Registered inside dashboardApiRoutes, whose session hook guards them. They pass the same export
 * gate as the API (reports/export-gate.ts): a merchant's exports from both count together.
 */
import type { App } from "../http/typed-app.ts";
import { sendCsv } from "../reports/routes.ts";
import {
  LedgerExportQuery,
  PaymentsExportQuery,
  RefundsExportQuery,
  WithdrawsExportQuery,
} from "../reports/schemas.ts";
import {
  exportLedger,
  exportPayments,
  exportRefunds,
  exportWithdraws,
  type ReportContext,
} from "../reports/service.ts";
import { EXPORTERS } from "./roles.ts";
import { sessionOf } from "./sessions.ts";

/** Owners and finance (roles.ts `EXPORTERS`); a developer gets 403 FORBIDDEN. */
const EXPORT_ROLES = { roles: EXPORTERS };

export function exportRoutes(app: App, ctx: ReportContext): void {
  app.get(
    "/reports/payments.csv",
    { config: EXPORT_ROLES, schema: { querystring: PaymentsExportQuery } },
    async (request, reply) =>
      sendCsv(reply, () => exportPayments(ctx, sessionOf(request).merchant, request.query)),
  );
  app.get(
    "/reports/withdraws.csv",
    { config: EXPORT_ROLES, schema: { querystring: WithdrawsExportQuery } },
    async (request, reply) =>
      sendCsv(reply, () => exportWithdraws(ctx, sessionOf(request).merchant, request.query)),
  );
  app.get(
    "/reports/refunds.csv",
    { config: EXPORT_ROLES, schema: { querystring: RefundsExportQuery } },
    async (request, reply) =>
      sendCsv(reply, () => exportRefunds(ctx, sessionOf(request).merchant, request.query)),
  );
  app.get(
    "/reports/ledger.csv",
    { config: EXPORT_ROLES, schema: { querystring: LedgerExportQuery } },
    async (request, reply) =>
      sendCsv(reply, () => exportLedger(ctx, sessionOf(request).merchant, request.query)),
  );
}
