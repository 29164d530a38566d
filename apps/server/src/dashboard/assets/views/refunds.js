// @ts-check
// The refunds of one payment, on its page (#/payments/{id}): a table of its refunds and, for a
// succeeded payment with something left to refund, the refund form, its amount prefilled with
// what is left (in THB, as people read it; the API takes satang).

/** @import { Payment, Refund } from "../types.js" */
import { canRefund } from "../account.js";
import { ApiError, createRefund, describeError, listPaymentRefunds, SessionEnded } from "../api.js";
import { badge, table } from "../components.js";
import { h, replace } from "../dom.js";
import { formatSatang, formatTime } from "../format.js";
import { t, valueText } from "../lang.js";

/** @param {string} wire a wire amount: a decimal string of satang */
const satangOf = (wire) => BigInt(wire.split(".")[0] || "0");

/** @param {bigint} satang */
const bahtText = (satang) => `${satang / 100n}.${String(satang % 100n).padStart(2, "0")}`;

/**
 * THB as typed ("250", "250.5", "250.50", or as the page shows amounts: "1,250.00", "฿1,250")
 * to satang; null when it is not such an amount. Thousands separators are taken only in groups
 * of three, so "1,25" is refused rather than read as 125.
 * @param {string} text
 */
export function satangFromBaht(text) {
  const match = /^(?:฿\s*)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const baht = (match[1] ?? "").replaceAll(",", "");
  if (baht.length > 11) return null;
  const satang = BigInt(baht) * 100n + BigInt((match[2] ?? "").padEnd(2, "0"));
  return satang > 0n ? satang : null;
}

/**
 * What the payment has left to refund: its amount less its refunds that are not failed or canceled.
 * @param {Payment} payment
 * @param {Refund[]} refunds
 */
function refundableOf(payment, refunds) {
  const taken = refunds
    .filter((refund) => refund.status !== "failed" && refund.status !== "canceled")
    .reduce((sum, refund) => sum + satangOf(refund.amount), 0n);
  return satangOf(payment.amount) - taken;
}

/** @param {Refund[]} refunds */
function refundsTable(refunds) {
  if (refunds.length === 0) return h("p", { class: "muted" }, t("refundNone"));
  const heads = [t("colRefundStatus"), t("colRefundAmount"), t("colRefundReason"), t("colRefundCreated")];
  const rows = refunds.map((refund) =>
    h(
      "tr",
      { "data-testid": "refund-row" },
      h("td", null, badge(refund.status, valueText("refundStatus", refund.status))),
      h("td", null, formatSatang(refund.amount)),
      h("td", { class: "break" }, refund.failureReason ?? refund.reason ?? ""),
      h("td", null, formatTime(refund.createdAt)),
    ),
  );
  return table(t("refundsCaption"), heads, rows);
}

/**
 * The refusals a merchant can act on, in words; anything else as every other refusal.
 * @param {unknown} error
 */
function refusalText(error) {
  if (error instanceof ApiError && error.code === "INVALID_INPUT" && error.metadata?.refundable) {
    return t("refundTooMuch", { amount: formatSatang(String(error.metadata.refundable)) });
  }
  if (error instanceof ApiError && error.code === "INSUFFICIENT_BALANCE") return t("refundNoBalance");
  return describeError(error);
}

/**
 * @param {Payment} payment
 * @param {bigint} refundable
 * @param {(flash: string) => Promise<void>} done
 */
