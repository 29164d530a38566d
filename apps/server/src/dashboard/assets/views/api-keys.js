// @ts-check
// The merchant's API keys (#/api-keys): create one (its secret is shown once, here, and never
// stored in the browser), require signature v2 of one (or allow v1 again), and revoke one after
// asking again in place.

/** @import { Child } from "../dom.js" */
/** @import { ApiKey, CreatedApiKey } from "../types.js" */
import { canBuild, readOnlyNotice } from "../account.js";
import {
  ApiError,
  createApiKey,
  describeError,
  listApiKeys,
  revokeApiKey,
  SessionEnded,
  setKeySignatureRule,
} from "../api.js";
import { alertBox, badge, definitionList, heading, table } from "../components.js";
import { h, replace } from "../dom.js";
import { formatTime } from "../format.js";
import { t } from "../lang.js";
import { refresh } from "../router.js";

/**
 * The key created a moment ago, until the user says the secret is stored or leaves the page.
 * @type {CreatedApiKey | null}
 */
let newKey = null;

/** Forgets the new key's secret: the page is left or the session ended. */
export function forgetNewKey() {
  newKey = null;
}

/**
 * @param {string} value
 * @param {string} label what is copied, for the button's accessible name
 */
function copyButton(value, label) {
  const button = h(
    "button",
    { type: "button", class: "button secondary small", "aria-label": `${t("copy")}: ${label}` },
    t("copy"),
  );
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = t("copied");
    } catch {
      // Without clipboard access the value stays selectable on screen.
    }
  });
  return button;
}

/**
 * @param {string} value
 * @param {string} label
 * @param {string} testId
 */
export function secretRow(value, label, testId) {
  return h(
    "span",
    { class: "secret-row" },
    h("code", { "data-testid": testId }, value),
    copyButton(value, label),
  );
}

/** @param {CreatedApiKey} created */
function newKeyPanel(created) {
  const done = h("button", { type: "button", class: "button primary" }, t("done"));
  done.addEventListener("click", () => {
    newKey = null;
    refresh();
  });
  return h(
    "section",
    {
      class: "card secret-panel",
      "aria-labelledby": "new-key-heading",
      "data-focus-on-update": true,
      tabindex: "-1",
    },
    h("h2", { id: "new-key-heading" }, t("newKeyTitle")),
    h("p", { class: "warning" }, t("newKeyWarning")),
    definitionList([
      [t("newKeyApiKey"), secretRow(created.apiKey, t("newKeyApiKey"), "new-api-key")],
      [t("newKeySecret"), secretRow(created.apiSecret, t("newKeySecret"), "new-api-secret")],
    ]),
    done,
  );
}

function createKeyForm() {
  const nameInput = h("input", {
    id: "key-name",
    name: "name",
    type: "text",
    maxlength: "200",
    autocomplete: "off",
  });
  const createButton = h("button", { type: "submit", class: "button primary" }, t("createKey"));
  const formError = h("p", { class: "alert", role: "alert", hidden: true });
  /** @param {Event} event */
  async function onCreate(event) {
    event.preventDefault();
    createButton.disabled = true;
    createButton.textContent = t("creatingKey");
    try {
      newKey = await createApiKey(nameInput.value.trim());
      await refresh();
    } catch (error) {
      if (error instanceof SessionEnded) return;
      // In live a key is made only by a user with two-factor login, in a session signed in with
      // its code (docs/security.md).
      const reason = error instanceof ApiError ? error.metadata?.reason : undefined;
      formError.textContent =
        reason === "two_factor_enrolment_required"
          ? t("keyNeedsTwoFactor")
          : reason === "two_factor_login_required"
            ? t("keyNeedsTwoFactorLogin")
            : describeError(error, "form");
      formError.hidden = false;
      createButton.disabled = false;
      createButton.textContent = t("createKey");
    }
  }
  return h(
    "form",
    { class: "card inline-form", onsubmit: onCreate, "aria-labelledby": "create-key-heading" },
    h("h2", { id: "create-key-heading", class: "visually-hidden" }, t("createKey")),
    h("div", { class: "field" }, h("label", { for: "key-name" }, t("keyName")), nameInput),
    createButton,
    formError,
  );
}

