// @ts-check
// The overview (#/): the balance, and the latest payments, withdraws and events.

/** @import { MessageKey } from "../i18n.js" */
/** @import { Child } from "../dom.js" */
/** @import { Balance } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
import { getBalance, getVolume } from "../api.js";
import { badge, heading, table } from "../components.js";
import { h, link } from "../dom.js";
import { formatSatang } from "../format.js";
import { t } from "../lang.js";
import { EVENTS } from "./events.js";
import { recordRows } from "./list.js";
import { PAYMENTS } from "./payments.js";
import { volumeChart } from "./volume-chart.js";
import { WITHDRAWS } from "./withdraws.js";

/** How many of each the overview shows. */
const RECENT_LIMIT = 5;

/** @type {Record<string, MessageKey>} */
const WALLET_STATUS_TEXTS = { active: "walletActive", frozen: "walletFrozen", closed: "walletClosed" };

/**
 * @param {string} label
 * @param {Child} value
 * @param {string} [testId]
 */
function stat(label, value, testId) {
  return h(
    "li",
    { class: "card stat" },
    h("span", { class: "stat-label" }, label),
    h("span", { class: "stat-value", "data-testid": testId }, value),
  );
}

/** @param {Balance} balance */
function balanceSection(balance) {
  const statusKey = WALLET_STATUS_TEXTS[balance.status];
  return h(
    "section",
    { "aria-labelledby": "balance-heading" },
    h("h2", { id: "balance-heading", class: "visually-hidden" }, t("balanceHeading")),
    h(
      "ul",
      { class: "stats" },
      stat(t("walletBalance"), formatSatang(balance.walletBalance), "wallet-balance"),
      stat(t("settlementBalance"), formatSatang(balance.settlementBalance)),
      stat(
        t("walletStatus"),
        badge(
          balance.status === "active" ? "succeeded" : "failed",
          statusKey ? t(statusKey) : balance.status,
        ),
      ),
    ),
  );
}

/**
 * The latest records of a list, with the list's columns and a link to all of them.
 * @template R
 * @param {string} id
 * @param {MessageKey} title
 * @param {ListDescription<R>} list
 * @param {R[]} records
 */
function recentSection(id, title, list, records) {
  return h(
    "section",
    { class: "card", "aria-labelledby": id },
    h(
      "div",
      { class: "section-head" },
      h("h2", { id }, t(title)),
      link(`#${list.path}`, t("viewAll", { what: t(list.title).toLowerCase() })),
    ),
    records.length === 0
      ? h("p", { class: "muted" }, t("nothingYet"))
      : table(
          t(title),
          list.columns.map(([head]) => t(head)),
          recordRows(list.columns, records),
        ),
  );
}

/** @returns {Promise<Child[]>} */
export async function overviewView() {
  const recent = new URLSearchParams({ limit: String(RECENT_LIMIT) });
  const [balance, volume, payments, withdraws, events] = await Promise.all([
    getBalance(),
    getVolume(),
    PAYMENTS.fetch(recent),
    WITHDRAWS.fetch(recent),
    EVENTS.fetch(recent),
  ]);
  return [
    heading(t("overviewTitle")),
    balanceSection(balance),
    volumeChart(volume.days),
    recentSection("recent-payments", "recentPayments", PAYMENTS, payments.data),
    recentSection("recent-withdraws", "recentWithdraws", WITHDRAWS, withdraws.data),
    recentSection("recent-events", "recentEvents", EVENTS, events.data),
  ];
}
