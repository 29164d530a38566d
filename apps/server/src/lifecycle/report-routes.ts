/**
 * The operator's daily report (lifecycle/daily-report.ts), under /admin/v1 in the operator scope:
 *
 * - GET /reports/daily?date=YYYY-MM-DD       the figures of one Bangkok day, JSON
 * - GET /reports/daily.csv?date=YYYY-MM-DD   the same as CSV, amounts in THB
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { type Static, Type } from "typebox";
import type { Db } from "../db/handles.ts";
import { envelopeSchema, ok } from "../http/envelope.ts";
import { ERROR_MESSAGE_KEYWORD } from "../http/validation.ts";
import { dailyReport, dailyReportCsv } from "./daily-report.ts";

const tags = ["admin"];

const ReportQuery = Type.Object(
  {
    date: Type.String({
      pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
      description: "The Bangkok calendar day, YYYY-MM-DD",
      [ERROR_MESSAGE_KEYWORD]: "must be a date YYYY-MM-DD",
    }),
  },
  { additionalProperties: false },
);
type ReportQuery = Static<typeof ReportQuery>;

const FigureSchema = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  amount: Type.String({ description: "Satang in the wire form", examples: ["25050.00"] }),
  amountThb: Type.String({ description: "The same amount in THB, two decimals", examples: ["250.50"] }),
});

const DailyReportSchema = Type.Object({
  date: Type.String({ description: "The Bangkok calendar day", examples: ["2026-01-15"] }),
  timeZone: Type.Literal("Asia/Bangkok"),
  paidIn: FigureSchema,
  credited: FigureSchema,
  unmatched: FigureSchema,
  paidOut: FigureSchema,
  undecided: FigureSchema,
  sweep: Type.Object({
    status: Type.Union([Type.Literal("not_started"), Type.Literal("running"), Type.Literal("finished")]),
    asked: Type.Integer({ minimum: 0 }),
    found: Type.Integer({ minimum: 0 }),
    lastError: Type.Union([
      Type.String({ examples: ["the provider answered HTTP 503: Service unavailable"] }),
      Type.Null(),
    ]),
  }),
});

const DESCRIPTION =
  "One Bangkok day: paid in (every provider transaction of that date the service has seen), credited " +
  "(to a payment), unmatched (not credited: each one an anomaly), paid out (withdraws paid and " +
  "refunds succeeded that day) and undecided (withdraws and refunds created by the day's end still " +
  "processing with their transfer held open by a connector; not the payout desk's lines), with the " +
  "daily sweep's progress for that date.";

export function dailyReportRoutes(ctx: { db: Db }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      "/reports/daily",
      {
        schema: {
          tags,
          summary: "The operator's report of one day: paid in, credited, unmatched, paid out, undecided",
          operationId: "retrieveDailyReport",
          description: DESCRIPTION,
          querystring: ReportQuery,
          response: { 200: envelopeSchema(DailyReportSchema) },
        },
      },
      async (request) => ok(await dailyReport(ctx, (request.query as ReportQuery).date)),
    );
    app.get(
      "/reports/daily.csv",
      {
        schema: {
          tags,
          summary: "The operator's report of one day as CSV (amounts in THB)",
          operationId: "exportDailyReportCsv",
          description: `${DESCRIPTION} text/csv; charset=utf-8, columns: date, figure, count, amount (THB).`,
          querystring: ReportQuery,
          produces: ["text/csv"],
        },
      },
      async (request, reply) => {
        const report = await dailyReport(ctx, (request.query as ReportQuery).date);
        return reply
          .header("Content-Type", "text/csv; charset=utf-8")
          .header("Content-Disposition", `attachment; filename="satang-daily-${report.date}.csv"`)
          .header("Cache-Control", "no-store")
          .send(dailyReportCsv(report));
      },
    );
  };
}
