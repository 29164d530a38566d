/**
 * `satang scb exchanges|exchange|payment|report`: what an operator can see of SCB through the
 * operator API (docs/providers/scb.md, "What the operator can see"): the recorded calls to SCB
 * and the confirmations SCB posted, a payment found by the ref1 SCB shows for it, and the day's
 * figures. Described here, registered by the CLI (cli/commands/connector.ts) through the
 * registry.
 */
import type { ConnectorCommandGroup } from "../operator.ts";

/** The SCB references an exchange names, as its one-line form labels them. */
const REFERENCES = [
  ["ref1", "ref1"],
  ["partner", "partnerTransactionId"],
  ["tokenizer", "tokenizerId"],
  ["transRef", "transRef"],
] as const;

export const SCB_COMMANDS: ConnectorCommandGroup = {
  name: "scb",
  description: "what SCB was asked and answered; payments by SCB ref1",
  commands: [
    {
      name: "exchanges",
      description: "calls to SCB and confirmations from SCB, newest first, as recorded (redacted)",
      options: [
        {
          flags: "--payment <id>",
          description: "only those about this payment (its ref1)",
          query: "paymentId",
        },
        {
          flags: "--withdraw <id>",
          description: "only those about this withdraw's transfer",
          query: "withdrawId",
        },
        {
          flags: "--reference <ref>",
          description: "only those naming this ref1, partner transaction id, tokenizer id or transRef",
          query: "reference",
        },
        {
          flags: "--operation <name>",
          description: "only this kind, e.g. bill_payment_inquiry, payment_confirmation",
          query: "operation",
        },
        {
          flags: "--direction <way>",
          description: "outbound (calls to SCB) or inbound (confirmations)",
          query: "direction",
          value: { oneOf: ["inbound", "outbound"] },
        },
        {
          flags: "--from <date>",
          description: "started at or after this ISO 8601 date or time",
          query: "dateFrom",
        },
        { flags: "--to <date>", description: "started before this ISO 8601 date or time", query: "dateTo" },
        { flags: "--page <n>", description: "page number", query: "page", value: "whole_number" },
        {
          flags: "--limit <n>",
          description: "exchanges per page (1-100)",
          query: "limit",
          value: "whole_number",
        },
        {
          flags: "--unreadable",
          description: "only the answers the connector could not read",
          query: "unreadable",
        },
      ],
      path: "/providers/scb/exchanges",
      output: { kind: "exchange_list", noun: "SCB exchanges", references: REFERENCES },
    },
    {
      name: "exchange",
      description: "one exchange in full: headers and bodies as recorded",
      argument: { name: "id", description: "exchange id" },
      options: [],
      path: "/providers/scb/exchanges/{argument}",
      output: {
        kind: "exchange",
        references: REFERENCES,
        details: [
          ["payment", "paymentId"],
          ["withdraw", "withdrawId"],
          ["requestUId", "requestUId"],
          ["attempt", "attempt"],
        ],
      },
    },
    {
      name: "payment",
      description: "the payment with this SCB ref1, and its merchant",
      argument: { name: "ref1", description: "the ref1 SCB shows for the bill payment" },
      options: [],
      path: "/payments/by-scb-reference/{argument}",
      output: { kind: "payment", referenceLabel: "SCB ref1", referenceField: "scbReference" },
    },
    {
      name: "report",
      description: "the day's figures: paid in, credited, unmatched, paid out, undecided (THB)",
      options: [
        {
          flags: "--date <date>",
          description: "the Bangkok day, YYYY-MM-DD",
          query: "date",
          value: "date",
          required: true,
        },
      ],
      path: "/reports/daily",
      output: { kind: "daily_report" },
    },
  ],
};
