/**
 * The merchant dashboard in a real browser: headless Chromium (Debian's `chromium`) driven by
 * playwright-core, against the real app listening on a loopback port. A merchant's server
 * creates payments and a webhook endpoint through the signed API; a person then logs in, finds
 * a payment, filters the list, opens its detail and event timeline, redelivers the event to a
 * local receiver, and creates and revokes an API key. Also: a wrong password, Thai on a phone,
 * the folded header and filters of a phone, the keyboard, and logging out. Screenshots go to
 * apps/server/test-results/dashboard-*.png.
 *
 * Chromium is required, never skipped (helpers/browser.ts).
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { launchChromium, MOBILE, RESULTS_DIR, viewShown } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

// Globals of the page, for the functions that run in it: this project compiles without the DOM
// types, and declaring these here keeps them out of every other file.
declare const document: any;
declare const window: any;
declare const sessionStorage: any;

// i18n.js is a browser module, outside the server's type check: it is loaded as a plain module
// and typed loosely. A key missing from it fails the test when Playwright gets undefined, and
// assets.test.ts checks the tables themselves.
const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const th: any = MESSAGES.th;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let origin: string;
let shop: Credentials;
let login: { email: string; password: string };
let endpointSecret: string;
const payments: any[] = [];
const withdraws: any[] = [];
let counter = 0;

/** A signed API request over real HTTP, as a merchant's server sends it. */
async function api(
  method: string,
  path: string,
  body?: unknown,
  credentials: Credentials = shop,
): Promise<any> {
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
  const payment = await api("POST", "/api/v1/payments", {
    amount: `${counter * 12345}.00`,
    referenceId: `order-${1000 + counter}`,
    paymentMethod: counter % 2 === 0 ? "bank_transfer" : "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(5_100_000_000 + counter),
    customerBankCode: "014",
    description: `Order ${1000 + counter}`,
    ...overrides,
  });
  payments.push(payment);
  svc.clock.advance(90_000);
  return payment;
}

