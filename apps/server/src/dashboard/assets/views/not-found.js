// @ts-check
// A route the dashboard does not have, or a record that does not exist for this merchant.

/** @import { Child } from "../dom.js" */
import { heading } from "../components.js";
import { h } from "../dom.js";
import { t } from "../lang.js";

/** @returns {Child[]} */
export function notFoundView() {
  return [heading(t("notFoundTitle")), h("p", null, t("notFoundText"))];
}
