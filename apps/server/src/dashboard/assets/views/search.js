// @ts-check
// The header's search box: a reference id, a payment id or a withdraw id opens that record.
// Exact matches only (the server's GET /dashboard/api/search); when a payment and a withdraw
// share a reference, the payment opens, as payments are listed first.

import { describeError, SessionEnded, searchRecords } from "../api.js";
import { h } from "../dom.js";
import { t } from "../lang.js";
import { navigate } from "../router.js";

export function searchBox() {
  const input = h("input", {
    id: "record-search",
    name: "q",
    type: "search",
    maxlength: "200",
    autocomplete: "off",
    placeholder: t("searchPlaceholder"),
  });
  const message = h("p", { class: "search-message small", role: "status" });
  /** @param {Event} event */
  async function onSearch(event) {
    event.preventDefault();
    const q = input.value.trim();
    if (q === "") return;
    message.textContent = "";
    try {
      const { hits } = await searchRecords(q);
      const hit = hits[0];
      if (!hit) {
        message.textContent = t("searchNoMatch", { q });
        return;
      }
      navigate(`#/${hit.type === "payment" ? "payments" : "withdraws"}/${encodeURIComponent(hit.id)}`);
    } catch (error) {
      if (error instanceof SessionEnded) return;
      message.textContent = describeError(error);
    }
  }
  return h(
    "form",
    { class: "search", role: "search", onsubmit: onSearch },
    h("label", { for: "record-search", class: "visually-hidden" }, t("searchLabel")),
    input,
    h("button", { type: "submit", class: "button secondary" }, t("searchButton")),
    message,
  );
}
