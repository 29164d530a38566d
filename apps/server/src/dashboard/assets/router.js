// @ts-check
// Routes live in the URL fragment (#/payments?status=canceled&page=2), so filters and pages
// survive a reload, the back button works, and the server serves one shell for every view.

/**
 * What the next drawing of the page should do beyond showing the route's view.
 * @typedef {object} RefreshOptions
 * @property {string} [flash] a message shown once at the top of the view
 * @property {string} [focus] a selector to focus instead of the usual target
 * @property {boolean} [redraw] draw the header again too (its language changed)
 */

/** @type {(options?: RefreshOptions) => Promise<void>} */
let renderer = async () => {};
/** The last list URL of each section, so "back" returns to the same filters and page. */
/** @type {Map<string, string>} */
const lastLists = new Map();

/**
 * Who draws the page when the route changes or a view asks for it.
 * @param {(options?: RefreshOptions) => Promise<void>} render
 */
export function setRenderer(render) {
  renderer = render;
}

/**
 * Draws the current route again (after an action changed what it shows).
 * @param {RefreshOptions} [options]
 */
export function refresh(options) {
  return renderer(options);
}

/** The route of the URL fragment: "#/payments?status=canceled" is "/payments" and its parameters. */
export function currentRoute() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path = "", query = ""] = raw.split("?");
  return { path: path || "/", params: new URLSearchParams(query) };
}

/**
 * The section of a path: "/payments/123" is "/payments".
 * @param {string} path
 */
export function section(path) {
  return `/${path.split("/")[1] || ""}`;
}

/**
 * Goes to a URL fragment; the same one again draws the view again.
 * @param {string} hash
 */
export function navigate(hash) {
  if (location.hash === hash) refresh();
  else location.hash = hash;
}

/**
 * Remembers the list URL of a section as it is now.
 * @param {string} key
 * @param {string} hash
 */
export function rememberList(key, hash) {
  lastLists.set(key, hash);
}

/**
 * The list URL last seen of a section, or its plain list.
 * @param {string} key
 * @param {string} fallback
 * @returns {string}
 */
export function lastListHref(key, fallback) {
  return lastLists.get(key) ?? fallback;
}
