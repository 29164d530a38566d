/**
 * The sandbox test clock in the dashboard, in a real browser (headless Chromium driven by
 * playwright-core, as browser.test.ts): when the merchant's clock runs ahead of real time, every
 * view says by how much, in English and Thai, with a button that brings it back (CONTRACT 10);
 * at real time nothing is said. Screenshots go to apps/server/test-results/dashboard-clock-*.png.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium, MOBILE, RESULTS_DIR, viewShown } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { advanceClock, createPayment } from "../helpers/lifecycle.ts";

declare const document: any;

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const th: any = MESSAGES.th;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let origin: string;
let shop: Credentials;
let login: { email: string; password: string };

before(async () => {
  browser = await launchChromium("the dashboard test-clock tests");
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  shop = await svc.newMerchant({ name: "Clock Shop" });
  login = await createDashboardUser(svc, shop.merchantId);
});

after(async () => {
  await browser?.close();
  await svc?.close();
});

async function openLoggedIn(
  options: BrowserContextOptions,
  messages: any,
): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(`${origin}/dashboard`);
  // A Thai browser (locale th-TH) gets the Thai texts from the start.
  await page.getByLabel(messages.email, { exact: true }).fill(login.email);
  await page.getByLabel(messages.password, { exact: true }).fill(login.password);
  await page.getByRole("button", { name: messages.signIn }).click();
  await page.getByRole("heading", { level: 1, name: messages.overviewTitle }).waitFor();
  return { page, errors, close: () => context.close() };
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-clock-${name}.png`, fullPage: true });

describe("the test clock in the dashboard", () => {
  it("says nothing while the merchant's clock is at real time", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await page.waitForLoadState("networkidle");
      assert.equal(await page.locator("#test-clock").isVisible(), false);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows how far the clock runs ahead on every view, and resets it with the button", async () => {
    await advanceClock(svc, shop, 5 * 60 + 1);
    await createPayment(svc, shop, { referenceId: "made-ahead" });
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      const banner = page.locator("#test-clock");
      // Each view draws a new banner and fills it once the clock is read: wait for the text, not
      // only for a banner (the overview's recent payments also link "made-ahead", so that link
      // alone does not say the payments view is drawn).
      const ahead = page.locator("#test-clock", { hasText: "+5 min 1 s ahead" });
      const text = (await ahead.textContent()) ?? "";
      assert.match(text, /Test clock: \+5 min 1 s ahead of real time\./);
      assert.ok(text.includes(en.testClockDetail));
      await screenshot(page, "ahead-overview");

      await page.getByRole("link", { name: en.navPayments }).first().click();
      await viewShown(page, "#/payments");
      await page.getByRole("link", { name: "made-ahead" }).waitFor();
      assert.match((await ahead.textContent()) ?? "", /Test clock: \+5 min 1 s ahead/);
      await screenshot(page, "ahead-payments");

      await page.getByRole("button", { name: en.testClockReset }).click();
      await page.getByText(en.testClockResetDone).waitFor();
      await page.waitForLoadState("networkidle");
      assert.equal(await banner.isVisible(), false, "the banner goes once the clock is at real time");
      const clock = await svc.request("GET", "/api/v1/sandbox/clock", undefined, { credentials: shop });
      assert.equal(clock.body.data.offsetSeconds, 0);
      await screenshot(page, "after-reset");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("says it in Thai on a phone", async () => {
    await advanceClock(svc, shop, 3600);
    const { page, errors, close } = await openLoggedIn({ ...MOBILE, locale: "th-TH" }, th);
    try {
      const ahead = page.locator("#test-clock", { hasText: "+1 ชั่วโมง" });
      assert.match((await ahead.textContent()) ?? "", /นาฬิกาทดสอบ: เร็วกว่าเวลาจริง \+1 ชั่วโมง/);
      assert.ok(await page.getByRole("button", { name: th.testClockReset }).isVisible());
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
      await screenshot(page, "ahead-mobile-th");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