function refundForm(payment, refundable, done) {
  const amount = h("input", {
    id: "refund-amount",
    name: "amount",
    type: "text",
    inputmode: "decimal",
    required: true,
  });
  amount.value = bahtText(refundable);
  const reason = h("input", { id: "refund-reason", name: "reason", type: "text", maxlength: 255 });
  const submit = h("button", { type: "submit", class: "button primary" }, t("refundButton"));
  const formError = h("p", { class: "alert", role: "alert", tabindex: "-1", hidden: true });
  /** @param {string} text the refusal, which takes the focus (the button it left was disabled) */
  const fail = (text) => {
    formError.textContent = text;
    formError.hidden = false;
    submit.disabled = false;
    submit.textContent = t("refundButton");
    formError.focus();
  };
  // One refund asked for: its reference and idempotency key stay the same through retries until
  // the server has answered for certain, so a retry after an answer that never came (a lost
  // connection, a 503) returns the refund made then instead of making a second one.
  let attempt = newAttempt();
  /** @param {Event} event */
  async function onRefund(event) {
    event.preventDefault();
    const satang = satangFromBaht(amount.value);
    if (satang === null) return fail(t("refundAmountInvalid"));
    submit.disabled = true;
    submit.textContent = t("refunding");
    const text = reason.value.trim();
    /** @type {Refund} */
    let created;
    try {
      created = await createRefund(payment.id, {
        amount: `${satang}.00`,
        ...attempt,
        ...(text ? { reason: text } : {}),
      });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      // Refused for certain (a 4xx other than 429): nothing was made, and the next try, which may
      // change the amount, is a new refund. Otherwise the same refund is asked for again.
      if (error instanceof ApiError && error.status < 500 && error.status !== 429) attempt = newAttempt();
      return fail(refusalText(error));
    }
    await reportMade(form, t("refundCreated", { amount: formatSatang(created.amount) }), done);
  }
  const form = h(
    "form",
    { class: "card inline-form", onsubmit: onRefund, "aria-label": t("refundButton") },
    h("p", null, t("refundableAmount", { amount: formatSatang(`${refundable}.00`) })),
    h("div", { class: "field" }, h("label", { for: "refund-amount" }, t("refundAmount")), amount),
    h("div", { class: "field" }, h("label", { for: "refund-reason" }, t("refundReason")), reason),
    submit,
    formError,
  );
  return form;
}

/**
 * Redraws the section with `made` as its outcome. When only that reload fails, the refund was
 * still made: the form is replaced by a line saying so, so nothing invites a second refund (the
 * page's reload shows the refund and what is left).
 * @param {HTMLElement} form
 * @param {string} made
 * @param {(flash: string) => Promise<void>} done
 */
async function reportMade(form, made, done) {
  try {
    await done(made);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const shown = h(
      "p",
      { class: "flash", role: "status", tabindex: "-1" },
      `${made} ${t("refundListNotReloaded")}`,
    );
    form.replaceWith(shown);
    shown.focus();
  }
}

/** A new refund's own reference and idempotency key (the reference shows in lists and exports). */
function newAttempt() {
  const unique = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  return { referenceId: `dashboard-${unique}`, idempotencyKey: `dashboard-refund-${unique}` };
}

/**
 * The refund form for an owner; for the other roles, which the server refuses, a line saying who
 * can refund instead of a form that could only fail.
 * @param {Payment} payment
 * @param {bigint} refundable
 * @param {(flash: string) => Promise<void>} done
 */
function refundAction(payment, refundable, done) {
  if (canRefund()) return refundForm(payment, refundable, done);
  return h("p", { class: "notice", "data-testid": "refund-owners-only" }, t("refundOwnersOnly"));
}

/**
 * The refunds section of a payment's page; it redraws itself after a refund is made.
 * @param {Payment} payment
 */
export async function refundsSection(payment) {
  const section = h("section", { "aria-labelledby": "refunds-heading" });
  /** @param {string} [flash] the outcome of a refund just made, which takes the focus */
  const draw = async (flash) => {
    const { data: refunds } = await listPaymentRefunds(payment.id);
    const refundable = refundableOf(payment, refunds);
    const outcome = flash ? h("p", { class: "flash", role: "status", tabindex: "-1" }, flash) : null;
    replace(
      section,
      h("h2", { id: "refunds-heading" }, t("refundsTitle")),
      outcome,
      refundsTable(refunds),
      payment.status === "succeeded" && refundable > 0n ? refundAction(payment, refundable, draw) : null,
    );
    outcome?.focus();
  };
  await draw();
  return section;
}
