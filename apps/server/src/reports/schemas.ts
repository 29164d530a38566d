/**
 * Query schemas of the CSV exports (CONTRACT 11): each takes its resource's list filters, with
 * `dateFrom` and `dateTo` required. Paging and sorting do not apply: an export is every
 * matching row, oldest first (ties by id).
 */
import { type Static, Type } from "typebox";
import {
  DESTINATION_TYPES,
  LEDGER_ACCOUNT_KINDS,
  LEDGER_TRANSACTION_KINDS,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  REFUND_STATUSES,
  WITHDRAW_STATUSES,
} from "../db/types.ts";
import { dateFromProperty, dateToProperty, stringEnum } from "../http/list-query.ts";
import { EXPORT_RANGE_DAYS_MAX } from "../lib/limits.ts";

const range = `Required; at most ${EXPORT_RANGE_DAYS_MAX} days after dateFrom.`;
const dateFrom = Type.String({
  ...dateFromProperty,
  description: "ISO 8601 instant; rows created at or after it. Required.",
});
const dateTo = Type.String({
  ...dateToProperty,
  description: `ISO 8601 instant; rows created before it. ${range}`,
});

const bom = Type.Boolean({
  default: false,
  description:
    "true: the file starts with a UTF-8 byte-order mark (EF BB BF), so that Excel reads it as " +
    "UTF-8 and shows Thai text correctly. Default false: the bytes are plain UTF-8. The dashboard's " +
    "download asks for it.",
});

export const PaymentsExportQuery = Type.Object({
  status: Type.Optional(stringEnum(PAYMENT_STATUSES)),
  paymentMethod: Type.Optional(stringEnum(PAYMENT_METHODS)),
  dateFrom,
  dateTo,
  bom: Type.Optional(bom),
});
export type PaymentsExportQuery = Static<typeof PaymentsExportQuery>;

export const WithdrawsExportQuery = Type.Object({
  status: Type.Optional(stringEnum(WITHDRAW_STATUSES)),
  destinationType: Type.Optional(stringEnum(DESTINATION_TYPES)),
  dateFrom,
  dateTo,
  bom: Type.Optional(bom),
});
export type WithdrawsExportQuery = Static<typeof WithdrawsExportQuery>;

export const RefundsExportQuery = Type.Object({
  status: Type.Optional(stringEnum(REFUND_STATUSES)),
  paymentId: Type.Optional(
    Type.String({ format: "uuid", description: "Only this payment's refunds (its id)" }),
  ),
  dateFrom,
  dateTo,
  bom: Type.Optional(bom),
});
export type RefundsExportQuery = Static<typeof RefundsExportQuery>;

export const LedgerExportQuery = Type.Object({
  type: Type.Optional(
    stringEnum(LEDGER_TRANSACTION_KINDS, {
      description: "Only movements of this kind of ledger transaction.",
    }),
  ),
  account: Type.Optional(
    stringEnum(LEDGER_ACCOUNT_KINDS, {
      description: "Only movements on this ledger account of the merchant.",
    }),
  ),
  dateFrom,
  dateTo,
  bom: Type.Optional(bom),
});
export type LedgerExportQuery = Static<typeof LedgerExportQuery>;

/** The 200 answer as the OpenAPI document shows it: CSV text, not the JSON envelope. */
export const CsvResponse = Type.String({
  description: "text/csv; charset=utf-8 with a header row (RFC 4180, CRLF line ends)",
});
