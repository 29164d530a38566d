// @ts-check
// Two-factor login of the signed-in user (#/security): whether it is on; setting up an
// authenticator app (a QR code of the otpauth:// URI and the key to type by hand), turned on by
// a code from the app. An owner of a live account sees only this page until it is on.

/** @import { Child } from "../dom.js" */
import { currentAccount, invalidateAccount } from "../account.js";
import { confirmTwoFactor, describeError, SessionEnded, startTwoFactor } from "../api.js";
import { definitionList, heading } from "../components.js";
import { h } from "../dom.js";
import { t } from "../lang.js";
import { refresh } from "../router.js";
import { secretRow } from "./api-keys.js";

/**
 * The enrolment under way: its key is shown until the page is left, and never stored.
 * @type {{ secret: string, otpauthUri: string, qrCode: string } | null}
 */
let enrolment = null;

/** Forgets the enrolment's key: the page is left or the session ended. */
export function forgetEnrolment() {
  enrolment = null;
}

function startButton() {
  const button = h("button", { type: "button", class: "button primary" }, t("startEnrolment"));
  const failure = h("p", { class: "alert", role: "alert", hidden: true });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      enrolment = await startTwoFactor();
      await refresh({ focus: "#enrol-code" });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      failure.textContent = describeError(error, "form");
      failure.hidden = false;
      button.disabled = false;
    }
  });
  return h("div", { class: "card" }, button, failure);
}

/** @param {{ secret: string, otpauthUri: string, qrCode: string }} started */
function enrolmentPanel(started) {
  const code = h("input", {
    id: "enrol-code",
    name: "otp",
    type: "text",
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: "6",
    required: true,
    autocomplete: "one-time-code",
  });
  const submit = h("button", { type: "submit", class: "button primary" }, t("confirmEnrolment"));
  const formError = h("p", { class: "alert", role: "alert", hidden: true });
  /** @param {Event} event */
  async function onConfirm(event) {
    event.preventDefault();
    submit.disabled = true;
    try {
      await confirmTwoFactor(code.value.trim());
      enrolment = null;
      invalidateAccount();
      await refresh({ redraw: true, flash: t("twoFactorTurnedOn") });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      formError.textContent = describeError(error, "form");
      formError.hidden = false;
      submit.disabled = false;
      code.value = "";
      code.focus();
    }
  }
  return h(
    "form",
    { class: "card", onsubmit: onConfirm, "aria-labelledby": "enrol-heading" },
    h("h2", { id: "enrol-heading" }, t("startEnrolment")),
    h("p", null, t("scanQr")),
    h("img", { src: started.qrCode, alt: t("qrAlt"), width: "240", height: "240", "data-testid": "totp-qr" }),
    definitionList([[t("enrolmentKey"), secretRow(started.secret, t("enrolmentKey"), "totp-secret")]]),
    h("div", { class: "field" }, h("label", { for: "enrol-code" }, t("confirmCode")), code),
    submit,
    formError,
  );
}

/** @returns {Promise<Child[]>} */
export async function securityView() {
  const me = currentAccount();
  const enabled = me?.user.twoFactorEnabled === true;
  /** @type {Child[]} */
  const notes = [];
  if (me?.twoFactorRequired)
    notes.push(h("p", { class: "warning", role: "alert" }, t("twoFactorRequiredNote")));
  notes.push(
    h("p", { "data-testid": "two-factor-state" }, t(enabled ? "twoFactorEnabledNote" : "twoFactorOffNote")),
  );
  return [
    heading(t("securityTitle")),
    h("p", { class: "muted" }, t("securityIntro")),
    ...notes,
    enrolment ? enrolmentPanel(enrolment) : enabled ? null : startButton(),
  ];
}