before(async () => {
  browser = await launchChromium("the dashboard browser tests");
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  svc.deps.config.publicBaseUrl = origin;
  shop = svc.credentials;
  receiver = await startReceiver();
  const endpoint = await api("POST", "/api/v1/webhook-endpoints", {
    url: receiver.url,
    events: ["*"],
    description: "Order system",
  });
  endpointSecret = endpoint.secret;
  receiver.secrets.push(endpointSecret);
  login = await createDashboardUser(svc, shop.merchantId, `owner-${process.pid}@shop.example`);
  for (let i = 0; i < 4; i++) await createPayment();
  // The lifecycle records payment.canceled, which the delivery worker sends to the receiver.
  await api("POST", `/api/v1/payments/${payments[1].id}/cancel`);
  await deliverDueWebhooks(svc.deps);
  assert.equal(receiver.received.length, 1);
  // Money in the wallet (฿50,000.00), and two withdraws: one pending, one canceled.
  await fundWallet(svc.deps, shop.merchantId, 5_000_000n);
  for (const [amount, name] of [
    ["250000.00", "Somsri Rakdee"],
    ["120000.00", "Anan Charoen"],
  ] as const) {
    withdraws.push(
      await api("POST", "/api/v1/withdraws", {
        amount,
        referenceId: `payout-${withdraws.length + 1}`,
        destinationType: "bank_account",
        customerBankAccountName: name,
        customerBankAccountNumber: `123-456-78${withdraws.length}0`,
        customerBankCode: "004",
      }),
    );
    svc.clock.advance(90_000);
  }
  await api("POST", `/api/v1/withdraws/${withdraws[1].id}/cancel`);
  await deliverDueWebhooks(svc.deps);
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

interface Opened {
  page: Page;
  /** Console errors, uncaught exceptions and failed requests: a CSP violation shows up here. */
  errors: string[];
  close(): Promise<void>;
}

async function open(options: BrowserContextOptions = DESKTOP, allowed: RegExp[] = []): Promise<Opened> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      errors.push(message.text());
    }
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("response", (response) => {
    const line = `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
    if (response.status() >= 400 && !allowed.some((pattern) => pattern.test(line))) errors.push(line);
  });
  page.on("requestfailed", (request) => {
    // A reload or a navigation cancels what the page was still fetching (a font it had just
    // asked for): Chromium reports that as net::ERR_ABORTED, which is the test's doing, not a
    // fault. Every other failure counts; a CSP block also shows as a console error.
    const reason = request.failure()?.errorText ?? "";
    if (reason !== "net::ERR_ABORTED") errors.push(`failed ${request.url()} ${reason}`);
  });
  const response = await page.goto(`${origin}/dashboard`);
  assert.equal(response?.status(), 200);
  return { page, errors, close: () => context.close() };
}

async function signIn(page: Page, messages = en, password = login.password): Promise<void> {
  await page.getByLabel(messages.email, { exact: true }).fill(login.email);
  await page.getByLabel(messages.password, { exact: true }).fill(password);
  await page.getByRole("button", { name: messages.signIn }).click();
}

async function openLoggedIn(options: BrowserContextOptions = DESKTOP): Promise<Opened> {
  const opened = await open(options);
  await signIn(opened.page);
  await opened.page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
  return opened;
}

/** Submits the list filters and waits until the list for the new URL is on screen. */
async function applyFilters(page: Page, messages = en): Promise<void> {
  await page.getByRole("button", { name: messages.applyFilters }).click();
  await page.waitForFunction(() => document.querySelector("main").dataset.hash === window.location.hash);
}

/** Goes to a dashboard URL fragment and waits until its view is on screen. */
async function visit(page: Page, hash: string): Promise<void> {
  await page.goto(`${origin}/dashboard${hash}`);
  await viewShown(page, hash);
}

/** Follows a link and waits until the view of its URL is on screen. */
async function follow(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name, exact: true }).first().click();
  await page.waitForFunction(() => document.querySelector("main").dataset.hash === window.location.hash);
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-${name}.png`, fullPage: true });

/** Texts of the first column of the visible table's body rows, by header name. */
async function column(page: Page, header: string): Promise<string[]> {
  return page.evaluate((name) => {
    const table = document.querySelector("main table");
    if (!table) return [];
    const heads = [...table.querySelectorAll("thead th")].map((th: any) => th.textContent);
    const index = heads.indexOf(name);
    return [...table.querySelectorAll("tbody tr")].map((tr: any) => tr.children[index].textContent);
  }, header);
}

/** Basic accessibility facts every view must keep: one h1, landmarks, labelled controls. */
async function checkAccessibility(page: Page): Promise<void> {
  const facts = await page.evaluate(() => ({
    h1: document.querySelectorAll("h1").length,
    main: document.querySelectorAll("main").length,
    lang: document.documentElement.lang,
    unlabelled: [...document.querySelectorAll("input, select, textarea")]
      .filter((control: any) => control.labels.length === 0 && !control.getAttribute("aria-label"))
      .map((control: any) => control.outerHTML),
    nameless: [...document.querySelectorAll("button, a[href]")]
      .filter((control: any) => (control.getAttribute("aria-label") || control.textContent).trim() === "")
      .map((control: any) => control.outerHTML),
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  }));
  assert.equal(facts.h1, 1, "one h1");
  assert.equal(facts.main, 1, "one main landmark");
  assert.match(facts.lang, /^(en|th)$/);
  assert.deepEqual(facts.unlabelled, [], "every form control has a label");
  assert.deepEqual(facts.nameless, [], "every button and link has a name");
  assert.ok(facts.overflow <= 0, `the page is ${facts.overflow}px wider than the window`);
}

/**
 * On a 390x844 phone, a list's first result row is on the first screen: the header and the
 * filters are folded, and nothing has been scrolled. Saves what that screen shows.
 */
async function checkFirstScreen(page: Page, messages: any, lang: string): Promise<void> {
  await visit(page, "#/payments");
  await page.locator("main tbody tr").first().waitFor();
  const screen = await page.evaluate(() => {
    const row = document.querySelector("main tbody tr").getBoundingClientRect();
    return {
      size: [window.innerWidth, window.innerHeight],
      scrollY: window.scrollY,
      header: document.querySelector("header.top").getBoundingClientRect().height,
      rowTop: row.top,
      rowBottom: row.bottom,
    };
  });
  assert.deepEqual(screen.size, [390, 844]);
  assert.equal(screen.scrollY, 0);
  assert.ok(screen.header <= 80, `the header is ${screen.header}px tall`);
  assert.ok(
    screen.rowTop >= 0 && screen.rowBottom <= 844,
    `the first row spans ${screen.rowTop}-${screen.rowBottom}px of an 844px screen`,
  );
  assert.equal(await page.getByRole("search", { name: messages.filters }).isVisible(), false);
  await page.screenshot({ path: `${RESULTS_DIR}dashboard-mobile-${lang}-first-screen.png` });
}

describe("dashboard in Chromium", () => {
  it("shows an error for a wrong password, and keeps the user on the login form", async () => {
    const { page, errors, close } = await open(DESKTOP, [/^401 POST \/api\/v1\/auth\/login$/]);
    try {
      assert.equal(await page.locator("h1").textContent(), en.loginTitle);
      // The email field has the focus on arrival.
      assert.equal(await page.evaluate(() => document.activeElement.id), "login-email");
      await signIn(page, en, "not the password");
      const alert = page.getByRole("alert");
      await alert.getByText(en.loginFailed).waitFor();
      assert.equal(await page.getByLabel(en.password, { exact: true }).getAttribute("aria-invalid"), "true");
      assert.equal(await page.getByLabel(en.password, { exact: true }).inputValue(), "");
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      await checkAccessibility(page);
      await screenshot(page, "login-error");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("logs in and shows the balance and a payment created through the API on the overview", async () => {
    const fresh = await createPayment({ amount: "123450.00", referenceId: "order-fresh-from-api" });
    const { page, errors, close } = await openLoggedIn();
    try {
      assert.ok(await page.getByText("Test Shop", { exact: true }).isVisible());
      // ฿50,000.00 funded, ฿2,500.00 held by the pending withdraw.
      assert.equal(await page.getByTestId("wallet-balance").textContent(), "฿47,500.00");
      const recent = page.getByRole("region", { name: en.recentPayments });
      await recent.getByRole("link", { name: fresh.referenceId }).waitFor();
      assert.ok(await recent.getByText("฿1,234.50").isVisible());
      assert.ok(await page.getByRole("link", { name: en.navOverview }).getAttribute("aria-current"));
      const stored = await page.evaluate(() =>
        JSON.parse(sessionStorage.getItem("satang.dashboard.session")),
      );
      assert.match(stored.token, /^[A-Za-z0-9_-]{43}$/);
      await checkAccessibility(page);
      await screenshot(page, "overview");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("lists payments, filters them by status and method, pages through them, and opens a detail", async () => {
    const { page, errors, close } = await openLoggedIn();
    try {
      await page
        .getByRole("navigation", { name: en.mainNav })
        .getByRole("link", { name: en.navPayments })
        .click();
      await page.getByRole("heading", { level: 1, name: en.paymentsTitle }).waitFor();
      // A wide screen shows the whole header and the filters: nothing is folded.
      assert.equal(await page.getByRole("button", { name: en.menu }).isVisible(), false);
      assert.equal(
        await page.getByRole("button", { name: en.filtersToggle, exact: true }).isVisible(),
        false,
      );
      assert.ok(await page.getByRole("button", { name: en.logout }).isVisible());
      assert.ok(await page.getByRole("search", { name: en.filters }).isVisible());
      const all = await api("GET", "/api/v1/payments?limit=100");
      await page.getByText(`${all.total} result(s) · page 1 of 1`).waitFor();
      assert.deepEqual(
        await column(page, en.colReference),
        all.data.map((p: any) => p.referenceId),
      );

      // Filter: canceled only.
      await page.getByLabel(en.filterStatus).selectOption("canceled");
      await applyFilters(page);
      await page.getByText("1 result(s) · page 1 of 1").waitFor();
      assert.deepEqual(await column(page, en.colReference), [payments[1].referenceId]);
      assert.deepEqual(await column(page, en.colStatus), [en["paymentStatus.canceled"]]);
      assert.match(page.url(), /#\/payments\?status=canceled$/);
      // The results summary takes the focus, so a screen reader reads the outcome.
      assert.equal(await page.evaluate(() => document.activeElement.classList.contains("summary")), true);
      await checkAccessibility(page);
      await screenshot(page, "payments-filtered");

      // Another filter and sort, then two per page: the same records the API gives, page by page.
      await follow(page, en.resetFilters);
      await page.getByLabel(en.filterMethod).selectOption("promptpay");
      await page.getByLabel(en.filterSortBy).selectOption("amount");
      await page.getByLabel(en.filterSortOrder).selectOption("asc");
      await page.getByLabel(en.filterPageSize).selectOption("10");
      await applyFilters(page);
      const promptpay = await api(
        "GET",
        "/api/v1/payments?paymentMethod=promptpay&sortBy=amount&sortOrder=asc",
      );
      await page.getByText(`${promptpay.total} result(s) · page 1 of 1`).waitFor();
      assert.deepEqual(
        await column(page, en.colReference),
        promptpay.data.map((p: any) => p.referenceId),
      );

      await visit(page, `#/payments?limit=2`);
      const firstPage = await api("GET", "/api/v1/payments?limit=2");
      await page.getByText(`${firstPage.total} result(s) · page 1 of ${firstPage.totalPages}`).waitFor();
      await page.getByRole("link", { name: en.nextPage }).click();
      await page.getByText(`${firstPage.total} result(s) · page 2 of ${firstPage.totalPages}`).waitFor();
      const secondPage = await api("GET", "/api/v1/payments?limit=2&page=2");
      assert.deepEqual(
        await column(page, en.colReference),
        secondPage.data.map((p: any) => p.referenceId),
      );
      // A page past the last says so, and leads to the last one.
      await visit(page, `#/payments?limit=2&page=${firstPage.totalPages + 7}`);
      await page
        .getByText(
          `${firstPage.total} result(s) · page ${firstPage.totalPages + 7} is past the last page, ${firstPage.totalPages}.`,
        )
        .waitFor();
      // The pager shows no "9 / 1", and its Previous leads to the last page.
      const pager = page.getByRole("navigation", { name: en.pagination });
      assert.doesNotMatch((await pager.textContent()) ?? "", /\d+ \/ \d+/);
      assert.match(
        String(await pager.getByRole("link", { name: en.previousPage }).getAttribute("href")),
        new RegExp(`page=${firstPage.totalPages}(&|$)`),
      );
      await page.getByRole("link", { name: en.goToLastPage }).click();
      await page
        .getByText(`${firstPage.total} result(s) · page ${firstPage.totalPages} of ${firstPage.totalPages}`)
        .waitFor();
      // An empty list's last page is 1: past it, the same.
      await visit(page, "#/payments?from=2001-01-01&to=2001-01-02&page=9");
      await page.getByText("0 result(s) · page 9 is past the last page, 1.").waitFor();
      await page.getByRole("link", { name: en.goToLastPage }).click();
      await page.getByText("0 result(s) · page 1 of 1").waitFor();

      // Dates are Bangkok calendar days, the "to" day included.
      const bangkokDay = (iso: string) =>
        new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().slice(0, 10);
      const days = all.data.map((p: any) => bangkokDay(p.createdAt)).sort();
      await visit(page, `#/payments`);
      await page.getByText(`${all.total} result(s) · page 1 of 1`).waitFor();
      await page.getByLabel(en.filterFrom).fill(days[0]);
      await page.getByLabel(en.filterTo).fill(days[days.length - 1]);
      await applyFilters(page);
      await page.getByText(`${all.total} result(s) · page 1 of 1`).waitFor();
      assert.match(page.url(), new RegExp(`from=${days[0]}&to=${days[days.length - 1]}`));
      const dayBefore = new Date(Date.parse(days[0]) - 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel(en.filterFrom).fill(dayBefore);
      await page.getByLabel(en.filterTo).fill(dayBefore);
      await applyFilters(page);
      await page.getByText(en.noResults).waitFor();

      // Open the canceled payment: its details and the event timeline.
      await visit(page, `#/payments?status=canceled`);
      await page.getByRole("link", { name: payments[1].referenceId }).click();
      await page.getByRole("heading", { level: 1, name: `Payment ${payments[1].referenceId}` }).waitFor();
      const timeline = page.locator("ol.timeline > li");
      assert.equal(await timeline.count(), 2);
      assert.match(String(await timeline.nth(0).textContent()), new RegExp(en.timelineCreated));
      assert.match(String(await timeline.nth(1).textContent()), /Payment canceled\s+payment\.canceled/);
      assert.ok(await page.getByText(payments[1].id, { exact: true }).isVisible());
      assert.equal(await page.locator(".fields .badge").textContent(), en["paymentStatus.canceled"]);
      // "Back" returns to the filtered list.
      assert.equal(
        await page.getByRole("link", { name: en.backToPayments }).getAttribute("href"),
        "#/payments?status=canceled",
      );
      await checkAccessibility(page);
      await screenshot(page, "payment-detail");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows an event's deliveries and redelivers it to the endpoint", async () => {
    const { page, errors, close } = await openLoggedIn();
    try {
      await visit(page, `#/payments/${payments[1].id}`);
      await page.locator("ol.timeline").getByRole("link", { name: "Payment canceled" }).click();
      await page.getByRole("heading", { level: 1, name: "Event Payment canceled" }).waitFor();
      const deliveries = page.locator("ol.deliveries > li");
      assert.equal(await deliveries.count(), 1);
      assert.match(
        String(await deliveries.nth(0).textContent()),
        new RegExp(`To ${receiver.url.replace(/[.]/g, "\\.")}`),
      );
      assert.match(String(await deliveries.nth(0).textContent()), /Delivered/);
      assert.ok(await deliveries.nth(0).getByRole("cell", { name: "200", exact: true }).isVisible());

      const before = receiver.received.length;
      await page.getByRole("button", { name: en.redeliver }).click();
      await page.getByText("Redelivery scheduled to 1 endpoint(s).").waitFor();
      assert.equal(await deliveries.count(), 2);
      assert.match(String(await deliveries.nth(1).textContent()), /Pending/);
      await screenshot(page, "event-redelivery-scheduled");

      // The delivery worker sends it: the receiver verifies the same event again.
      await deliverDueWebhooks(svc.deps);
      assert.equal(receiver.received.length, before + 1);
      const redelivered = receiver.received[before]!;
      assert.equal(redelivered.verifyError, undefined);
      assert.equal(redelivered.payload?.type, "payment.canceled");
      assert.equal(redelivered.headers["webhook-id"], receiver.received[0]!.headers["webhook-id"]);

      await page.getByRole("button", { name: en.refresh }).click();
      await deliveries.nth(1).getByText("Delivered").waitFor();
      await checkAccessibility(page);
      await screenshot(page, "event-redelivered");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("creates an API key showing its secret once, and revokes it", async () => {
    const { page, errors, close } = await openLoggedIn();
    try {
      await page.getByRole("link", { name: en.navApiKeys }).click();
      await page.getByRole("heading", { level: 1, name: en.apiKeysTitle }).waitFor();
      await page.getByLabel(en.keyName).fill("Checkout server");
      await page.getByRole("button", { name: en.createKey }).click();
      await page.getByRole("heading", { name: en.newKeyTitle }).waitFor();
      const apiKey = String(await page.getByTestId("new-api-key").textContent());
      const apiSecret = String(await page.getByTestId("new-api-secret").textContent());
      assert.match(apiKey, /^sk_test_/);
      assert.match(apiSecret, /^sec_/);
      assert.ok(await page.getByText(en.newKeyWarning).isVisible());
      await checkAccessibility(page);
      await screenshot(page, "api-key-created");

      // The new key signs API requests at once.
      const credentials = { ...shop, apiKey, apiSecret };
      assert.equal((await api("GET", "/api/v1/balance", undefined, credentials)).currency, "THB");

      // Once dismissed, the secret is gone from the page for good.
      await page.getByRole("button", { name: en.done }).click();
      await page.getByRole("heading", { name: en.newKeyTitle }).waitFor({ state: "detached" });
      assert.equal(await page.getByText(apiSecret).count(), 0);
      assert.equal((await page.content()).includes(apiSecret), false);

      // Require v2: the key refuses v1 signatures from its next request; then allow v1 again.
      const v1 = () =>
        fetch(`${origin}/api/v1/balance`, {
          headers: signRequest({
            apiKey,
            apiSecret,
            body: "",
            method: "GET",
            path: "/api/v1/balance",
            version: "v1",
          }),
        });
      const keyRow = () => page.getByRole("row").filter({ hasText: "Checkout server" });
      assert.equal((await v1()).status, 200);
      await keyRow()
        .getByRole("button", { name: `${en.requireV2}: Checkout server` })
        .click();
      await page.getByText(en.v2Required.replace("{name}", "Checkout server")).waitFor();
      assert.match(String(await keyRow().textContent()), new RegExp(en.keyV2Required));
      assert.equal((await v1()).status, 401);
      await keyRow()
        .getByRole("button", { name: `${en.allowV1}: Checkout server` })
        .click();
      await page.getByText(en.v1Allowed.replace("{name}", "Checkout server")).waitFor();
      assert.equal((await v1()).status, 200);

      // Revoke asks once more in place; Cancel keeps the key.
      const row = page.getByRole("row").filter({ hasText: "Checkout server" });
      await row.getByRole("button", { name: `${en.revoke}: Checkout server` }).click();
      assert.ok(await row.getByText(/Revoke the key “Checkout server”\?/).isVisible());
      await row.getByRole("button", { name: en.cancel }).click();
      await row.getByRole("button", { name: `${en.revoke}: Checkout server` }).click();
      await row.getByRole("button", { name: en.confirmRevoke }).click();
      await page.getByText("The key “Checkout server” was revoked.").waitFor();
      assert.match(
        String(await page.getByRole("row").filter({ hasText: "Checkout server" }).textContent()),
        /Revoked/,
      );
      await screenshot(page, "api-key-revoked");

      const refused = await fetch(`${origin}/api/v1/balance`, {
        headers: signRequest({ apiKey, apiSecret, body: "" }),
      });
      assert.equal(refused.status, 401);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("lists webhook endpoints, withdraws and events", async () => {
    const { page, errors, close } = await openLoggedIn();
    try {
      await page.getByRole("link", { name: en.navWebhooks }).click();
      await page.getByRole("cell", { name: receiver.url, exact: true }).waitFor();
      assert.ok(await page.getByRole("cell", { name: "Order system" }).isVisible());
      await screenshot(page, "webhook-endpoints");

      await page.getByRole("link", { name: en.navEvents }).click();
      await page.getByRole("heading", { level: 1, name: en.eventsTitle }).waitFor();
      await page.getByLabel(en.filterType).selectOption("payment.canceled");
      await applyFilters(page);
      await page.getByText("1 result(s) · page 1 of 1").waitFor();
      await page.getByLabel(en.filterType).selectOption("withdraw.paid");
      await applyFilters(page);
      await page.getByText(en.noResults).waitFor();
      await screenshot(page, "events-empty-filter");

      await page.getByRole("link", { name: en.navWithdraws }).click();
      await page.getByRole("heading", { level: 1, name: en.withdrawsTitle }).waitFor();
      await page.getByText("2 result(s) · page 1 of 1").waitFor();
      assert.deepEqual(await column(page, en.colReference), ["payout-2", "payout-1"]);
      await page.getByLabel(en.filterStatus).selectOption("pending");
      await applyFilters(page);
      await page.getByText("1 result(s) · page 1 of 1").waitFor();
      assert.deepEqual(await column(page, en.colReference), ["payout-1"]);
      await screenshot(page, "withdraws-filtered");
      await visit(page, `#/withdraws`);
      await page.getByRole("link", { name: "payout-2" }).click();
      await page.getByRole("heading", { level: 1, name: "Withdraw payout-2" }).waitFor();
      assert.match(
        String(await page.locator("ol.timeline").textContent()),
        /Withdraw canceled\s+withdraw\.canceled/,
      );
      assert.ok(await page.getByText("******7810").isVisible(), "the account number is masked");
      assert.ok(await page.getByText("Kasikornbank (004)").isVisible(), "the bank by its name");
      await screenshot(page, "withdraw-detail");
      await checkAccessibility(page);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("works in Thai on a phone, with the header and filters folded so the first results show, and switches to English", async () => {
    const { page, errors, close } = await open({ ...MOBILE, locale: "th-TH" });
    try {
      assert.equal(await page.locator("html").getAttribute("lang"), "th");
      assert.equal(await page.locator("h1").textContent(), th.loginTitle);
      await checkAccessibility(page);
      await screenshot(page, "mobile-th-login");
      await signIn(page, th);
      await page.getByRole("heading", { level: 1, name: th.overviewTitle }).waitFor();
      assert.ok(await page.getByText(th.walletBalance).isVisible());
      // The account controls and the navigation are behind the menu button.
      const menu = page.getByRole("button", { name: th.menu });
      assert.equal(await page.getByRole("button", { name: th.logout }).isVisible(), false);
      assert.equal(await menu.getAttribute("aria-expanded"), "false");
      await menu.click();
      assert.equal(await menu.getAttribute("aria-expanded"), "true");
      assert.ok(await page.getByRole("button", { name: th.logout }).isVisible());
      await checkAccessibility(page);
      await screenshot(page, "mobile-th-overview");
      await checkFirstScreen(page, th, "th");
      await visit(page, "#/");
      await menu.click();

      await page
        .getByRole("navigation", { name: th.mainNav })
        .getByRole("link", { name: th.navPayments })
        .click();
      await page.getByRole("heading", { level: 1, name: th.paymentsTitle }).waitFor();
      // A new page folds the menu again; the filters are folded too, and unfold on request.
      assert.equal(await menu.getAttribute("aria-expanded"), "false");
      await page.getByRole("button", { name: th.filtersToggle, exact: true }).click();
      await page.getByLabel(th.filterStatus).selectOption("canceled");
      await applyFilters(page, th);
      await page.getByText(/^1 รายการ/).waitFor();
      assert.deepEqual(await column(page, th.colStatus), [th["paymentStatus.canceled"]]);
      // The folded filters say how many are on.
      const toggle = page.getByRole("button", { name: th.filtersToggleActive.replace("{count}", "1") });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      await checkAccessibility(page);
      await screenshot(page, "mobile-th-payments");

      // The switch keeps the page, the open menu and the focus on itself, and the choice
      // survives a reload.
      await menu.click();
      await page.getByRole("button", { name: th.switchLanguageLabel }).click();
      await page.getByRole("heading", { level: 1, name: en.paymentsTitle }).waitFor();
      assert.equal(await page.locator("html").getAttribute("lang"), "en");
      assert.equal(await page.evaluate(() => document.activeElement.classList.contains("lang")), true);
      assert.equal(await page.getByRole("button", { name: en.menu }).getAttribute("aria-expanded"), "true");
      assert.deepEqual(await column(page, en.colStatus), [en["paymentStatus.canceled"]]);
      // Escape folds the menu and gives the focus back to its button.
      await page.keyboard.press("Escape");
      assert.equal(await page.getByRole("button", { name: en.menu }).getAttribute("aria-expanded"), "false");
      assert.equal(await page.evaluate(() => document.activeElement.textContent), en.menu);
      await page.reload();
      await page.getByRole("heading", { level: 1, name: en.paymentsTitle }).waitFor();
      await checkFirstScreen(page, en, "en");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("can be used with the keyboard alone", async () => {
    const { page, errors, close } = await open();
    try {
      // The email field has the focus; type, Tab to the password, Enter submits.
      await page.keyboard.type(login.email);
      await page.keyboard.press("Tab");
      await page.keyboard.type(login.password);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      // After logging in the page heading has the focus.
      assert.equal(await page.evaluate(() => document.activeElement.tagName), "H1");
      // On a freshly loaded page (the session survives a reload), Tab reaches the skip link first.
      await page.reload();
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement.textContent), en.skipToContent);
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate(() => document.activeElement.id), "main");
      // Focus is visible: the focused link draws an outline.
      await page.getByRole("link", { name: en.navPayments, exact: true }).focus();
      const outline = await page.evaluate(() => window.getComputedStyle(document.activeElement).outlineStyle);
      assert.notEqual(outline, "none");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { level: 1, name: en.paymentsTitle }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement.tagName), "H1");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("logs out: the session ends on the server and in the tab", async () => {
    const { page, errors, close } = await openLoggedIn();
    try {
      const token = await page.evaluate(
        () => JSON.parse(sessionStorage.getItem("satang.dashboard.session")).token,
      );
      await page.getByRole("button", { name: en.logout }).click();
      await page.getByText(en.loggedOut).waitFor();
      assert.equal(await page.locator("h1").textContent(), en.loginTitle);
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      const refused = await fetch(`${origin}/dashboard/api/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(refused.status, 401);
      await page.reload();
      assert.equal(await page.locator("h1").textContent(), en.loginTitle);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
