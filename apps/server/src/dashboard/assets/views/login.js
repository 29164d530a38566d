// @ts-check
// The login form, drawn instead of the dashboard while there is no session. A message says why
// it is shown when the session ended (logged out, expired) or the last attempt failed.

/** @import { MessageKey } from "../i18n.js" */
import { ApiError, describeError, login } from "../api.js";
import { langButton } from "../components.js";
import { h, replace, uid } from "../dom.js";
import { applyLang, t } from "../lang.js";
import { refresh } from "../router.js";
import { startSession } from "../session.js";

/**
 * What to tell the person whose login failed. Wrong credentials and a malformed form get the
 * same words, so the form tells nobody which emails have accounts.
 * @param {unknown} error
 */
function loginErrorText(error) {
  if (!(error instanceof ApiError)) return describeError(error);
  if (["INVALID_CREDENTIALS", "VALIDATION_ERROR"].includes(error.code)) return t("loginFailed");
  if (error.code === "RATE_LIMIT_EXCEEDED") {
    // Both limits answer this code: an email's failures (minutes) and an address's attempts
    // (seconds); the wait is the server's, said in the unit that fits it.
    const retryAfter = error.retryAfter ?? (Number(error.metadata.retryAfter) || 60);
    if (retryAfter < 60) return t("loginLockedSeconds", { seconds: Math.max(1, Math.ceil(retryAfter)) });
    return t("loginLocked", { minutes: Math.ceil(retryAfter / 60) });
  }
  if (error.code === "AUTHENTICATION_ERROR") return t("loginMerchantDisabled");
  return describeError(error);
}

/** @param {string} email */
function loginInputs(email) {
  return {
    email: h("input", {
      id: "login-email",
      name: "email",
      type: "email",
      autocomplete: "username",
      required: true,
      value: email,
    }),
    password: h("input", {
      id: "login-password",
      name: "password",
      type: "password",
      autocomplete: "current-password",
      required: true,
    }),
    // Always there, whether or not this account has two-factor login: asking for it only after
    // a correct password would tell anyone which passwords are right.
    otp: h("input", {
      id: "login-otp",
      name: "otp",
      type: "text",
      inputmode: "numeric",
      pattern: "[0-9]{6}",
      maxlength: "6",
      autocomplete: "one-time-code",
    }),
  };
}

/**
 * The sign-in card: on success the session starts and the dashboard's heading takes the focus;
 * on failure the message says why, the fields are marked invalid and the password is cleared.
 * @param {HTMLElement} message
 * @param {{ email: HTMLInputElement, password: HTMLInputElement, otp: HTMLInputElement }} inputs
 */
function loginForm(message, inputs) {
  const { email, password, otp } = inputs;
  const submit = h("button", { type: "submit", class: "button primary" }, t("signIn"));
  /** @param {Event} event */
  async function onSubmit(event) {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = t("signingIn");
    try {
      startSession(await login(email.value, password.value, otp.value.trim() || undefined));
      await refresh({ focus: "main h1" });
    } catch (error) {
      message.className = "alert";
      message.textContent = loginErrorText(error);
      message.hidden = false;
      for (const input of [email, password]) {
        input.setAttribute("aria-invalid", "true");
        input.setAttribute("aria-describedby", message.id);
      }
      password.value = "";
      otp.value = "";
      password.focus();
      submit.disabled = false;
      submit.textContent = t("signIn");
    }
  }
  return h(
    "form",
    { class: "card login-card", onsubmit: onSubmit, "aria-labelledby": "login-title" },
    h("h1", { id: "login-title" }, t("loginTitle")),
    h("p", { class: "muted" }, t("loginIntro")),
    message,
    h("div", { class: "field" }, h("label", { for: "login-email" }, t("email")), email),
    h("div", { class: "field" }, h("label", { for: "login-password" }, t("password")), password),
    h("div", { class: "field" }, h("label", { for: "login-otp" }, t("otpCode")), otp),
    submit,
  );
}

/**
 * Draws the login page.
 * @param {MessageKey} [messageKey] why it is shown
 * @param {{ email?: string, focusLang?: boolean }} [keep] what survives a language switch
 */
export function renderLogin(messageKey, keep = {}) {
  applyLang();
  const app = /** @type {HTMLElement} */ (document.getElementById("app"));
  const notice = messageKey === "loggedOut" || messageKey === "sessionExpired";
  const message = h(
    "p",
    { id: uid("login-error"), class: notice ? "notice" : "alert", role: "alert", hidden: !messageKey },
    messageKey ? t(messageKey) : "",
  );
  const inputs = loginInputs(keep.email ?? "");
  const switchLang = langButton(() =>
    renderLogin(messageKey, { email: inputs.email.value, focusLang: true }),
  );
  replace(
    app,
    h(
      "div",
      { class: "login-page" },
      h("header", { class: "login-top" }, h("span", { class: "brand" }, t("brand")), switchLang),
      h("main", { id: "main", class: "login-main" }, loginForm(message, inputs)),
    ),
  );
  const focus = keep.focusLang ? switchLang : keep.email ? inputs.password : inputs.email;
  focus.focus();
}
