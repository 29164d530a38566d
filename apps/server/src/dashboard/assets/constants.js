// @ts-check
// The server's lists (statuses, methods, destinations, event types, sort fields, page sizes,
// banks), loaded once per page from GET /dashboard/api/constants before the first view is
// drawn, so the dashboard offers exactly what the API accepts and keeps no copy of its own.

/** @import { Constants } from "./types.js" */
import { getConstants } from "./api.js";

/** @type {Constants | null} */
let loaded = null;
/** @type {Promise<Constants> | null} */
let loading = null;

/**
 * Loads the lists unless they are loaded already; a failed load is tried again next time.
 * @returns {Promise<Constants>}
 */
export function loadConstants() {
  if (loaded) return Promise.resolve(loaded);
  loading ??= getConstants().then(
    (answer) => {
      loaded = answer;
      return answer;
    },
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/**
 * The lists; views run only after loadConstants() has succeeded.
 * @returns {Constants}
 */
export function constants() {
  if (!loaded) throw new Error("The server's lists are read before they were loaded");
  return loaded;
}
