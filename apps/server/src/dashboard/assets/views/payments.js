// @ts-check
// The payments list (#/payments): its filters, sorts and columns.

/** @import { Payment } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
import { listPayments } from "../api.js";
import { badge } from "../components.js";
import { constants } from "../constants.js";
import { h, link } from "../dom.js";
import { formatSatang, formatTime } from "../format.js";
import { t, valueText } from "../lang.js";
import { serverListFilter } from "./filters.js";
import { listView } from "./list.js";

/** @type {ListDescription<Payment>} */
export const PAYMENTS = {
  key: "payments",
  title: "paymentsTitle",
  path: "/payments",
  fetch: listPayments,
  filters: [
    serverListFilter("status", "filterStatus", "paymentStatuses", "paymentStatus"),
    serverListFilter("paymentMethod", "filterMethod", "paymentMethods", "method"),
  ],
  sortFields: () => constants().paymentSortFields,
  columns: [
    ["colCreated", (payment) => formatTime(payment.createdAt)],
    ["colReference", (payment) => link(`#/payments/${encodeURIComponent(payment.id)}`, payment.referenceId)],
    ["colAmount", (payment) => h("span", { class: "num" }, formatSatang(payment.amount))],
    [
      "colMethod",
      (payment) => (payment.paymentMethod ? valueText("method", payment.paymentMethod) : t("none")),
    ],
    ["colStatus", (payment) => badge(payment.status, valueText("paymentStatus", payment.status))],
  ],
};

/** @param {URLSearchParams} params */
export function paymentsView(params) {
  return listView(PAYMENTS, params);
}
