// @ts-check
// The events list (#/events): filtered by type, newest or oldest first, no other sort.

/** @import { WebhookEvent } from "../types.js" */
/** @import { ListDescription } from "./list.js" */
import { listEvents } from "../api.js";
import { objectLink } from "../components.js";
import { h, link } from "../dom.js";
import { formatTime } from "../format.js";
import { valueText } from "../lang.js";
import { serverListFilter } from "./filters.js";
import { listView } from "./list.js";

/** @type {ListDescription<WebhookEvent>} */
export const EVENTS = {
  key: "events",
  title: "eventsTitle",
  path: "/events",
  fetch: listEvents,
  filters: [serverListFilter("type", "filterType", "eventTypes", "event")],
  sortFields: null,
  columns: [
    ["colCreated", (event) => formatTime(event.createdAt)],
    ["colEvent", (event) => link(`#/events/${encodeURIComponent(event.id)}`, valueText("event", event.type))],
    ["colType", (event) => h("code", null, event.type)],
    ["colObject", (event) => objectLink(event)],
  ],
};

/** @param {URLSearchParams} params */
export function eventsView(params) {
  return listView(EVENTS, params);
}
