/**
 * The hosted payment page in a real browser: headless Chromium (from npm, helpers/browser.ts)
 * driven by playwright-core, against the real app listening on a loopback port. It checks what
 * only a browser can: the QR image actually loads, the script runs under the page's
 * Content-Security-Policy, the countdown ticks, the sandbox button moves the payment to
 * succeeded and the page learns it by polling, and a cancel or an expiry elsewhere reaches the
 * page too. Screenshots go to apps/server/test-results/ for a human to look at.
 *
 * Chromium is required, never skipped (helpers/browser.ts): it comes from npm, and a browser
 * that cannot be started fails the run with the reason. CHROMIUM_PATH names another one.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { type Lang, MESSAGES } from "../../src/hosted/i18n.ts";
import { formatBangkokTime } from "../../src/hosted/page.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { launchChromium, MOBILE, RESULTS_DIR } from "../helpers/browser.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

// Globals of the page, for the functions that run in it: this project compiles without the DOM
// types, and declaring these two here keeps them out of every other file.
declare const document: any;
declare const window: any;

const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1024, height: 900 } };
const WAIT_MS = 20_000;

/**
 * Real time plus an offset the test can move. The page counts down in real time, so the
 * service it polls must agree with it; the harness's manual clock stands still.
 */
class RunningClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

let svc: TestService;
let browser: Browser;
const clock = new RunningClock();
let origin: string;
let counter = 0;

before(async () => {
  browser = await launchChromium("the hosted page tests");
  svc = await startService();
  svc.deps.clock = clock;
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  // The port is known only once listening; the routes read the config on every request, so
  // from here on paymentAppUrl points at this server.
  svc.deps.config.publicBaseUrl = origin;
});

after(async () => {
  await browser?.close();
  await svc?.close();
});

/** A signed API request over real HTTP, as a merchant's server would send it. */
async function api(method: string, path: string, body?: unknown): Promise<any> {
  return apiAs(svc.credentials, method, path, body);
}

