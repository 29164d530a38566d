// @ts-check
// The merchant's webhook endpoints (#/webhooks): add one (its signing secret is shown once,
// here, and never stored in the browser), send it a test event, rotate its secret, disable it
// (it keeps its URL and secret but receives nothing) and enable it again, delete it. Rotating,
// disabling and deleting ask once more in place, starting on the safe choice.

/** @import { Child } from "../dom.js" */
/** @import { WebhookEndpoint, WebhookEndpointWithSecret } from "../types.js" */
import { canBuild, readOnlyNotice } from "../account.js";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  describeError,
  listWebhookEndpoints,
  rotateWebhookSecret,
  SessionEnded,
  sendWebhookTest,
  setWebhookEndpointDisabled,
} from "../api.js";
import { attemptErrorText } from "../attempt-error.js";
import { alertBox, badge, definitionList, heading, table } from "../components.js";
import { constants } from "../constants.js";
import { h, replace } from "../dom.js";
import { formatTime } from "../format.js";
import { t, valueText } from "../lang.js";
import { refresh } from "../router.js";
import { secretRow } from "./api-keys.js";

/**
 * The secret created or rotated a moment ago, until the user says it is stored or leaves.
 * @type {{ endpoint: WebhookEndpointWithSecret, rotated: boolean } | null}
 */
let shown = null;

/** Forgets the secret on screen: the page is left or the session ended. */
export function forgetEndpointSecret() {
  shown = null;
}

function secretPanel() {
  if (!shown) return null;
  const { endpoint, rotated } = shown;
  const done = h("button", { type: "button", class: "button primary" }, t("done"));
  done.addEventListener("click", () => {
    shown = null;
    refresh();
  });
  return h(
    "section",
    {
      class: "card secret-panel",
      "aria-labelledby": "secret-heading",
      "data-focus-on-update": true,
      tabindex: "-1",
    },
    h("h2", { id: "secret-heading" }, t(rotated ? "rotatedTitle" : "newEndpointTitle")),
    h("p", { class: "warning" }, t("newKeyWarning")),
    rotated ? h("p", null, t("rotatedNote")) : null,
    definitionList([
      [t("endpointUrl"), h("span", { class: "mono break" }, endpoint.url)],
      [t("endpointSecret"), secretRow(endpoint.secret, t("endpointSecret"), "new-endpoint-secret")],
    ]),
    done,
  );
}

/** The event choice: "all events", or any of the server's event types. */
function eventsField() {
  const all = h("input", { type: "checkbox", id: "events-all", name: "events", value: "*", checked: true });
  const boxes = constants().eventTypes.map((type) =>
    h("input", { type: "checkbox", id: `events-${type}`, name: "events", value: type }),
  );
  const field = h(
    "fieldset",
    { class: "field events-field" },
    h("legend", null, t("endpointEvents")),
    h("label", { class: "check" }, all, t("allEvents")),
    boxes.map((box) => h("label", { class: "check" }, box, valueText("event", box.value))),
  );
  const chosen = () => (all.checked ? ["*"] : boxes.filter((box) => box.checked).map((box) => box.value));
  return { field, chosen };
}

function createForm() {
  const url = h("input", {
    id: "endpoint-url",
    name: "url",
    type: "url",
    required: true,
    autocomplete: "off",
  });
  const description = h("input", { id: "endpoint-description", name: "description", type: "text" });
  const events = eventsField();
  const submit = h("button", { type: "submit", class: "button primary" }, t("createEndpoint"));
  const formError = h("p", { class: "alert", role: "alert", hidden: true });
  /** @param {Event} event */
  async function onCreate(event) {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = t("creatingEndpoint");
    try {
      const text = description.value.trim();
      const body = { url: url.value.trim(), events: events.chosen(), ...(text ? { description: text } : {}) };
      shown = { endpoint: await createWebhookEndpoint(body), rotated: false };
      await refresh();
    } catch (error) {
      if (error instanceof SessionEnded) return;
      formError.textContent = describeError(error, "form");
      formError.hidden = false;
      submit.disabled = false;
      submit.textContent = t("createEndpoint");
    }
  }
  return h(
    "form",
    { class: "card inline-form", onsubmit: onCreate, "aria-labelledby": "create-endpoint-heading" },
    h("h2", { id: "create-endpoint-heading", class: "visually-hidden" }, t("createEndpoint")),
    h("div", { class: "field" }, h("label", { for: "endpoint-url" }, t("endpointUrl")), url),
    h(
      "div",
      { class: "field" },
      h("label", { for: "endpoint-description" }, t("endpointDescription")),
      description,
    ),
    events.field,
    submit,
    formError,
  );
}

/**
 * A button that asks once more in place before `run`.
 * @param {HTMLElement} cell
 * @param {{ label: string, question: string, confirm: string, danger: boolean, run: () => Promise<void> }} action
 * @param {() => void} back redraws the cell's buttons
 */
function confirmInPlace(cell, action, back) {
  const cancel = h("button", { type: "button", class: "button secondary small" }, t("cancel"));
  const confirm = h(
    "button",
    { type: "button", class: `button ${action.danger ? "danger" : "primary"} small` },
    action.confirm,
  );
  cancel.addEventListener("click", back);
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;
    try {
      await action.run();
    } catch (error) {
      if (error instanceof SessionEnded) return;
      replace(cell, alertBox(describeError(error)));
    }
  });
  replace(
    cell,
    h("p", { class: "confirm", role: "alert" }, action.question),
    h("div", { class: "actions" }, cancel, confirm),
  );
  cancel.focus();
}

