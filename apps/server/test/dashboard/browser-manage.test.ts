/**
 * Webhook endpoints and the overview in a real browser (Debian's Chromium through
 * playwright-core): on a desktop in English an endpoint is added (the secret shown once),
 * tested, its secret rotated and it is deleted; on a 390x844 phone in Thai a failing test event
 * is explained in Thai. The overview draws the volume per day as SVG, and the header's search
 * opens a record by reference or id. Screenshots: test-results/dashboard-webhooks-*.png and
 * dashboard-overview-*.png.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium, MOBILE, RESULTS_DIR } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { createPayment, createWithdraw } from "../helpers/lifecycle.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const th: any = MESSAGES.th;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const PHONE_TH: BrowserContextOptions = { ...MOBILE, locale: "th-TH" };
const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let origin: string;
let shop: Credentials;
let login: { email: string; password: string };

before(async () => {
  browser = await launchChromium("the dashboard browser tests");
  svc = await startService();
  receiver = await startReceiver();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as { port: number }).port}`;
  shop = svc.credentials;
  login = await createDashboardUser(svc, shop.merchantId, `webhooks-${process.pid}@shop.example`);
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

async function openWebhooks(options: BrowserContextOptions, messages: any) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel(messages.email, { exact: true }).fill(login.email);
  await page.getByLabel(messages.password, { exact: true }).fill(login.password);
  await page.getByRole("button", { name: messages.signIn }).click();
  await page.getByRole("heading", { level: 1, name: messages.overviewTitle }).waitFor();
  await page.goto(`${origin}/dashboard#/webhooks`);
  await page.getByRole("heading", { level: 1, name: messages.webhooksTitle }).waitFor();
  return { page, errors, close: () => context.close() };
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-webhooks-${name}.png`, fullPage: true });

const fill = (text: string, vars: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name]));

describe("webhook endpoints in the dashboard", () => {
  it("adds, tests, rotates and deletes an endpoint (desktop, English)", async () => {
    const { page, errors, close } = await openWebhooks(DESKTOP, en);
    try {
      // A refused URL is told as the form's field with the server's reason, not as a filter.
      await page.getByLabel(en.endpointUrl, { exact: true }).fill("javascript:alert(1)");
      await page.getByRole("button", { name: en.createEndpoint }).click();
      await page
        .getByText(
          fill(en.invalidFormField, { field: "url", detail: "url must be an absolute http or https URL" }),
        )
        .waitFor();
      await page.getByLabel(en.endpointUrl, { exact: true }).fill(receiver.url);
      await page.getByLabel(en.endpointDescription).fill("Order system");
      await page.getByRole("button", { name: en.createEndpoint }).click();
      await page.getByRole("heading", { name: en.newEndpointTitle }).waitFor();
      const secret = (await page.getByTestId("new-endpoint-secret").textContent()) ?? "";
      assert.match(secret, /^whsec_/);
      receiver.secrets.push(secret);
      await screenshot(page, "created-en");
      await page.getByRole("button", { name: en.done }).click();
      await page.getByRole("heading", { name: en.newEndpointTitle }).waitFor({ state: "detached" });
      assert.equal((await page.content()).includes(secret), false, "the secret is gone once stored");

      await page.getByRole("button", { name: `${en.sendTest}: ${receiver.url}` }).click();
      await page.getByText(/^Test event delivered: HTTP 200 in \d+ ms\.$/).waitFor();
      assert.equal(receiver.received.at(-1)?.payload?.type, "ping");
      assert.equal(receiver.received.at(-1)?.verifyError, undefined);
      receiver.respondWith(500);
      await page.getByRole("button", { name: `${en.sendTest}: ${receiver.url}` }).click();
      await page
        .getByText(fill(en.testFailed, { error: fill(en["attemptError.status"], { status: 500 }) }))
        .waitFor();
      await screenshot(page, "tested-en");

      await page.getByRole("button", { name: `${en.rotateSecret}: ${receiver.url}` }).click();
      await page.getByRole("button", { name: en.confirmRotate }).click();
      await page.getByRole("heading", { name: en.rotatedTitle }).waitFor();
      const rotated = (await page.getByTestId("new-endpoint-secret").textContent()) ?? "";
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await page.getByRole("button", { name: en.done }).click();
      // "Done" draws the list again once it is read; a click before that lands on the old rows.
      await page.getByRole("heading", { name: en.rotatedTitle }).waitFor({ state: "detached" });

      await page.getByRole("button", { name: `${en.deleteEndpoint}: ${receiver.url}` }).click();
      await page.getByRole("button", { name: en.confirmDelete }).click();
      await page.getByText(fill(en.endpointDeleted, { url: receiver.url })).waitFor();
      await page.getByText(en.nothingYet).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("explains a failed test event in Thai on a phone", async () => {
    const created = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url: receiver.url, events: ["payment.received"] },
      { credentials: shop },
    );
    assert.equal(created.status, 201);
    const { page, errors, close } = await openWebhooks(PHONE_TH, th);
    try {
      receiver.respondWith(503);
      await page.getByRole("button", { name: `${th.sendTest}: ${receiver.url}` }).click();
      await page
        .getByText(fill(th.testFailed, { error: fill(th["attemptError.status"], { status: 503 }) }))
        .waitFor();
      await screenshot(page, "test-failed-mobile-th");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("the overview", () => {
  let payment: any;
  let withdraw: any;
  before(async () => {
    await fundWallet(svc.deps, shop.merchantId, 5_000_000n);
    payment = await createPayment(svc, shop, { amount: "150000.00", referenceId: `order-${process.pid}` });
    await svc.deps.db
      .updateTable("payments")
      .set({ status: "succeeded", captured_at: svc.clock.now() })
      .where("id", "=", payment.id)
      .execute();
    withdraw = await createWithdraw(svc, shop, { amount: "40000.00" });
    await svc.deps.db
      .updateTable("withdraws")
      .set({ status: "paid", paid_at: svc.clock.now() })
      .where("id", "=", withdraw.id)
      .execute();
  });

  it("draws the volume per day and opens a record from the header's search (desktop, English)", async () => {
    const { page, errors, close } = await openWebhooks(DESKTOP, en);
    try {
      await page.goto(`${origin}/dashboard#/`);
      const chart = page.getByTestId("volume-chart");
      await chart.waitFor();
      assert.equal(await chart.locator("rect.bar-in").count(), 30);
      assert.equal(await chart.locator("rect.bar-out").count(), 30);
      const label = (await chart.getAttribute("aria-label")) ?? "";
      assert.match(label, /฿1,500\.00 received, ฿0\.00 refunded \(฿1,500\.00 net\), ฿400\.00 paid out/);
      // Today's bars are the last ones and the tallest.
      assert.ok(Number(await chart.locator("rect.bar-in").last().getAttribute("height")) > 100);
      await page.screenshot({ path: `${RESULTS_DIR}dashboard-overview-en.png`, fullPage: true });
      await page.getByRole("searchbox", { name: en.searchLabel }).fill(payment.referenceId);
      await page.getByRole("button", { name: en.searchButton }).click();
      await page.waitForURL(`**/dashboard#/payments/${payment.id}`);
      await page.getByRole("searchbox", { name: en.searchLabel }).fill(withdraw.id);
      await page.getByRole("button", { name: en.searchButton }).click();
      await page.waitForURL(`**/dashboard#/withdraws/${withdraw.id}`);
      await page.getByRole("searchbox", { name: en.searchLabel }).fill("no-such-thing");
      await page.getByRole("button", { name: en.searchButton }).click();
      await page.getByText(fill(en.searchNoMatch, { q: "no-such-thing" })).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows the chart in Thai and searches from the menu on a phone", async () => {
    const { page, errors, close } = await openWebhooks(PHONE_TH, th);
    try {
      await page.goto(`${origin}/dashboard#/`);
      await page.getByRole("heading", { name: th.volumeTitle }).waitFor();
      await page.screenshot({ path: `${RESULTS_DIR}dashboard-overview-mobile-th.png`, fullPage: true });
      await page.getByRole("button", { name: th.menu }).click();
      await page.getByRole("searchbox", { name: th.searchLabel }).fill(payment.id);
      await page.getByRole("button", { name: th.searchButton }).click();
      await page.waitForURL(`**/dashboard#/payments/${payment.id}`);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
