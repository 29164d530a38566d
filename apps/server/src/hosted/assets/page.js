// @ts-check
/**
 * The hosted payment page's only script (served from /pay/assets/page.js, so that the page's
 * Content-Security-Policy can forbid every inline script). It carries no text of its own: the
 * server renders every state's panel and message in the customer's language, and this script
 * switches between them, ticks the countdown, polls the status route, and (in sandbox) sends the
 * "simulate customer payment" request.
 *
 * The link `paymentAppUrl` (`/pay/{id}`) is all the page needs. A link that carries the payment's
 * client secret in its fragment (`/pay/{id}#cs=...`, which the browser keeps to itself) has it
 * sent in the `X-Client-Secret` header of those requests, where the server checks it; the secret
 * is never in the HTML.
 */

/** How often the status is asked for while the customer may be paying. */
const POLL_INTERVAL_MS = 2500;
/** The slowest polling gets: after failures, and while an expired payment waits for a late confirmation. */
const POLL_INTERVAL_MAX_MS = 30000;
/** The countdown turns red for the last minute. */
const URGENT_MS = 60000;
const COPIED_LABEL_MS = 2000;
/** How far the countdown may drift from the server's clock before it is corrected. */
const SKEW_TOLERANCE_MS = 1000;

/** States after which nothing can change any more, so polling stops. */
const SETTLED = ["succeeded", "canceled", "failed"];

/**
 * The answer of GET /pay/{id}/status (docs/hosted-page.md), as far as the page reads it.
 * @typedef {object} HostedStatus
 * @property {string} state what the page shows: open, processing, succeeded, expired, canceled, failed
 * @property {string | null} expiresAt
 * @property {string | null} [payBefore]
 * @property {string | null} paidAt when the payment succeeded: the receipt's paid time
 * @property {string} now the merchant's business time
 */

/**
 * The page's elements and what the script knows of the payment. Everything the server wrote
 * into the page (URLs, the first state) is in `data`; the client secret is in `clientSecret`.
 * @typedef {object} PageState
 * @property {HTMLElement} root
 * @property {DOMStringMap} data
 * @property {string} clientSecret from the URL fragment; "" when the link came without it (none sent)
 * @property {HTMLElement} statusBox
 * @property {HTMLElement} statusText
 * @property {HTMLElement | null} countdown absent once the payment is final
 * @property {HTMLElement} connection the "trying to reconnect" line
 * @property {string} state
 * @property {number} expiresAt milliseconds of business time; NaN without an expiry
 * @property {number} skew business time minus performance.now()
 * @property {ReturnType<typeof setTimeout> | undefined} pollTimer
 * @property {ReturnType<typeof setTimeout> | undefined} tickTimer
 * @property {number} pollDelay
 * @property {boolean} polling
 * @property {boolean} stopped
 */

/**
 * The same format as formatRemaining() on the server, which renders the first value.
 * @param {number} ms
 */
function formatRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  /** @param {number} n */
  const two = (n) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}

/** @param {string} word */
const capitalized = (word) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * An element the server always renders.
 * @param {string} id
 */
