// @ts-check
// Every webhook delivery of the merchant (#/deliveries): each event sent to each endpoint, with
// its latest outcome, filtered by status, event type, endpoint and day, paged like every list.
// An event's own page has each attempt and the redeliver button; a row links there.

/** @import { ListedDelivery } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
/** @import { Filter } from "./filters.js" */
import { listDeliveries, listWebhookEndpoints } from "../api.js";
import { attemptErrorText } from "../attempt-error.js";
import { badge } from "../components.js";
import { h, link } from "../dom.js";
import { formatTime } from "../format.js";
import { t, valueText } from "../lang.js";
import { deliveryTone } from "./event-detail.js";
import { serverListFilter } from "./filters.js";
import { listView } from "./list.js";

/**
 * The last answer of a delivery: the receiver's HTTP status, else what went wrong, else a dash
 * (not tried yet).
 * @param {ListedDelivery} delivery
 */
function lastAnswer(delivery) {
  if (delivery.lastStatusCode !== null)
    return h("span", { class: "mono" }, `HTTP ${delivery.lastStatusCode}`);
  // In the reader's language, as on the event's page; the server's own text on hover.
  const text = attemptErrorText({ error: delivery.lastError, statusCode: null });
  return text ? h("span", { class: "break", title: delivery.lastError ?? undefined }, text) : t("none");
}

/**
 * The list, its endpoint filter offering the merchant's endpoints by address.
 * @param {Map<string, string>} endpoints address by id
 * @returns {ListDescription<ListedDelivery>}
 */
function deliveriesList(endpoints) {
  /** @type {Filter} */
  const endpointFilter = {
    name: "endpointId",
    label: "filterEndpoint",
    values: () => [...endpoints.keys()],
    describe: (id) => endpoints.get(id) ?? id,
  };
  return {
    key: "deliveries",
    title: "deliveriesTitle",
    path: "/deliveries",
    fetch: listDeliveries,
    filters: [
      serverListFilter("status", "deliveryStatus", "webhookDeliveryStatuses", "deliveryStatus"),
      serverListFilter("eventType", "filterType", "eventTypes", "event"),
      endpointFilter,
    ],
    sortFields: null,
    columns: [
      ["colCreated", (delivery) => formatTime(delivery.createdAt)],
      [
        "colEvent",
        (delivery) =>
          link(`#/events/${encodeURIComponent(delivery.eventId)}`, valueText("event", delivery.eventType)),
      ],
      ["colEndpoint", (delivery) => h("span", { class: "mono break" }, delivery.endpointUrl)],
      [
        "colStatus",
        (delivery) => badge(deliveryTone(delivery.status), valueText("deliveryStatus", delivery.status)),
      ],
      ["attemptCount", (delivery) => h("span", { class: "num" }, String(delivery.attemptCount))],
      ["colLastAnswer", lastAnswer],
      ["nextAttempt", (delivery) => formatTime(delivery.nextAttemptAt)],
    ],
  };
}

/** @param {URLSearchParams} params */
export async function deliveriesView(params) {
  const endpoints = await listWebhookEndpoints();
  const urls = new Map(endpoints.data.map((endpoint) => [endpoint.id, endpoint.url]));
  // An endpoint asked for by the URL that is no longer the merchant's (deleted since) is still
  // offered, so the form shows the filter that is on.
  const asked = params.get("endpointId");
  if (asked && !urls.has(asked)) urls.set(asked, t("deletedEndpoint", { id: asked }));
  const content = await listView(deliveriesList(urls), params);
  return [
    content[0] ?? null,
    h("p", { class: "muted" }, t("deliveriesIntro"), " ", t("deliveryTimesNote")),
    ...content.slice(1),
  ];
}