/**
 * The actions cell of a key: "Revoke", which asks once more in place and starts on the safe
 * choice, since revoking cannot be undone.
 * @param {ApiKey} key
 * @param {string} name
 */
function revokeCell(key, name) {
  const cell = h("td", { class: "row-actions" });
  const showRevoke = () => {
    if (key.revokedAt) return replace(cell, t("none"));
    const button = h(
      "button",
      { type: "button", class: "button danger small", "aria-label": `${t("revoke")}: ${name}` },
      t("revoke"),
    );
    button.addEventListener("click", () => confirmRevoke());
    replace(cell, button);
    return button;
  };
  const confirmRevoke = () => {
    const cancel = h("button", { type: "button", class: "button secondary small" }, t("cancel"));
    const confirm = h("button", { type: "button", class: "button danger small" }, t("confirmRevoke"));
    cancel.addEventListener("click", () => showRevoke()?.focus());
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      try {
        await revokeApiKey(key.id);
        await refresh({ flash: t("revoked", { name }) });
      } catch (error) {
        if (error instanceof SessionEnded) return;
        replace(cell, alertBox(describeError(error)));
      }
    });
    replace(
      cell,
      h("p", { class: "confirm", role: "alert" }, t("revokeConfirm", { name })),
      h("div", { class: "actions" }, cancel, confirm),
    );
    cancel.focus();
  };
  showRevoke();
  return cell;
}

/**
 * The signature cell of a key: which signatures it takes, and for a developer or owner the
 * button that switches it (v2 only, or v1 and v2 again).
 * @param {ApiKey} key
 * @param {string} name
 */
function signatureCell(key, name) {
  const rule = key.requireSignatureV2 ? t("keyV2Required") : t("keyV1OrV2");
  if (key.revokedAt || !canBuild()) return h("td", null, rule);
  const label = key.requireSignatureV2 ? t("allowV1") : t("requireV2");
  const button = h(
    "button",
    { type: "button", class: "button secondary small", "aria-label": `${label}: ${name}` },
    label,
  );
  const cell = h("td", null, h("p", null, rule), button);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await setKeySignatureRule(key.id, !key.requireSignatureV2);
      await refresh({ flash: t(key.requireSignatureV2 ? "v1Allowed" : "v2Required", { name }) });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      replace(cell, alertBox(describeError(error)));
    }
  });
  return cell;
}

/** @param {ApiKey} key */
function keyRow(key) {
  const name = key.name || t("unnamedKey");
  return h(
    "tr",
    { class: key.revokedAt ? "revoked" : "" },
    h("td", null, name),
    h("td", { class: "mono break" }, key.apiKey),
    h("td", null, t(key.environment)),
    h("td", null, formatTime(key.createdAt)),
    h(
      "td",
      null,
      key.revokedAt
        ? badge("canceled", t("keyRevoked", { at: formatTime(key.revokedAt) }))
        : badge("succeeded", t("keyActive")),
    ),
    signatureCell(key, name),
    canBuild() ? revokeCell(key, name) : h("td", null, t("none")),
  );
}

/** @returns {Promise<Child[]>} */
export async function apiKeysView() {
  const keys = await listApiKeys();
  const heads = [
    t("colName"),
    t("colApiKey"),
    t("colEnvironment"),
    t("colCreated"),
    t("colStatus"),
    t("colSignature"),
    t("colActions"),
  ];
  return [
    heading(t("apiKeysTitle")),
    h("p", { class: "muted" }, t("apiKeysIntro")),
    newKey ? newKeyPanel(newKey) : null,
    // A finance user reads the keys; the server refuses their changes too (403 FORBIDDEN).
    canBuild() ? createKeyForm() : readOnlyNotice(),
    keys.data.length === 0
      ? h("p", { class: "empty card" }, t("nothingYet"))
      : table(t("apiKeysTitle"), heads, keys.data.map(keyRow)),
  ];
}
