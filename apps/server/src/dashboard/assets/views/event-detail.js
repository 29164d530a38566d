// @ts-check
// One event (#/events/{id}): what it is about, its payload as webhooks send it, each webhook
// delivery with its attempts, and the button that sends it again.

import { canBuild } from "../account.js";
/** @import { Child } from "../dom.js" */
/** @import { Delivery, DeliveryAttempt } from "../types.js" */
import {
  ApiError,
  describeError,
  getEvent,
  listWebhookEndpoints,
  redeliverEvent,
  SessionEnded,
} from "../api.js";
import { attemptErrorText } from "../attempt-error.js";
import { backLink, badge, definitionList, heading, objectLink, table } from "../components.js";
import { h } from "../dom.js";
import { formatTime } from "../format.js";
import { t, valueText } from "../lang.js";
import { refresh } from "../router.js";

/**
 * The badge colour of a delivery status: the payment statuses of the same meaning.
 * @param {string} status
 */
export function deliveryTone(status) {
  return ["succeeded", "failed", "pending"].includes(status) ? status : "canceled";
}

/**
 * The error column: what went wrong and the receiver's answer, for a failed attempt only. A
 * successful attempt has no error, whatever its receiver answered in its body.
 * @param {DeliveryAttempt} attempt
 */
function attemptErrorCell(attempt) {
  if (attempt.succeeded) return h("td", null, t("none"));
  return h(
    "td",
    { title: attempt.error ?? undefined },
    attempt.errorCode
      ? valueText("attemptErrorCode", attempt.errorCode)
      : attemptErrorText(attempt) || t("none"),
    attempt.responseExcerpt
      ? h("pre", { class: "excerpt", "aria-label": t("attemptResponse") }, attempt.responseExcerpt)
      : null,
  );
}

/**
 * The event as webhooks send it, pretty-printed. It is inserted as text, so whatever the
 * merchant's metadata holds is shown, never run.
 * @param {{ id: string, type: string, createdAt: string, data: unknown }} event
 */
function payloadSection(event) {
  const payload = { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data };
  return h(
    "section",
    { class: "card", "aria-labelledby": "payload-heading" },
    h("h2", { id: "payload-heading" }, t("eventPayload")),
    h("p", { class: "muted small" }, t("eventPayloadHelp")),
    h(
      "pre",
      { class: "payload", tabindex: 0, "aria-labelledby": "payload-heading" },
      h("code", null, JSON.stringify(payload, null, 2)),
    ),
  );
}

/** @param {DeliveryAttempt[]} attempts */
function attemptsTable(attempts) {
  return table(
    t("attempts"),
    [
      t("attemptNumber"),
      t("attemptResult"),
      t("attemptHttp"),
      t("attemptDuration"),
      t("attemptStarted"),
      t("attemptError"),
    ],
    attempts.map((attempt) =>
      h(
        "tr",
        null,
        h("td", null, String(attempt.attemptNumber)),
        h(
          "td",
          null,
          attempt.succeeded ? badge("succeeded", t("attemptOk")) : badge("failed", t("attemptFailed")),
        ),
        h("td", null, attempt.statusCode === null ? t("none") : String(attempt.statusCode)),
        h("td", { class: "num" }, t("durationMs", { ms: attempt.durationMs })),
        h("td", null, formatTime(attempt.startedAt)),
        attemptErrorCell(attempt),
      ),
    ),
    { showCaption: true },
  );
}

/**
 * @param {Delivery} delivery
 * @param {number} index
 * @param {Map<string, string>} urls the merchant's endpoint URLs by id
 */
function deliveryItem(delivery, index, urls) {
  const headingId = `delivery-${index + 1}`;
  const url = urls.get(delivery.endpointId) || t("deletedEndpoint", { id: delivery.endpointId });
  return h(
    "li",
    { class: "delivery", "aria-labelledby": headingId },
    h("h3", { id: headingId }, t("deliveryTo", { url })),
    definitionList([
      [
        t("deliveryStatus"),
        badge(deliveryTone(delivery.status), valueText("deliveryStatus", delivery.status)),
      ],
      [t("attemptCount"), String(delivery.attemptCount)],
      [t("fieldCreated"), formatTime(delivery.createdAt)],
      [t("nextAttempt"), formatTime(delivery.nextAttemptAt)],
      [t("completedAt"), formatTime(delivery.completedAt)],
    ]),
    delivery.attempts.length === 0
      ? h("p", { class: "muted" }, t("noAttempts"))
      : attemptsTable(delivery.attempts),
  );
}

/**
 * The redeliver button and the line that tells why it failed. Success draws the event again,
 * with the new deliveries and a message saying how many were scheduled.
 * @param {string} id
 */
function redeliverControls(id) {
  const status = h("p", { class: "notice", role: "status", hidden: true });
  const button = h(
    "button",
    { type: "button", class: "button primary", "aria-describedby": "redeliver-help" },
    t("redeliver"),
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = t("redelivering");
    try {
      const result = await redeliverEvent(id);
      await refresh({ flash: t("redelivered", { count: result.deliveries.length }) });
    } catch (error) {
      if (error instanceof SessionEnded) return;
      status.className = "alert";
      status.setAttribute("role", "alert");
      status.textContent =
        error instanceof ApiError && error.code === "STATE_CONFLICT"
          ? t("redeliverNoEndpoint")
          : describeError(error);
      status.hidden = false;
      button.disabled = false;
      button.textContent = t("redeliver");
    }
  });
  return { button, status };
}

/**
 * @param {string} id
 * @returns {Promise<Child[]>}
 */
export async function eventDetailView(id) {
  const [event, endpoints] = await Promise.all([getEvent(id), listWebhookEndpoints()]);
  const urls = new Map(endpoints.data.map((endpoint) => [endpoint.id, endpoint.url]));
  // Redelivering is a developer's or an owner's (CONTRACT 13); finance reads the deliveries.
  const redeliver = canBuild() ? redeliverControls(id) : undefined;
  return [
    backLink("events", "#/events", "backToEvents"),
    heading(t("eventTitle", { type: valueText("event", event.type) })),
    h(
      "section",
      { class: "card", "aria-labelledby": "details-heading" },
      h("h2", { id: "details-heading" }, t("details")),
      definitionList([
        [t("fieldType"), h("code", null, event.type)],
        [t("fieldId"), h("span", { class: "mono" }, event.id)],
        [t("fieldCreated"), formatTime(event.createdAt)],
        [t("fieldObject"), objectLink(event)],
      ]),
    ),
    payloadSection(event),
    h(
      "section",
      { class: "card", "aria-labelledby": "deliveries-heading" },
      h(
        "div",
        { class: "section-head" },
        h("h2", { id: "deliveries-heading" }, t("deliveries")),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "button secondary", onclick: () => refresh() }, t("refresh")),
          redeliver?.button ?? null,
        ),
      ),
      redeliver ? h("p", { id: "redeliver-help", class: "muted small" }, t("redeliverHelp")) : null,
      redeliver?.status ?? null,
      event.deliveries.length === 0
        ? h("p", { class: "muted" }, t("noDeliveries"))
        : h(
            "ol",
            { class: "deliveries" },
            event.deliveries.map((delivery, index) => deliveryItem(delivery, index, urls)),
          ),
    ),
  ];
}