function required(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

/** @param {string | undefined} iso */
const timeOf = (iso) => (iso ? Date.parse(iso) : Number.NaN);

/**
 * Milliseconds left until expiry in the server's business time.
 * @param {PageState} page
 */
function remaining(page) {
  return page.expiresAt - (performance.now() + page.skew);
}

/**
 * Shows a state: the status line, the panel of that state, and no QR once it must not be paid.
 * @param {PageState} page
 * @param {string} next
 */
function show(page, next) {
  if (next === page.state) return;
  page.state = next;
  page.data.state = next;
  page.statusBox.className = `status status-${next}`;
  page.statusText.textContent = page.statusBox.dataset[`msg${capitalized(next)}`] ?? "";
  for (const element of page.root.querySelectorAll("[data-when]")) {
    if (element instanceof HTMLElement) element.hidden = element.dataset.when !== next;
  }
  // Once the customer must no longer pay, the QR goes away for good, not just out of sight.
  if (next !== "open") {
    for (const image of page.root.querySelectorAll(".qr img")) image.remove();
  }
}

/** @param {PageState} page */
function stop(page) {
  page.stopped = true;
  clearTimeout(page.pollTimer);
  clearTimeout(page.tickTimer);
}

/**
 * @param {PageState} page
 * @param {number} ms
 */
function schedulePoll(page, ms) {
  if (page.stopped) return;
  clearTimeout(page.pollTimer);
  page.pollTimer = setTimeout(() => poll(page), ms);
}

/**
 * Shows the time left, and turns the page to expired when it runs out.
 * @param {PageState} page
 */
function tick(page) {
  clearTimeout(page.tickTimer);
  const { countdown } = page;
  if (!countdown || Number.isNaN(page.expiresAt) || page.state !== "open") return;
  const left = remaining(page);
  countdown.textContent = formatRemaining(left);
  countdown.parentElement?.classList.toggle("urgent", left <= URGENT_MS);
  if (left <= 0) {
    // Time is up here even if the expiry worker has not marked the payment yet.
    show(page, "expired");
    schedulePoll(page, 0);
    return;
  }
  // Wake when the shown second changes rather than on a fixed beat, so it never skips one.
  page.tickTimer = setTimeout(() => tick(page), left % 1000 || 1000);
}

/**
 * Writes the receipt's paid time, in Thai time and the page's language: the server hands the
 * locale and the format options in the element's data, so the text reads as it would had the
 * server rendered it. textContent only: nothing from the network becomes markup.
 * @param {string} iso
 */
function showPaidAt(iso) {
  const row = document.getElementById("paid-at-row");
  if (row && writeTime(document.getElementById("paid-at"), iso)) row.hidden = false;
}

/**
 * Writes an instant into a time element in the locale and format its data names.
 * @param {HTMLElement | null} time
 * @param {string} iso
 * @returns {boolean} whether it was written
 */
function writeTime(time, iso) {
  const at = Date.parse(iso);
  if (!time || Number.isNaN(at)) return false;
  try {
    const options = JSON.parse(time.dataset.format ?? "{}");
    time.textContent = new Intl.DateTimeFormat(time.dataset.locale, options).format(at);
  } catch {
    // A browser without the time zone or locale still shows the instant, in its own words.
    time.textContent = new Date(at).toLocaleString();
  }
  time.setAttribute("datetime", new Date(at).toISOString());
  return true;
}

/**
 * Keeps "Pay before" with the countdown: when the merchant moves or resets its sandbox test
 * clock while the page is open, the countdown re-anchors to the server's time and the real
 * deadline moves with it. The sandbox note naming the clock's old offset is then out of date,
 * so it goes (a reload words the new one).
 * @param {string | null | undefined} iso
 */
function showPayBefore(iso) {
  const time = document.getElementById("pay-before");
  if (!iso || !time || time.getAttribute("datetime") === iso) return;
  writeTime(time, iso);
  const note = document.getElementById("test-clock");
  if (note) note.hidden = true;
}

/**
 * Takes in an answer of the status route.
 * @param {PageState} page
 * @param {HostedStatus} status
 */
function apply(page, status) {
  page.expiresAt = timeOf(status.expiresAt ?? undefined);
  // Re-anchor only when the countdown is off by more than a second, so that the time a
  // response spends on the network does not make the shown seconds jump back and forth.
  const serverSkew = Date.parse(status.now) - performance.now();
  if (Math.abs(serverSkew - page.skew) > SKEW_TOLERANCE_MS) page.skew = serverSkew;
  let next = status.state;
  if (next === "open" && !Number.isNaN(page.expiresAt) && remaining(page) <= 0) next = "expired";
  // A page never goes back to inviting payment: once it has said "expired" (its own
  // countdown ran out) it waits for the server to say what happened instead.
  if (next === "open" && page.state !== "open") return;
  showPayBefore(status.payBefore);
  if (next === "succeeded" && status.paidAt) showPaidAt(status.paidAt);
  show(page, next);
  if (SETTLED.includes(next)) stop(page);
  else if (next === "expired") page.pollDelay = POLL_INTERVAL_MAX_MS;
  tick(page);
}

/**
 * The headers of the page's requests: the client secret only when the link carried one.
 * @param {PageState} page
 * @returns {Record<string, string>}
 */
function requestHeaders(page) {
  const headers = { Accept: "application/json" };
  return page.clientSecret === "" ? headers : { ...headers, "X-Client-Secret": page.clientSecret };
}

/**
 * Asks the status route once, then schedules the next time; backs off after failures.
 * @param {PageState} page
 */
async function poll(page) {
  if (page.stopped || page.polling) return;
  // A hidden tab does not poll; the visibilitychange listener resumes it.
  if (document.hidden) return;
  page.polling = true;
  try {
    const response = await fetch(page.data.statusUrl ?? "", {
      headers: requestHeaders(page),
      cache: "no-store",
      credentials: "omit",
    });
    // An unknown payment or a refused secret will not change by asking again.
    if (response.status === 401 || response.status === 404) {
      stop(page);
      return;
    }
    if (!response.ok) throw new Error(`status route answered ${response.status}`);
    const body = await response.json();
    page.connection.hidden = true;
    page.pollDelay = POLL_INTERVAL_MS;
    apply(page, body.data);
  } catch {
    page.connection.hidden = false;
    page.pollDelay = Math.min(page.pollDelay * 2, POLL_INTERVAL_MAX_MS);
  } finally {
    page.polling = false;
    schedulePoll(page, page.pollDelay);
  }
}

/**
 * The sandbox button: the customer "pays", and the page learns the outcome the way it learns
 * a real payment's, from the status route.
 * @param {PageState} page
 */
function wireSimulateButton(page) {
  const simulate = document.getElementById("simulate");
  const failure = document.getElementById("simulate-error");
  const url = page.data.simulateUrl;
  if (!(simulate instanceof HTMLButtonElement) || !failure || !url) return;
  const idleLabel = simulate.textContent;
  simulate.addEventListener("click", async () => {
    simulate.disabled = true;
    simulate.setAttribute("aria-busy", "true");
    simulate.textContent = simulate.dataset.busyLabel ?? idleLabel;
    failure.hidden = true;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: requestHeaders(page),
        cache: "no-store",
        credentials: "omit",
      });
      if (!response.ok) throw new Error(`simulate route answered ${response.status}`);
    } catch {
      failure.hidden = false;
      simulate.disabled = false;
      simulate.textContent = idleLabel;
    } finally {
      simulate.removeAttribute("aria-busy");
      schedulePoll(page, 0);
    }
  });
}