/** @param {WebhookEndpoint} endpoint */
function actionsCell(endpoint) {
  const cell = h("td", { class: "row-actions" });
  const result = h("p", { class: "test-result", role: "status" });
  const label = endpoint.url;
  /** @param {string} text @param {string} className */
  const button = (text, className) =>
    h(
      "button",
      { type: "button", class: `button ${className} small`, "aria-label": `${text}: ${label}` },
      text,
    );
  const showButtons = () => {
    const test = button(t("sendTest"), "secondary");
    const rotate = button(t("rotateSecret"), "secondary");
    const remove = button(t("deleteEndpoint"), "danger");
    const toggle = button(t(endpoint.disabled ? "enableEndpoint" : "disableEndpoint"), "secondary");
    test.addEventListener("click", () => runTest(endpoint, test, result));
    toggle.addEventListener("click", async () => {
      if (endpoint.disabled) {
        // Enabling loses nothing, so it needs no second question.
        toggle.disabled = true;
        try {
          await setWebhookEndpointDisabled(endpoint.id, false);
          await refresh({ flash: t("endpointEnabled", { url: label }) });
        } catch (error) {
          if (error instanceof SessionEnded) return;
          replace(cell, alertBox(describeError(error)));
        }
        return;
      }
      confirmInPlace(
        cell,
        {
          label: t("disableEndpoint"),
          question: t("disableConfirm", { url: label }),
          confirm: t("confirmDisable"),
          danger: false,
          run: async () => {
            await setWebhookEndpointDisabled(endpoint.id, true);
            await refresh({ flash: t("endpointDisabled", { url: label }) });
          },
        },
        showButtons,
      );
    });
    rotate.addEventListener("click", () =>
      confirmInPlace(
        cell,
        {
          label: t("rotateSecret"),
          question: t("rotateConfirm", { url: label }),
          confirm: t("confirmRotate"),
          danger: false,
          run: async () => {
            shown = { endpoint: await rotateWebhookSecret(endpoint.id), rotated: true };
            await refresh();
          },
        },
        showButtons,
      ),
    );
    remove.addEventListener("click", () =>
      confirmInPlace(
        cell,
        {
          label: t("deleteEndpoint"),
          question: t("deleteConfirm", { url: label }),
          confirm: t("confirmDelete"),
          danger: true,
          run: async () => {
            await deleteWebhookEndpoint(endpoint.id);
            await refresh({ flash: t("endpointDeleted", { url: label }) });
          },
        },
        showButtons,
      ),
    );
    replace(cell, h("div", { class: "actions" }, test, rotate, toggle, remove), result);
  };
  showButtons();
  return cell;
}

/**
 * @param {WebhookEndpoint} endpoint
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} result
 */
async function runTest(endpoint, button, result) {
  button.disabled = true;
  button.textContent = t("sendingTest");
  try {
    const outcome = await sendWebhookTest(endpoint.id);
    result.className = outcome.succeeded ? "test-result ok" : "test-result alert";
    result.textContent = outcome.succeeded
      ? t("testOk", { status: outcome.statusCode ?? "", ms: outcome.durationMs })
      : t("testFailed", { error: attemptErrorText(outcome) ?? "" });
  } catch (error) {
    if (error instanceof SessionEnded) return;
    result.className = "test-result alert";
    result.textContent = describeError(error);
  }
  button.disabled = false;
  button.textContent = t("sendTest");
}

/** @param {WebhookEndpoint} endpoint */
function endpointRow(endpoint) {
  return h(
    "tr",
    null,
    h(
      "td",
      { class: "mono break" },
      endpoint.url,
      endpoint.previousSecretExpiresAt
        ? h(
            "small",
            { class: "muted block" },
            t("rotating", { at: formatTime(endpoint.previousSecretExpiresAt) }),
          )
        : null,
    ),
    h(
      "td",
      null,
      endpoint.events.includes("*")
        ? t("allEvents")
        : h(
            "ul",
            { class: "plain" },
            endpoint.events.map((type) => h("li", null, h("code", null, type))),
          ),
    ),
    h(
      "td",
      null,
      endpoint.disabled
        ? badge("canceled", t("endpointDisabledBadge"))
        : badge("succeeded", t("endpointActive")),
    ),
    h("td", null, endpoint.description || t("none")),
    h("td", null, formatTime(endpoint.createdAt)),
    canBuild() ? actionsCell(endpoint) : h("td", null, t("none")),
  );
}

/** @returns {Promise<Child[]>} */
export async function webhooksView() {
  const endpoints = await listWebhookEndpoints();
  const heads = [
    t("colUrl"),
    t("colEvents"),
    t("endpointState"),
    t("colDescription"),
    t("colCreated"),
    t("colActions"),
  ];
  return [
    heading(t("webhooksTitle")),
    h("p", { class: "muted" }, t("webhooksIntro")),
    secretPanel(),
    // A finance user reads the endpoints; the server refuses their changes too (403 FORBIDDEN).
    canBuild() ? createForm() : readOnlyNotice(),
    endpoints.data.length === 0
      ? h("p", { class: "empty card" }, t("nothingYet"))
      : table(t("webhooksTitle"), heads, endpoints.data.map(endpointRow)),
  ];
}
