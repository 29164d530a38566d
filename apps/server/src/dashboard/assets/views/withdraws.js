// @ts-check
// The withdraws list (#/withdraws): its filters, sorts and columns.

/** @import { Withdraw } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
import { listWithdraws } from "../api.js";
import { badge } from "../components.js";
import { constants } from "../constants.js";
import { h, link } from "../dom.js";
import { formatSatang, formatTime } from "../format.js";
import { valueText } from "../lang.js";
import { serverListFilter } from "./filters.js";
import { listView } from "./list.js";

/** @type {ListDescription<Withdraw>} */
export const WITHDRAWS = {
  key: "withdraws",
  title: "withdrawsTitle",
  path: "/withdraws",
  fetch: listWithdraws,
  filters: [
    serverListFilter("status", "filterStatus", "withdrawStatuses", "withdrawStatus"),
    serverListFilter("destinationType", "filterDestination", "destinationTypes", "destination"),
  ],
  sortFields: () => constants().withdrawSortFields,
  columns: [
    ["colCreated", (withdraw) => formatTime(withdraw.createdAt)],
    [
      "colReference",
      (withdraw) => link(`#/withdraws/${encodeURIComponent(withdraw.id)}`, withdraw.referenceId),
    ],
    ["colAmount", (withdraw) => h("span", { class: "num" }, formatSatang(withdraw.amount))],
    [
      "colAccount",
      // One element, so the stacked phone layout keeps name and number together.
      (withdraw) =>
        h(
          "span",
          null,
          withdraw.bankAccountName || "",
          h("br"),
          h("span", { class: "muted mono" }, withdraw.bankAccountNumber || ""),
        ),
    ],
    ["colStatus", (withdraw) => badge(withdraw.status, valueText("withdrawStatus", withdraw.status))],
  ],
};

/** @param {URLSearchParams} params */
export function withdrawsView(params) {
  return listView(WITHDRAWS, params);
}
