// @ts-check
// One withdraw (#/withdraws/{id}): its fields, the bank by name, and its timeline of events.

/** @import { Child } from "../dom.js" */
import { getWithdraw } from "../api.js";
import { backLink, badge, detailGrid, heading, mono } from "../components.js";
import { bankText, formatSatang, formatTime } from "../format.js";
import { t, valueText } from "../lang.js";

/**
 * @param {string} id
 * @returns {Promise<Child[]>}
 */
export async function withdrawDetailView(id) {
  const { withdraw, timeline } = await getWithdraw(id);
  return [
    backLink("withdraws", "#/withdraws", "backToWithdraws"),
    heading(t("withdrawTitle", { reference: withdraw.referenceId })),
    detailGrid(
      [
        [t("fieldStatus"), badge(withdraw.status, valueText("withdrawStatus", withdraw.status))],
        [t("fieldAmount"), formatSatang(withdraw.amount)],
        [t("fieldDestination"), valueText("destination", withdraw.destinationType)],
        [t("fieldAccountName"), withdraw.bankAccountName],
        // The API sends the number masked: only its last four digits are shown.
        [t("fieldAccountNumber"), mono(withdraw.bankAccountNumber || t("none"))],
        [t("fieldBank"), bankText(withdraw.bankCode)],
        [t("fieldReference"), mono(withdraw.referenceId)],
        [t("fieldId"), mono(withdraw.id)],
        [t("fieldDescription"), withdraw.description],
        [t("fieldCreated"), formatTime(withdraw.createdAt)],
        [t("fieldPaid"), formatTime(withdraw.paidAt)],
        [t("fieldCanceled"), formatTime(withdraw.canceledAt)],
        [t("fieldUpdated"), formatTime(withdraw.updatedAt)],
      ],
      withdraw,
      timeline,
    ),
  ];
}
