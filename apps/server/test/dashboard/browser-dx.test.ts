/**
 * Smaller things a merchant meets in the dashboard, in a real browser (Debian's Chromium through
 * playwright-core):
 * - in Thai (browser locale th-TH) the day fields of the filters and of the Exports page read
 *   and write dd/mm/yyyy with the Buddhist-era year, not the browser's mm/dd/yyyy;
 * - the Exports page downloads a CSV that starts with the byte-order mark Excel needs for Thai,
 *   named by the Bangkok days chosen;
 * - an event's page shows its payload (pretty JSON, as text), and its error column shows an
 *   error only for failed attempts;
 * - a webhook endpoint can be disabled (it then receives nothing) and enabled again.
 * Screenshots: test-results/dashboard-dx-*.png.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { launchChromium, RESULTS_DIR, refusedAnswer, viewShown } from "../helpers/browser.ts";
import { csvRecords } from "../helpers/csv.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createRefund, simulateRefundRequest, succeededPayment } from "../helpers/refunds.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

declare const document: any;
declare const window: any;

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const th: any = MESSAGES.th;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const DESKTOP_TH: BrowserContextOptions = { locale: "th-TH", viewport: { width: 1280, height: 900 } };
const WAIT_MS = 20_000;
/** Text a merchant put in its metadata that would run if the page inserted it as markup. */
const MARKUP = '<img src=x onerror="window.__ran=1"><script>window.__ran=2</script>';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let origin: string;
let shop: Credentials;
let login: { email: string; password: string };
let endpointId: string;
let payment: any;
/** What the receiver answers next: its status and body. */
let answer = { status: 200, body: "thanks-received" };

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      ...signRequest({ apiKey: shop.apiKey, apiSecret: shop.apiSecret, body: text }),
      ...(text === "" ? {} : { "content-type": "application/json" }),
    },
    ...(text === "" ? {} : { body: text }),
  });
  const json = (await response.json()) as any;
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

