/**
 * The dashboard's record details and CSV exports in a real browser (Debian's Chromium through
 * playwright-core), on a desktop in English and a 390x844 phone in Thai: the payment detail
 * shows the customer (name, masked account, bank by name), the metadata and the hosted page
 * link; the withdraw detail names the bank; the Exports page downloads a CSV for a range of
 * Bangkok days and explains a refused range. Screenshots: test-results/dashboard-records-*.png.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium, MOBILE, RESULTS_DIR, viewShown } from "../helpers/browser.ts";
import { csvRecords } from "../helpers/csv.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";

declare const document: any;

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const th: any = MESSAGES.th;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const PHONE_TH: BrowserContextOptions = { ...MOBILE, locale: "th-TH" };
const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let origin: string;
let shop: Credentials;
let login: { email: string; password: string };
let payment: any;
let transfer: any;
let withdraw: any;

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
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  svc.deps.config.publicBaseUrl = origin;
  shop = svc.credentials;
  login = await createDashboardUser(svc, shop.merchantId, `records-${process.pid}@shop.example`);
  payment = await api("POST", "/api/v1/payments", {
    amount: "125000.00",
    referenceId: "order-7001",
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: "510-000-4321",
    customerBankCode: "014",
    description: "2 x Thai silk scarf",
    metadata: { orderId: "7001", channel: "line-shop" },
  });
  svc.clock.advance(60_000);
  transfer = await api("POST", "/api/v1/payments", {
    amount: "89000.00",
    referenceId: "order-7002",
    paymentMethod: "bank_transfer",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: "510-000-4321",
    customerBankCode: "014",
  });
  await api("POST", `/api/v1/payments/${transfer.id}/cancel`);
  await fundWallet(svc.deps, shop.merchantId, 5_000_000n);
  withdraw = await api("POST", "/api/v1/withdraws", {
    amount: "250000.00",
    referenceId: "payout-7001",
    destinationType: "bank_account",
    customerBankAccountName: "Somsri Rakdee",
    customerBankAccountNumber: "123-456-7890",
    customerBankCode: "004",
  });
});

after(async () => {
  await browser?.close();
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

/** The detail list's rows whose field name contains `name`. */
const fieldRows = (page: Page, name: string) =>
  page.locator(".fields > div").filter({ has: page.locator("dt", { hasText: name }) });

/** The value beside a field's name in the detail's list. */
async function field(page: Page, name: string): Promise<string> {
  const row = fieldRows(page, name).first();
  return ((await row.locator("dd").first().textContent()) ?? "").trim();
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-records-${name}.png`, fullPage: true });

const bangkokDay = (offsetDays: number) =>
  new Date(Date.now() + 7 * 3600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe("record details", () => {
  it("shows a payment's customer, metadata and hosted page, and a withdraw's bank by name (desktop, English)", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await visit(page, `#/payments/${payment.id}`);
      assert.equal(await field(page, en.fieldCustomerName), "Somchai Jaidee");
      assert.equal(await field(page, en.fieldCustomerAccount), "******4321");
      assert.equal(await field(page, en.fieldCustomerBank), "Siam Commercial Bank (014)");
      assert.equal(await field(page, en.fieldDescription), "2 x Thai silk scarf");
      const metadata = await field(page, en.fieldMetadata);
      assert.match(metadata, /orderId7001/);
      assert.match(metadata, /channelline-shop/);
      const link = page.getByRole("link", { name: en.openHostedPage });
      assert.equal(await link.getAttribute("href"), `${origin}/pay/${payment.id}`);
      assert.ok(!(await page.content()).includes("5100004321"), "the account number is never on the page");
      assert.equal(
        await fieldRows(page, en.fieldTransferReference).count(),
        0,
        "PromptPay has no transfer reference",
      );
      await screenshot(page, "payment-detail-en");
      // A bank transfer that ended still shows the reference its customer was to write.
      await visit(page, `#/payments/${transfer.id}`);
      assert.equal(
        await field(page, en.fieldTransferReference),
        transfer.nextAction.bankTransferInstructions.reference,
      );
      await visit(page, `#/withdraws/${withdraw.id}`);
      assert.equal(await field(page, en.fieldBank), "Kasikornbank (004)");
      assert.equal(await field(page, en.fieldAccountNumber), "******7890");
      await screenshot(page, "withdraw-detail-en");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows the same in Thai on a phone", async () => {
    const { page, errors, close } = await openLoggedIn(PHONE_TH, th);
    try {
      await visit(page, `#/payments/${payment.id}`);
      assert.equal(await field(page, th.fieldCustomerName), "Somchai Jaidee");
      assert.equal(await field(page, th.fieldCustomerBank), "ธนาคารไทยพาณิชย์ (014)");
      assert.ok(await page.getByRole("link", { name: th.openHostedPage }).isVisible());
      await screenshot(page, "payment-detail-mobile-th");
      await visit(page, `#/payments/${transfer.id}`);
      assert.equal(
        await field(page, th.fieldTransferReference),
        transfer.nextAction.bankTransferInstructions.reference,
      );
      await visit(page, `#/withdraws/${withdraw.id}`);
      assert.equal(await field(page, th.fieldBank), "ธนาคารกสิกรไทย (004)");
      await screenshot(page, "withdraw-detail-mobile-th");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});

