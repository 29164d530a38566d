/**
 * The hosted payment page's only script (served from /pay/assets/page.js, so that the page's
 * Content-Security-Policy can forbid every inline script). It carries no text of its own: the
 * server renders every state's panel and message in the customer's language, and this script
 * switches between them, ticks the countdown, polls the status route with the payment's client
 * secret, and (in sandbox) sends the "simulate customer payment" request.
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

/** The same format as formatRemaining() on the server, which renders the first value. */
function formatRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}

const capitalized = (word) => word.charAt(0).toUpperCase() + word.slice(1);

function start(root) {
  const data = root.dataset;
  const statusBox = document.getElementById("status");
  const statusText = document.getElementById("status-text");
  const countdown = document.getElementById("countdown");
  const connection = document.getElementById("connection");

  let state = data.state;
  let expiresAt = data.expiresAt ? Date.parse(data.expiresAt) : Number.NaN;
  // The server's business time is local monotonic time plus this skew. A merchant's sandbox
  // test clock can be days away from the customer's clock, and a phone's clock can simply be
  // wrong, so the countdown is anchored to the server's `now`, never to Date.now().
  let skew = Date.parse(data.now) - performance.now();
  let pollTimer;
  let tickTimer;
  let pollDelay = POLL_INTERVAL_MS;
  let polling = false;
  let stopped = false;

  const remaining = () => expiresAt - (performance.now() + skew);

  function show(next) {
    if (next === state) return;
    state = next;
    data.state = next;
    statusBox.className = `status status-${next}`;
    statusText.textContent = statusBox.dataset[`msg${capitalized(next)}`] ?? "";
    for (const element of root.querySelectorAll("[data-when]")) {
      element.hidden = element.dataset.when !== next;
    }
    // Once the customer must no longer pay, the QR goes away for good, not just out of sight.
    if (next !== "open") {
      for (const image of root.querySelectorAll(".qr img")) image.remove();
    }
  }

  function stop() {
    stopped = true;
    clearTimeout(pollTimer);
    clearTimeout(tickTimer);
  }

  function schedulePoll(ms) {
    if (stopped) return;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, ms);
  }

  function tick() {
    clearTimeout(tickTimer);
    if (!countdown || Number.isNaN(expiresAt) || state !== "open") return;
    const left = remaining();
    countdown.textContent = formatRemaining(left);
    countdown.parentElement.classList.toggle("urgent", left <= URGENT_MS);
    if (left <= 0) {
      // Time is up here even if the expiry worker has not marked the payment yet.
      show("expired");
      schedulePoll(0);
      return;
    }
    // Wake when the shown second changes rather than on a fixed beat, so it never skips one.
    tickTimer = setTimeout(tick, left % 1000 || 1000);
  }

  function apply(status) {
    expiresAt = status.expiresAt ? Date.parse(status.expiresAt) : Number.NaN;
    // Re-anchor only when the countdown is off by more than a second, so that the time a
    // response spends on the network does not make the shown seconds jump back and forth.
    const serverSkew = Date.parse(status.now) - performance.now();
    if (Math.abs(serverSkew - skew) > SKEW_TOLERANCE_MS) skew = serverSkew;
    let next = status.state;
    if (next === "open" && !Number.isNaN(expiresAt) && remaining() <= 0) next = "expired";
    // A page never goes back to inviting payment: once it has said "expired" (its own
    // countdown ran out) it waits for the server to say what happened instead.
    if (next === "open" && state !== "open") return;
    show(next);
    if (SETTLED.includes(next)) stop();
    else if (next === "expired") pollDelay = POLL_INTERVAL_MAX_MS;
    tick();
  }

  async function poll() {
    if (stopped || polling) return;
    // A hidden tab does not poll; the visibilitychange listener resumes it.
    if (document.hidden) return;
    polling = true;
    try {
      const response = await fetch(data.statusUrl, {
        headers: { Accept: "application/json", "X-Client-Secret": data.clientSecret },
        cache: "no-store",
        credentials: "omit",
      });
      // An unknown payment or a refused secret will not change by asking again.
      if (response.status === 401 || response.status === 404) {
        stop();
        return;
      }
      if (!response.ok) throw new Error(`status route answered ${response.status}`);
      const body = await response.json();
      connection.hidden = true;
      pollDelay = POLL_INTERVAL_MS;
      apply(body.data);
    } catch {
      connection.hidden = false;
      pollDelay = Math.min(pollDelay * 2, POLL_INTERVAL_MAX_MS);
    } finally {
      polling = false;
      schedulePoll(pollDelay);
    }
  }

  const simulate = document.getElementById("simulate");
  if (simulate && data.simulateUrl) {
    const idleLabel = simulate.textContent;
    const failure = document.getElementById("simulate-error");
    simulate.addEventListener("click", async () => {
      simulate.disabled = true;
      simulate.setAttribute("aria-busy", "true");
      simulate.textContent = simulate.dataset.busyLabel;
      failure.hidden = true;
      try {
        const response = await fetch(data.simulateUrl, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ clientSecret: data.clientSecret }),
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
        // The page learns the outcome the way it learns a real payment's: from the status route.
        schedulePoll(0);
      }
    });
  }

  if (navigator.clipboard && window.isSecureContext) {
    for (const button of root.querySelectorAll("button.copy")) {
      const idleLabel = button.textContent;
      button.hidden = false;
      button.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(button.dataset.copy);
          button.textContent = button.dataset.copiedLabel;
          setTimeout(() => {
            button.textContent = idleLabel;
          }, COPIED_LABEL_MS);
        } catch {
          // A refused clipboard leaves the value where it is, selectable by hand.
        }
      });
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) schedulePoll(0);
  });

  if (SETTLED.includes(state)) return;
  if (state === "expired") pollDelay = POLL_INTERVAL_MAX_MS;
  tick();
  schedulePoll(pollDelay);
}

const root = document.getElementById("payment");
if (root) start(root);
