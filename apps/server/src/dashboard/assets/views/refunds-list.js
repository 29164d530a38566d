// @ts-check
// The refunds list (#/refunds): every refund of the merchant, its filters, sorts and columns.
// A refund's own page is its payment's: the reference links there, where the payment's refunds
// and the refund form are.

/** @import { Refund } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
import { listRefunds } from "../api.js";
import { badge } from "../components.js";
import { constants } from "../constants.js";
import { h, link } from "../dom.js";
import { formatSatang, formatTime } from "../format.js";
import { valueText } from "../lang.js";
import { serverListFilter } from "./filters.js";
import { listView } from "./list.js";

/** @type {ListDescription<Refund>} */
export const REFUNDS = {
  key: "refunds",
  title: "refundsTitle",
  path: "/refunds",
  fetch: listRefunds,
  filters: [serverListFilter("status", "filterStatus", "refundStatuses", "refundStatus")],
  sortFields: () => constants().refundSortFields,
  columns: [
    ["colCreated", (refund) => formatTime(refund.createdAt)],
    [
      "colReference",
      (refund) => link(`#/payments/${encodeURIComponent(refund.paymentId)}`, refund.referenceId),
    ],
    ["colAmount", (refund) => h("span", { class: "num" }, formatSatang(refund.amount))],
    [
      "colRefundTo",
      // One element, so the stacked phone layout keeps name and number together.
      (refund) =>
        h(
          "span",
          null,
          refund.destination.accountName,
          h("br"),
          h("span", { class: "muted mono" }, refund.destination.accountNumber),
        ),
    ],
    [
      "colRefundReason",
      (refund) => h("span", { class: "break" }, refund.failureReason ?? refund.reason ?? ""),
    ],
    ["colStatus", (refund) => badge(refund.status, valueText("refundStatus", refund.status))],
  ],
};

/** @param {URLSearchParams} params */
export function refundsListView(params) {
  return listView(REFUNDS, params);
}
