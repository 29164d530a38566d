// @ts-check
// One payment (#/payments/{id}): its fields, who pays (name, masked account, bank), its
// metadata, the hosted payment page, and its timeline of events.

/** @import { Child } from "../dom.js" */
import { getPayment } from "../api.js";
import { backLink, badge, detailGrid, heading, mono } from "../components.js";
import { h } from "../dom.js";
import { bankText, formatSatang, formatTime } from "../format.js";
import { t, valueText } from "../lang.js";
import { refundsSection } from "./refunds.js";

/**
 * The metadata as a small key/value list, or null when there is none.
 * @param {Record<string, string> | null} metadata
 * @returns {Child}
 */
function metadataList(metadata) {
  const entries = Object.entries(metadata || {});
  if (entries.length === 0) return null;
  return h(
    "dl",
    { class: "metadata" },
    entries.map(([key, value]) =>
      h("div", null, h("dt", null, mono(key)), h("dd", { class: "break" }, value)),
    ),
  );
}

/**
 * @param {string} id
 * @returns {Promise<Child[]>}
 */
export async function paymentDetailView(id) {
  const { payment, customer, hostedPageUrl, transferReference, timeline } = await getPayment(id);
  const refunds = await refundsSection(payment);
  return [
    backLink("payments", "#/payments", "backToPayments"),
    heading(t("paymentTitle", { reference: payment.referenceId })),
    detailGrid(
      [
        [t("fieldStatus"), badge(payment.status, valueText("paymentStatus", payment.status))],
        [t("fieldAmount"), formatSatang(payment.amount)],
        [t("fieldMethod"), payment.paymentMethod ? valueText("method", payment.paymentMethod) : null],
        [t("fieldReference"), mono(payment.referenceId)],
        // What the customer writes in the transfer's note: matches a bank statement's line.
        ...(transferReference
          ? /** @type {[string, Child][]} */ ([[t("fieldTransferReference"), mono(transferReference)]])
          : []),
        [t("fieldId"), mono(payment.id)],
        [t("fieldDescription"), payment.description],
        [t("fieldCustomerName"), customer.name],
        // The server sends the number masked: only its last four digits are shown.
        [t("fieldCustomerAccount"), mono(customer.accountNumber)],
        [t("fieldCustomerBank"), bankText(customer.bankCode)],
        [t("fieldMetadata"), metadataList(payment.metadata)],
        [
          t("fieldHostedPage"),
          h(
            "a",
            { href: hostedPageUrl, target: "_blank", rel: "noopener", class: "break" },
            t("openHostedPage"),
          ),
        ],
        [t("fieldCreated"), formatTime(payment.createdAt)],
        [t("fieldExpires"), formatTime(payment.expiresAt)],
        [t("fieldConfirmed"), formatTime(payment.confirmedAt)],
        [t("fieldCanceled"), formatTime(payment.canceledAt)],
        [t("fieldUpdated"), formatTime(payment.updatedAt)],
      ],
      payment,
      timeline,
    ),
    refunds,
  ];
}