before(async () => {
  browser = await launchChromium("the dashboard browser tests");
  svc = await startService();
  receiver = await startReceiver();
  receiver.handle((_request, response) => {
    response.statusCode = answer.status;
    response.end(answer.body);
  });
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  svc.deps.config.publicBaseUrl = origin;
  shop = await svc.newMerchant();
  login = await createDashboardUser(svc, shop.merchantId, `dx-${process.pid}@shop.example`);
  const endpoint = await api("POST", "/api/v1/webhook-endpoints", { url: receiver.url, events: ["*"] });
  receiver.secrets.push(endpoint.secret);
  endpointId = endpoint.id;
  payment = await api("POST", "/api/v1/payments", {
    amount: "45000.00",
    referenceId: `dx-${process.pid}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "สมชาย ใจดี",
    customerBankAccountNumber: "5100004321",
    customerBankCode: "014",
    metadata: { note: MARKUP },
  });
  await api("POST", `/api/v1/payments/${payment.id}/cancel`);
  assert.equal(await deliverDueWebhooks(svc.deps), 1);
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

async function openLoggedIn(options: BrowserContextOptions, messages: any) {
  const context = await browser.newContext({ ...options, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      errors.push(message.text());
  });
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel(messages.email, { exact: true }).fill(login.email);
  await page.getByLabel(messages.password, { exact: true }).fill(login.password);
  await page.getByRole("button", { name: messages.signIn }).click();
  await page.getByRole("heading", { level: 1, name: messages.overviewTitle }).waitFor();
  return { page, errors, close: () => context.close() };
}

async function visit(page: Page, hash: string): Promise<void> {
  await page.goto(`${origin}/dashboard${hash}`);
  await viewShown(page, hash);
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-dx-${name}.png`, fullPage: true });

/** The Bangkok day of an instant, YYYY-MM-DD. */
const bangkokDay = (iso: string) => new Date(Date.parse(iso) + 7 * 3600_000).toISOString().slice(0, 10);
/** dd/mm/yyyy with the Buddhist-era year, as a Thai reader writes it. */
const thaiDay = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${Number(day.slice(0, 4)) + 543}`;

describe("days in Thai", () => {
  it("the list filters read and write dd/mm/yyyy with the Buddhist-era year", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP_TH, th);
    try {
      await visit(page, "#/payments");
      const from = page.getByLabel(th.filterFrom);
      assert.equal(await from.getAttribute("type"), "text", "not the browser's mm/dd/yyyy date input");
      assert.equal(await from.getAttribute("placeholder"), "วว/ดด/ปปปป");
      const day = bangkokDay(payment.createdAt);
      await from.fill(thaiDay(day));
      await page.getByLabel(th.filterTo).fill(thaiDay(day));
      await page.getByRole("button", { name: th.applyFilters }).click();
      await page.waitForFunction(() => document.querySelector("main").dataset.hash === window.location.hash);
      assert.ok(page.url().endsWith(`#/payments?from=${day}&to=${day}`), page.url());
      await page.getByRole("cell", { name: payment.referenceId }).waitFor();
      // The URL keeps ISO days; the field shows the Thai form again after the reload.
      assert.equal(await page.getByLabel(th.filterFrom).inputValue(), thaiDay(day));
      await screenshot(page, "filters-th");

      // A day that does not exist is refused in place; the list does not change.
      const before = page.url();
      await page.getByLabel(th.filterFrom).fill("31/02/2569");
      await page.getByRole("button", { name: th.applyFilters }).click();
      const message = await page.getByLabel(th.filterFrom).evaluate((input: any) => input.validationMessage);
      assert.equal(message, th.dayInvalid);
      assert.equal(page.url(), before);
      // A Christian-era year is understood too.
      await page.getByLabel(th.filterFrom).fill(`${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`);
      await page.getByRole("button", { name: th.applyFilters }).click();
      await page.waitForFunction(() => document.querySelector("main").dataset.hash === window.location.hash);
      assert.ok(page.url().includes(`from=${day}`), page.url());
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("the Exports page shows Thai days and downloads a CSV with the byte-order mark, named by those days", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP_TH, th);
    try {
      await visit(page, "#/exports");
      const from = page.getByLabel(th.exportFrom);
      assert.equal(await from.getAttribute("type"), "text");
      assert.match(await from.inputValue(), /^01\/\d\d\/25\d\d$/, "the first of this month, Buddhist era");
      assert.ok(await page.getByLabel(th.exportBom).isChecked(), "For Excel is ticked by default");
      const day = bangkokDay(payment.createdAt);
      await from.fill(thaiDay(day));
      await page.getByLabel(th.exportTo).fill(thaiDay(day));
      await screenshot(page, "exports-th");
      const downloading = page.waitForEvent("download");
      await page.getByRole("button", { name: th.exportDownload }).click();
      const download = await downloading;
      assert.equal(
        download.suggestedFilename(),
        `payments-${day}-${day}.csv`,
        "named by the Bangkok days chosen",
      );
      const bytes = readFileSync((await download.path()) as string);
      assert.deepEqual(
        [...bytes.subarray(0, 3)],
        [0xef, 0xbb, 0xbf],
        "starts with the UTF-8 byte-order mark",
      );
      const records = csvRecords(bytes.toString("utf8").slice(1));
      assert.deepEqual(
        records.map((r) => [r.payment_id, r.customer_name]),
        [[payment.id, "สมชาย ใจดี"]],
      );

      // Unticked, the file is plain UTF-8.
      await page.getByLabel(th.exportBom).uncheck();
      const plain = page.waitForEvent("download");
      await page.getByRole("button", { name: th.exportDownload }).click();
      const plainBytes = readFileSync((await (await plain).path()) as string);
      assert.notEqual(plainBytes[0], 0xef);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("an event's page", () => {
  it("shows the payload as text, and an error only beside failed attempts", async () => {
    answer = { status: 500, body: "boom-from-receiver" };
    const events = await api("GET", `/api/v1/events?type=payment.canceled`);
    const event = events.data.find((e: any) => e.data.object.id === payment.id);
    await api("POST", `/api/v1/events/${event.id}/redeliver`, { endpointId });
    assert.equal(await deliverDueWebhooks(svc.deps), 1);
    answer = { status: 200, body: "thanks-received" };

    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await visit(page, `#/events/${event.id}`);
      const payload = page.getByRole("region", { name: en.eventPayload }).locator("pre");
      const shown = JSON.parse((await payload.textContent()) ?? "");
      assert.deepEqual(shown, {
        id: event.id,
        type: event.type,
        createdAt: event.createdAt,
        data: event.data,
      });
      assert.ok(((await payload.textContent()) ?? "").includes('\n  "type": "payment.canceled"'), "pretty");
      assert.equal(shown.data.object.metadata.note, MARKUP, "the merchant's text is shown as it is");
      assert.equal(await payload.locator("img, script").count(), 0, "and never becomes markup");
      assert.equal(await page.evaluate(() => window.__ran), undefined);

      const deliveries = page.locator("ol.deliveries > li");
      assert.equal(await deliveries.count(), 2);
      const errorCell = (delivery: number) => deliveries.nth(delivery).locator("tbody tr td").nth(5);
      // The first delivery succeeded: its receiver's answer is no error.
      assert.equal(((await errorCell(0).textContent()) ?? "").trim(), en.none);
      assert.equal(await errorCell(0).locator("pre").count(), 0);
      assert.ok(!((await deliveries.nth(0).textContent()) ?? "").includes("thanks-received"));
      // The redelivery failed: the error and the receiver's answer are shown.
      const failed = (await errorCell(1).textContent()) ?? "";
      assert.ok(failed.includes(en["attemptErrorCode.non_2xx"]), failed);
      assert.ok(failed.includes("boom-from-receiver"), failed);
      await screenshot(page, "event-payload");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("the deliveries list", () => {
  it("lists every delivery, filters by status, refuses a reversed range, and offers a retry when the server is busy", async () => {
    // The event's page above left two deliveries: the first, delivered, and a redelivery the
    // receiver answered 500, to be tried again.
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await page.getByRole("link", { name: en.navDeliveries, exact: true }).click();
      await viewShown(page, "#/deliveries");
      const table = page.getByRole("table", { name: en.deliveriesTitle });
      assert.equal(await table.locator("tbody tr").count(), 2);
      assert.ok(((await table.textContent()) ?? "").includes(receiver.url));

      await page.getByLabel(en.deliveryStatus, { exact: true }).selectOption("pending");
      await page.getByRole("button", { name: en.applyFilters }).click();
      await viewShown(page, "#/deliveries?status=pending");
      assert.equal(await table.locator("tbody tr").count(), 1);
      const row = table.locator("tbody tr").first();
      assert.ok(((await row.textContent()) ?? "").includes("HTTP 500"));
      assert.ok(((await row.textContent()) ?? "").includes(en["deliveryStatus.pending"]));
      await screenshot(page, "deliveries");
      // The row opens its event, with every attempt.
      await row.getByRole("link", { name: en["event.payment.canceled"] }).click();
      await page.locator("ol.deliveries > li").first().waitFor();

      // A last day before the first is said in place; the list does not change.
      await visit(page, "#/deliveries");
      const before = page.url();
      await page.getByLabel(en.filterFrom).fill("2026-11-20");
      await page.getByLabel(en.filterTo).fill("2026-11-10");
      await page.getByRole("button", { name: en.applyFilters }).click();
      const message = await page.getByLabel(en.filterTo).evaluate((input: any) => input.validationMessage);
      assert.equal(message, en.dayRangeReversed);
      assert.equal(page.url(), before);

      // A busy server: its wait is told and the page can be asked again.
      await page.route("**/dashboard/api/webhook-deliveries*", (route) =>
        route.fulfill(refusedAnswer(503, { code: "SERVICE_UNAVAILABLE", message: "Busy", metadata: {} }, 7)),
      );
      await visit(page, "#/deliveries?status=succeeded");
      await page.getByText(en.serviceBusy.replace("{seconds}", "7")).waitFor();
      // The heading still names the page that failed (one h1 per view), not the dashboard.
      assert.equal(await page.locator("main h1").textContent(), en.deliveriesTitle);
      await page.unroute("**/dashboard/api/webhook-deliveries*");
      await page.getByRole("button", { name: en.tryAgain }).click();
      await page.getByRole("table", { name: en.deliveriesTitle }).waitFor();
      assert.equal(await table.locator("tbody tr").count(), 1);

      // A delivery that got no answer says what went wrong in the reader's words.
      const listed = await api("GET", "/api/v1/events?type=payment.canceled");
      await page.route("**/dashboard/api/webhook-deliveries*", (route) =>
        route.fulfill({
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            success: true,
            data: {
              data: [
                {
                  id: "00000000-0000-4000-8000-0000000000aa",
                  eventId: listed.data[0].id,
                  eventType: "payment.canceled",
                  endpointId,
                  endpointUrl: receiver.url,
                  status: "pending",
                  attemptCount: 1,
                  nextAttemptAt: new Date().toISOString(),
                  lastStatusCode: null,
                  lastError: "connect ECONNREFUSED 127.0.0.1:9",
                  createdAt: new Date().toISOString(),
                  completedAt: null,
                },
              ],
              total: 1,
              page: 1,
              limit: 10,
              totalPages: 1,
            },
          }),
        }),
      );
      await visit(page, "#/deliveries?status=pending");
      const refusedText = en["attemptError.connection"].replace(
        "{detail}",
        "connect ECONNREFUSED 127.0.0.1:9",
      );
      await table.getByText(refusedText).waitFor();
      await page.unroute("**/dashboard/api/webhook-deliveries*");

      // An endpoint no longer the merchant's, asked for by the URL, still shows as the filter on.
      const gone = "00000000-0000-4000-8000-00000000dead";
      await visit(page, `#/deliveries?endpointId=${gone}`);
      assert.equal(await page.getByLabel(en.filterEndpoint, { exact: true }).inputValue(), gone);
      assert.equal(await page.locator("p.empty").count(), 1);

      // A refused account load that is not a 401 keeps the session: Try again, not the login.
      await page.route("**/dashboard/api/me", (route) =>
        route.fulfill(refusedAnswer(403, { code: "FORBIDDEN", message: "No", metadata: {} })),
      );
      await page.reload();
      const tryAgain = page.getByRole("button", { name: en.tryAgain });
      await tryAgain.waitFor();
      assert.equal(await page.locator("main h1").textContent(), en.deliveriesTitle);
      assert.equal(await page.getByLabel(en.password, { exact: true }).count(), 0);
      await page.unroute("**/dashboard/api/me");
      await tryAgain.click();
      await viewShown(page, `#/deliveries?endpointId=${gone}`);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("a refund's events", () => {
  it("are about a refund, linked to the payment it returns money from, in the list and on the event's page", async () => {
    const paid = await succeededPayment(svc, shop);
    const refund = await createRefund(svc, shop, paid.id);
    assert.equal((await simulateRefundRequest(svc, shop, refund.id, "succeeded")).status, 200);
    const events = await api("GET", "/api/v1/events?type=refund.succeeded");
    const event = events.data.find((e: any) => e.data.object.id === refund.id);
    assert.ok(event, "the refund's event");
    const about = `${en.objectRefund} ${refund.referenceId}`;
    const href = `#/payments/${paid.id}`;

    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await visit(page, "#/events?type=refund.succeeded");
      const listed = page.getByRole("link", { name: about, exact: true });
      assert.equal(await listed.getAttribute("href"), href);
      await visit(page, `#/events/${event.id}`);
      const onPage = page.getByRole("link", { name: about, exact: true });
      assert.equal(await onPage.getAttribute("href"), href);
      await onPage.click();
      await page.getByRole("heading", { level: 1 }).filter({ hasText: paid.referenceId }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("the login form", () => {
  it("says the server's wait in the unit that fits it: seconds for an address's limit, minutes for an email's", async () => {
    const context = await browser.newContext(DESKTOP);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    try {
      let retryAfter = 14;
      await page.route("**/api/v1/auth/login", (route) =>
        route.fulfill(
          refusedAnswer(
            429,
            {
              code: "RATE_LIMIT_EXCEEDED",
              message: "Too many logins from this address; retry later",
              metadata: { limit: 20, remaining: 0, resetAt: new Date().toISOString(), retryAfter },
            },
            retryAfter,
          ),
        ),
      );
      await page.goto(`${origin}/dashboard`);
      const signIn = async () => {
        await page.getByLabel(en.email, { exact: true }).fill(login.email);
        await page.getByLabel(en.password, { exact: true }).fill("not the password");
        await page.getByRole("button", { name: en.signIn }).click();
      };
      await signIn();
      await page.getByText(en.loginLockedSeconds.replace("{seconds}", "14")).waitFor();
      retryAfter = 898;
      await signIn();
      await page.getByText(en.loginLocked.replace("{minutes}", "15")).waitFor();
    } finally {
      await context.close();
    }
  });
});

/** A succeeded payment of `amount` (satang), its page open in a signed-in browser. */
async function openRefundForm(amount: string) {
  const paid = await succeededPayment(svc, shop, amount);
  const opened = await openLoggedIn(DESKTOP, en);
  await visit(opened.page, `#/payments/${paid.id}`);
  return { paid, ...opened };
}

/** The text of the element that has the focus. */
const focusedText = (page: Page) => page.evaluate("document.activeElement?.textContent ?? ''");

describe("the refund form", () => {
  it("takes an amount written as the page writes amounts, with thousands separators and the baht sign", async () => {
    const { paid, page, errors, close } = await openRefundForm("500000.00");
    try {
      const amount = page.getByLabel(en.refundAmount, { exact: true });
      const refund = page.getByRole("button", { name: en.refundButton });
      // The outcome takes the focus, refusal or success (the button it left was disabled).
      await amount.fill("1,25");
      await refund.click();
      await page.getByText(en.refundAmountInvalid).waitFor();
      assert.equal(await focusedText(page), en.refundAmountInvalid);
      await amount.fill("9,999,999");
      await amount.press("Enter");
      await page.getByText(en.refundTooMuch.replace("{amount}", "฿5,000.00")).waitFor();
      assert.equal(await focusedText(page), en.refundTooMuch.replace("{amount}", "฿5,000.00"));
      await amount.fill("1,234.5");
      await refund.click();
      await page.getByText(en.refundCreated.replace("{amount}", "฿1,234.50")).waitFor();
      assert.equal(await focusedText(page), en.refundCreated.replace("{amount}", "฿1,234.50"));
      await page.getByLabel(en.refundAmount, { exact: true }).fill("฿1,000");
      await page.getByRole("button", { name: en.refundButton }).click();
      await page.getByText(en.refundCreated.replace("{amount}", "฿1,000.00")).waitFor();
      const refunds = await api("GET", `/api/v1/payments/${paid.id}/refunds`);
      assert.deepEqual(refunds.data.map((r: any) => r.amount).sort(), ["100000.00", "123450.00"]);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("asks for the same refund again after an answer that never came, so one refund is made, not two", async () => {
    const { paid, page, errors, close } = await openRefundForm("50000.00");
    try {
      // The first create reaches the server and is made; its answer is replaced by a 503.
      let lost = false;
      await page.route(`**/dashboard/api/payments/${paid.id}/refunds`, async (route) => {
        if (route.request().method() !== "POST" || lost) return route.fallback();
        lost = true;
        await route.fetch();
        await route.fulfill(
          refusedAnswer(503, { code: "SERVICE_UNAVAILABLE", message: "Busy", metadata: {} }, 2),
        );
      });
      await page.getByLabel(en.refundAmount, { exact: true }).fill("5");
      await page.getByRole("button", { name: en.refundButton }).click();
      await page.getByText(en.serviceBusy.replace("{seconds}", "2")).waitFor();
      await page.getByRole("button", { name: en.refundButton }).click();
      await page.getByText(en.refundCreated.replace("{amount}", "฿5.00")).waitFor();
      const refunds = await api("GET", `/api/v1/payments/${paid.id}/refunds`);
      assert.deepEqual(
        refunds.data.map((r: any) => r.amount),
        ["500.00"],
        "the retry returned the refund made first",
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("says a refund was made when only the list's reload failed, and leaves no form to make it twice", async () => {
    const { paid, page, close } = await openRefundForm("50000.00");
    try {
      let created = false;
      await page.route(`**/dashboard/api/payments/${paid.id}/refunds*`, async (route) => {
        if (route.request().method() === "POST") {
          created = true;
          return route.fallback();
        }
        if (!created) return route.fallback();
        await route.fulfill(
          refusedAnswer(503, { code: "SERVICE_UNAVAILABLE", message: "Busy", metadata: {} }, 2),
        );
      });
      await page.getByLabel(en.refundAmount, { exact: true }).fill("5");
      await page.getByRole("button", { name: en.refundButton }).click();
      const shown = `${en.refundCreated.replace("{amount}", "฿5.00")} ${en.refundListNotReloaded}`;
      await page.getByText(shown).waitFor();
      assert.equal(await focusedText(page), shown);
      assert.equal(await page.getByRole("button", { name: en.refundButton }).count(), 0);
      const refunds = await api("GET", `/api/v1/payments/${paid.id}/refunds`);
      assert.deepEqual(
        refunds.data.map((r: any) => r.amount),
        ["500.00"],
      );
    } finally {
      await close();
    }
  });
});

describe("webhook endpoints", () => {
  it("disables an endpoint, which then receives nothing, and enables it again", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await visit(page, "#/webhooks");
      const row = page.locator("tbody tr").filter({ hasText: receiver.url });
      assert.equal(((await row.locator("td").nth(2).textContent()) ?? "").trim(), en.endpointActive);
      await page.getByRole("button", { name: `${en.disableEndpoint}: ${receiver.url}` }).click();
      await page.getByRole("button", { name: en.confirmDisable }).click();
      await page.getByText(en.endpointDisabled.replace("{url}", receiver.url)).waitFor();
      assert.equal(((await row.locator("td").nth(2).textContent()) ?? "").trim(), en.endpointDisabledBadge);
      await screenshot(page, "webhook-disabled");
      assert.equal((await api("GET", `/api/v1/webhook-endpoints/${endpointId}`)).disabled, true);

      const received = receiver.received.length;
      const another = await api("POST", "/api/v1/payments", {
        amount: "1000.00",
        referenceId: `dx-${process.pid}-2`,
        paymentMethod: "promptpay",
        customerBankAccountName: "Malee Srisuk",
        customerBankAccountNumber: "2345678901",
        customerBankCode: "004",
      });
      await api("POST", `/api/v1/payments/${another.id}/cancel`);
      assert.equal(await deliverDueWebhooks(svc.deps), 0, "nothing is sent to a disabled endpoint");
      assert.equal(receiver.received.length, received);

      await page.getByRole("button", { name: `${en.enableEndpoint}: ${receiver.url}` }).click();
      await page.getByText(en.endpointEnabled.replace("{url}", receiver.url)).waitFor();
      assert.equal(((await row.locator("td").nth(2).textContent()) ?? "").trim(), en.endpointActive);
      assert.equal((await api("GET", `/api/v1/webhook-endpoints/${endpointId}`)).disabled, false);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