describe("the Exports page", () => {
  it("downloads the payments CSV for a range of Bangkok days (desktop, English)", async () => {
    const { page, errors, close } = await openLoggedIn(DESKTOP, en);
    try {
      await page
        .getByRole("navigation", { name: en.mainNav })
        .getByRole("link", { name: en.navExports })
        .click();
      await page.getByRole("heading", { level: 1, name: en.exportsTitle }).waitFor();
      await page.getByLabel(en.exportKind).selectOption("payments");
      await page.getByLabel(en.exportFrom).fill(bangkokDay(-1));
      await page.getByLabel(en.exportTo).fill(bangkokDay(1));
      const downloading = page.waitForEvent("download");
      await page.getByRole("button", { name: en.exportDownload }).click();
      const download = await downloading;
      assert.match(download.suggestedFilename(), /^payments-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
      // The dashboard asks for the byte-order mark Excel needs for Thai ("For Excel", ticked).
      const text = readFileSync((await download.path()) as string, "utf8");
      assert.equal(text.charCodeAt(0), 0xfeff);
      const records = csvRecords(text.slice(1));
      assert.deepEqual(
        records.map((r) => [r.payment_id, r.amount_thb, r.customer_account]),
        [
          [payment.id, "1250.00", "******4321"],
          [transfer.id, "890.00", "******4321"],
        ],
      );
      await page.getByText(en.exportDone.replace("{file}", download.suggestedFilename())).waitFor();
      await screenshot(page, "exports-en");
      const withdraws = page.waitForEvent("download");
      await page.getByLabel(en.exportKind).selectOption("withdraws");
      await page.getByRole("button", { name: en.exportDownload }).click();
      const file = await withdraws;
      const rows = csvRecords(readFileSync((await file.path()) as string, "utf8").replace(/^\uFEFF/, ""));
      assert.deepEqual(
        rows.map((r) => [r.withdraw_id, r.bank]),
        [[withdraw.id, "KBANK"]],
      );
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("explains a refused range in Thai on a phone", async () => {
    const { page, close } = await openLoggedIn(PHONE_TH, th);
    try {
      await visit(page, "#/exports");
      await page.getByLabel(th.exportFrom).fill("2025-01-01");
      await page.getByLabel(th.exportTo).fill("2026-06-01");
      await page.getByRole("button", { name: th.exportDownload }).click();
      await page.getByRole("alert").filter({ hasText: th.exportRangeInvalid }).waitFor();
      await screenshot(page, "exports-mobile-th-refused");
    } finally {
      await close();
    }
  });
});