/** `api` with another merchant's credentials. */
async function apiAs(credentials: Credentials, method: string, path: string, body?: unknown): Promise<any> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signRequest({ apiKey: credentials.apiKey, apiSecret: credentials.apiSecret, body: text }),
    ...(text === "" ? {} : { "content-type": "application/json" }),
  };
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(text === "" ? {} : { body: text }),
  });
  const json = (await response.json()) as any;
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function createPayment(overrides: Record<string, unknown> = {}): Promise<any> {
  counter += 1;
  return api("POST", "/api/v1/payments", {
    amount: "123450",
    referenceId: `browser-${counter}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(5_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  });
}

interface OpenedPage {
  page: Page;
  /** Console errors, uncaught exceptions and failed loads: a CSP violation shows up here. */
  errors: string[];
  statusRequests: () => number;
  /** Every request the page made: URL and headers. */
  requests: { url: string; headers: Record<string, string> }[];
  /** The HTML exactly as the server sent it. */
  html: string;
  close: () => Promise<void>;
}

async function open(url: string, options: BrowserContextOptions, expectedStatus = 200): Promise<OpenedPage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  let statusRequests = 0;
  const requests: OpenedPage["requests"] = [];
  page.on("console", (message) => {
    // A failed load is reported below with its URL; the console's copy of it has none.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      errors.push(message.text());
    }
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && response.url() !== url)
      errors.push(`${response.status()} ${response.url()}`);
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/status")) statusRequests += 1;
    requests.push({ url: request.url(), headers: request.headers() });
  });
  const response = await page.goto(url);
  assert.equal(response?.status(), expectedStatus);
  const html = (await response?.text()) ?? "";
  return { page, errors, statusRequests: () => statusRequests, requests, html, close: () => context.close() };
}

// The functions below run in the page. They are passed as functions, not as text: Playwright
// evaluates text with eval(), which the page's Content-Security-Policy rightly refuses.

/** Waits for the QR image to finish loading and returns its decoded width in pixels. */
async function qrNaturalWidth(page: Page): Promise<number> {
  await page.waitForFunction(() => {
    const image = document.querySelector(".qr img");
    return image?.complete && image.naturalWidth > 0;
  });
  return page.evaluate(() => document.querySelector(".qr img").naturalWidth);
}

/** The text of the first element matching `selector`, "" when there is none. */
async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent()) ?? "";
}

async function waitForStatusText(page: Page, wanted: string): Promise<void> {
  await page.waitForFunction(
    (expected) => document.getElementById("status-text").textContent === expected,
    wanted,
  );
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}${name}`, fullPage: true });

describe("hosted payment page in Chromium", () => {
  it("shows the QR and amount, and the sandbox button moves the payment to succeeded on screen", async () => {
    const payment = await createPayment();
    // The link is exactly PUBLIC_BASE_URL/pay/{id} (CONTRACT 6), and it is all the page needs.
    assert.equal(payment.nextAction.paymentAppUrl, `${origin}/pay/${payment.id}`);
    const opened = await open(payment.nextAction.paymentAppUrl, DESKTOP);
    const { page, errors, statusRequests, close } = opened;
    try {
      assert.ok(!opened.html.includes(payment.clientSecret), "the HTML does not carry the secret");
      assert.ok((await qrNaturalWidth(page)) > 0, "the QR image loaded");
      assert.match(await text(page, ".amount"), /฿\s*1,234\.50\s*THB/);
      assert.equal(await text(page, "h1"), "Test Shop");
      assert.equal(await text(page, "#status-text"), MESSAGES.en.statusOpen);

      // The countdown runs in the page: the shown time changes within a couple of seconds.
      const first = await text(page, "#countdown");
      assert.match(first, /^1[45]:[0-5][0-9]$/);
      await page.waitForFunction(
        (shown) => document.getElementById("countdown").textContent !== shown,
        first,
      );
      await screenshot(page, "hosted-page-before.png");

      await page.getByRole("button", { name: "Simulate customer payment" }).click();
      await waitForStatusText(page, MESSAGES.en.statusSucceeded);
      assert.ok(await page.locator(".result-succeeded").isVisible());
      assert.ok(await page.getByRole("heading", { name: "Payment successful" }).isVisible());
      assert.equal(await page.locator(".qr img").count(), 0, "the QR is gone");
      assert.equal(await page.locator("#simulate").isVisible(), false);
      assert.equal(await page.locator("#countdown").isVisible(), false);
      assert.ok(statusRequests() >= 1, "the page learned the outcome from the status route");
      await screenshot(page, "hosted-page-after.png");

      const record = await api("GET", `/api/v1/payments/${payment.id}`);
      assert.equal(record.status, "succeeded");
      // A link without the secret sends none.
      assert.ok(opened.requests.every((r) => r.headers["x-client-secret"] === undefined));
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("agrees its deadline with its countdown while the merchant's test clock runs ahead, and after a reset", async () => {
    const merchant = await svc.newMerchant({ name: "Clock Shop" });
    await apiAs(merchant, "POST", "/api/v1/sandbox/clock/advance", { seconds: 301 });
    counter += 1;
    const payment = await apiAs(merchant, "POST", "/api/v1/payments", {
      amount: "50000",
      referenceId: `browser-clock-${counter}`,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: String(5_100_000_000 + counter),
      customerBankCode: "014",
      expiresInMinutes: 10,
    });
    const expiresAt = new Date(payment.expiresAt);
    const realDeadline = new Date(expiresAt.getTime() - 301_000);
    const { page, errors, close } = await open(payment.nextAction.paymentAppUrl, DESKTOP);
    try {
      // Ten minutes are left by the merchant's clock, and "Pay before" is ten real minutes away.
      assert.match(await text(page, "#countdown"), /^(10:00|09:[0-5][0-9])$/);
      assert.equal(await page.locator("#pay-before").getAttribute("datetime"), realDeadline.toISOString());
      assert.equal(await text(page, "#pay-before"), formatBangkokTime(realDeadline, "en"));
      assert.ok(await page.locator("#test-clock").isVisible());
      assert.match(await text(page, "#test-clock"), /Sandbox test clock: 5 min 1 s ahead of real time\./);
      await screenshot(page, "hosted-page-test-clock-ahead.png");

      // The merchant resets its clock while the page is open: the payment keeps its expiresAt, so
      // five more real minutes are left, and the deadline moves with the countdown.
      await apiAs(merchant, "POST", "/api/v1/sandbox/clock/reset");
      await page.waitForFunction(
        (iso) => document.getElementById("pay-before").getAttribute("datetime") === iso,
        expiresAt.toISOString(),
      );
      assert.equal(await text(page, "#pay-before"), formatBangkokTime(expiresAt, "en"));
      assert.equal(await page.locator("#test-clock").isVisible(), false, "the old offset's note is gone");
      await page.waitForFunction(() =>
        /^1[45]:[0-5][0-9]$/.test(document.getElementById("countdown").textContent),
      );
      await screenshot(page, "hosted-page-test-clock-reset.png");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("keeps a client secret given in the fragment across the language switch", async () => {
    const payment = await createPayment();
    const { page, errors, close } = await open(
      `${payment.nextAction.paymentAppUrl}#cs=${payment.clientSecret}`,
      DESKTOP,
    );
    try {
      await page.getByRole("link", { name: MESSAGES.th.languageName }).click();
      await page.waitForFunction(() => document.documentElement.lang === "th");
      await page.getByRole("button", { name: MESSAGES.th.simulate }).click();
      await waitForStatusText(page, MESSAGES.th.statusSucceeded);
      assert.equal((await api("GET", `/api/v1/payments/${payment.id}`)).status, "succeeded");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("with the client secret in the fragment sends it in a header only, and a wrong one moves nothing", async () => {
    const payment = await createPayment();
    const right = await open(`${payment.nextAction.paymentAppUrl}#cs=${payment.clientSecret}`, DESKTOP);
    try {
      await right.page.getByRole("button", { name: "Simulate customer payment" }).click();
      await waitForStatusText(right.page, MESSAGES.en.statusSucceeded);
      // The secret left the browser in the X-Client-Secret header only, never in a URL.
      const withSecret = right.requests.filter((r) => r.headers["x-client-secret"] === payment.clientSecret);
      assert.ok(withSecret.some((r) => r.url.endsWith("/simulate")));
      assert.ok(withSecret.some((r) => r.url.endsWith("/status")));
      for (const request of right.requests)
        assert.ok(!request.url.includes(payment.clientSecret), request.url);
      assert.deepEqual(right.errors, []);
    } finally {
      await right.close();
    }

    const other = await createPayment();
    const { page, errors, close } = await open(
      `${other.nextAction.paymentAppUrl}#cs=${payment.clientSecret}`,
      DESKTOP,
    );
    try {
      assert.ok((await qrNaturalWidth(page)) > 0, "the customer still sees how to pay");
      await page.getByRole("button", { name: "Simulate customer payment" }).click();
      await page.locator("#simulate-error").waitFor({ state: "visible" });
      await screenshot(page, "hosted-page-wrong-secret.png");
      assert.equal((await api("GET", `/api/v1/payments/${other.id}`)).status, "requires_action");
      assert.equal(await page.locator(".receipt").isVisible(), false);
      // What failed: the status route and the simulate route, both refused with 401.
      assert.ok(errors.length > 0 && errors.every((e) => e.startsWith("401 ")), errors.join("\n"));
    } finally {
      await close();
    }
  });

  it("is usable on a phone in Thai, and follows a cancel made elsewhere by polling", async () => {
    const payment = await createPayment({ amount: "9900" });
    const { page, errors, close } = await open(payment.nextAction.paymentAppUrl, {
      ...MOBILE,
      locale: "th-TH",
    });
    try {
      assert.equal(await page.locator("html").getAttribute("lang"), "th");
      assert.ok((await qrNaturalWidth(page)) > 0);
      assert.equal(await text(page, "#status-text"), MESSAGES.th.statusOpen);
      assert.ok(await page.getByRole("button", { name: MESSAGES.th.simulate }).isVisible());
      // Mobile-first: nothing is wider than the phone's screen.
      const overflow: number = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
      // Thai is drawn in the font the service ships, not whatever the device happens to have.
      const thaiFontLoaded: boolean = await page.evaluate(async () => {
        await document.fonts.ready;
        return [...document.fonts].some(
          (face) => face.family.includes("Satang Sarabun") && face.status === "loaded",
        );
      });
      assert.ok(thaiFontLoaded, "the page's Thai web font loaded");
      await screenshot(page, "hosted-page-mobile-th.png");

      await api("POST", `/api/v1/payments/${payment.id}/cancel`);
      await waitForStatusText(page, MESSAGES.th.statusCanceled);
      assert.ok(await page.locator(".result-canceled").isVisible());
      assert.equal(await page.locator(".qr img").count(), 0);
      await screenshot(page, "hosted-page-mobile-th-canceled.png");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows bank transfer instructions with copy buttons on a phone", async () => {
    const payment = await createPayment({ paymentMethod: "bank_transfer", amount: "250000" });
    const { reference } = payment.nextAction.bankTransferInstructions;
    // Bank transfer has no paymentAppUrl: the merchant links the page as promptpay's would be.
    const link = `${origin}/pay/${payment.id}`;
    const { page, errors, close } = await open(link, { ...MOBILE, locale: "en-US" });
    try {
      const details = await text(page, ".transfer");
      for (const text of [
        "Siam Commercial Bank (014)",
        "1234567890",
        "Test Shop Co., Ltd.",
        "฿2,500.00",
        reference,
      ]) {
        assert.ok(details.includes(text), `${text} in ${details}`);
      }
      // 127.0.0.1 is a secure context, so the script offers to copy each value.
      assert.equal(await page.locator("button.copy").count(), 3);
      assert.ok(await page.getByRole("button", { name: "Copy: Reference" }).isVisible());
      assert.match(await text(page, "#countdown"), /^2[34]:[0-5][0-9]:[0-5][0-9]$/);
      await screenshot(page, "hosted-page-bank-transfer-mobile.png");
      // The smallest phones still in use are 320 px wide: the longest rows must wrap, not scroll.
      await page.setViewportSize({ width: 320, height: 640 });
      // Measured against the screen: a phone's browser widens innerWidth to fit a page too wide.
      const width: number = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 320, `the page is ${width}px wide on a 320 px screen`);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("fits the largest amounts on a 320 px phone without scrolling sideways", async () => {
    for (const body of [
      { paymentMethod: "bank_transfer", amount: "9999999999999.00" },
      { paymentMethod: "promptpay", amount: "999999999999.00" },
    ]) {
      const payment = await createPayment(body);
      const { page, errors, close } = await open(`${origin}/pay/${payment.id}`, {
        ...MOBILE,
        locale: "en-US",
      });
      try {
        await page.setViewportSize({ width: 320, height: 640 });
        // A phone's browser widens its layout to fit content too wide (innerWidth grows with it):
        // the page must be no wider than the screen, and the amount no wider than its box.
        const [pageWidth, amountWidth, amountBox] = await page.evaluate(() => {
          const amount = document.querySelector(".amount") as unknown as {
            scrollWidth: number;
            clientWidth: number;
          };
          return [document.documentElement.scrollWidth, amount.scrollWidth, amount.clientWidth];
        });
        assert.ok(
          pageWidth <= 320,
          `${body.paymentMethod}: the page is ${pageWidth}px wide on a 320 px screen`,
        );
        assert.ok(
          amountWidth <= amountBox,
          `${body.paymentMethod}: the amount is ${amountWidth}px in ${amountBox}px`,
        );
        assert.match(await text(page, ".amount"), /99,999,999,999\.99|9,999,999,999\.99/);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    }
  });

  it("turns to expired when the countdown runs out, and removes the QR", async () => {
    const payment = await createPayment({ expiresInMinutes: 5 });
    // Three seconds before expiry in the service's business time: the page counts from there.
    clock.offsetMs += 5 * 60_000 - 3_000;
    const { page, errors, close } = await open(payment.nextAction.paymentAppUrl, DESKTOP);
    try {
      assert.ok((await qrNaturalWidth(page)) > 0);
      assert.match(await text(page, "#countdown"), /^00:0[0-3]$/);
      await waitForStatusText(page, MESSAGES.en.statusExpired);
      assert.ok(await page.locator(".result-expired").isVisible());
      assert.equal(await page.locator(".qr img").count(), 0);
      await screenshot(page, "hosted-page-expired.png");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  // The receipt a customer screenshots, on a desktop and a phone, in English and in Thai: the
  // description and the reference while open, then after the sandbox payment the paid time
  // (learned from the status route), amount, reference, payment id and merchant.
  const receiptCases: Array<[string, BrowserContextOptions, Lang]> = [
    ["desktop", DESKTOP, "en"],
    ["desktop", { ...DESKTOP, locale: "th-TH" }, "th"],
    ["mobile", { ...MOBILE, locale: "en-US" }, "en"],
    ["mobile", { ...MOBILE, locale: "th-TH" }, "th"],
  ];
  for (const [device, options, lang] of receiptCases) {
    it(`shows the order while open and a receipt after payment (${device}, ${lang})`, async () => {
      const m = MESSAGES[lang];
      const description = lang === "th" ? "เสื้อยืด 2 ตัว ไซซ์ M" : "2 T-shirts, size M";
      const payment = await createPayment({ amount: "259000", description });
      const { page, errors, close } = await open(payment.nextAction.paymentAppUrl, options);
      try {
        assert.equal(await page.locator("html").getAttribute("lang"), lang);
        const order = await text(page, ".order");
        assert.ok(order.includes(description) && order.includes(payment.referenceId), order);
        assert.equal(await page.locator(".receipt").isVisible(), false, "no receipt before paying");

        await page.getByRole("button", { name: m.simulate }).click();
        await waitForStatusText(page, m.statusSucceeded);
        const receipt = page.locator(".receipt");
        await receipt.waitFor({ state: "visible" });
        const record = await api("GET", `/api/v1/payments/${payment.id}`);
        // The paid time came from the status route, written in Bangkok time in the page's
        // language exactly as the server writes it.
        const paidAt = await text(page, "#paid-at");
        assert.equal(paidAt, formatBangkokTime(new Date(record.capturedAt), lang));
        assert.equal(await page.locator("#paid-at").getAttribute("datetime"), record.capturedAt);
        const shown = (await receipt.textContent()) ?? "";
        for (const value of [
          m.receiptHeading,
          "Test Shop",
          "฿2,590.00 THB",
          paidAt,
          payment.referenceId,
          description,
          payment.id,
        ]) {
          assert.ok(shown.includes(value), `${value} in the receipt: ${shown}`);
        }
        const overflow: number = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
        await screenshot(page, `hosted-page-receipt-${device}-${lang}.png`);

        // Reloaded, the server renders the same receipt itself.
        await page.reload();
        assert.equal(await text(page, "#paid-at"), paidAt);
        assert.ok(await page.locator(".receipt").isVisible());
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    });
  }

  it("shows a description with markup as text, never as markup", async () => {
    const description = `<img src="/pay/assets/icon.svg" id="injected"><b>bold</b> & "quotes"`;
    const payment = await createPayment({ description });
    const { page, errors, close } = await open(payment.nextAction.paymentAppUrl, DESKTOP);
    try {
      assert.equal(await page.locator("#injected").count(), 0);
      assert.equal(await page.locator("main b").count(), 0);
      assert.equal(await text(page, ".order dd"), description);
      await page.getByRole("button", { name: "Simulate customer payment" }).click();
      await page.locator(".receipt").waitFor({ state: "visible" });
      assert.ok((await text(page, ".receipt")).includes(description));
      assert.equal(await page.locator("#injected").count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows a payment-not-found page for an unknown link", async () => {
    const missing = `${origin}/pay/00000000-0000-4000-8000-000000000000`;
    const { page, errors, close } = await open(missing, DESKTOP, 404);
    try {
      assert.equal(await text(page, "h1"), "Payment not found");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