/**
 * The Copy buttons of the transfer details, shown only where a clipboard can be written to;
 * without one the values stay selectable by hand.
 * @param {HTMLElement} root
 */
function wireCopyButtons(root) {
  if (!navigator.clipboard || !window.isSecureContext) return;
  for (const button of root.querySelectorAll("button.copy")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const idleLabel = button.textContent;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy ?? "");
        button.textContent = button.dataset.copiedLabel ?? idleLabel;
        setTimeout(() => {
          button.textContent = idleLabel;
        }, COPIED_LABEL_MS);
      } catch {
        // A refused clipboard leaves the value where it is, selectable by hand.
      }
    });
  }
}

/**
 * The client secret from the URL fragment (`#cs=<secret>`, other fragment parameters ignored).
 * @param {string} hash location.hash
 */
function secretFromHash(hash) {
  return new URLSearchParams(hash.replace(/^#/, "")).get("cs") ?? "";
}

/**
 * The language links reload the page with `?lang=..`: they keep the fragment, so the page in
 * the other language still has the secret.
 * @param {string} hash
 */
function keepHashOnLanguageLinks(hash) {
  if (!hash) return;
  for (const link of document.querySelectorAll(".lang a")) {
    if (link instanceof HTMLAnchorElement) link.hash = hash;
  }
}

/**
 * What the page starts from: the state the server rendered, anchored to the server's clock.
 * @param {HTMLElement} root
 * @returns {PageState}
 */
function pageState(root) {
  const data = root.dataset;
  return {
    root,
    data,
    clientSecret: secretFromHash(location.hash),
    statusBox: required("status"),
    statusText: required("status-text"),
    countdown: document.getElementById("countdown"),
    connection: required("connection"),
    state: data.state ?? "open",
    expiresAt: timeOf(data.expiresAt),
    // The server's business time is local monotonic time plus this skew. A merchant's sandbox
    // test clock can be days away from the customer's clock, and a phone's clock can simply be
    // wrong, so the countdown is anchored to the server's `now`, never to Date.now().
    skew: timeOf(data.now) - performance.now(),
    pollTimer: undefined,
    tickTimer: undefined,
    pollDelay: POLL_INTERVAL_MS,
    polling: false,
    stopped: false,
  };
}

/** @param {HTMLElement} root */
function start(root) {
  const page = pageState(root);
  keepHashOnLanguageLinks(location.hash);
  wireSimulateButton(page);
  wireCopyButtons(root);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) schedulePoll(page, 0);
  });
  if (SETTLED.includes(page.state)) return;
  if (page.state === "expired") page.pollDelay = POLL_INTERVAL_MAX_MS;
  tick(page);
  schedulePoll(page, page.pollDelay);
}

const root = document.getElementById("payment");
if (root) start(root);
