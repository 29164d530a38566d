/**
 * A refund from the dashboard in a real browser (Debian's Chromium through playwright-core): on
 * a succeeded payment's page the refund form is prefilled with what is left to refund, in THB;
 * a partial refund with a reason appears in the payment's refunds, pending, and the form then
 * offers only the rest. A payment that has not succeeded shows no form. The refunds list
 * (#/refunds) shows every refund, filtered by status; the overview nets refunds from what came in;
 * a user who is not an owner sees who can refund instead of a form. Screenshots:
 * test-results/dashboard-refund.png, dashboard-refunds-list.png.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, RESULTS_DIR } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { createPayment } from "../helpers/lifecycle.ts";
import { createRefund, simulateRefundRequest, succeededPayment } from "../helpers/refunds.ts";

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let origin: string;
let login: { email: string; password: string };

before(async () => {
  browser = await launchChromium("the dashboard refund browser test");
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as { port: number }).port}`;
  login = await createDashboardUser(svc, svc.credentials.merchantId, `refunds-${process.pid}@shop.example`);
});

after(async () => {
  await browser?.close();
  await svc?.close();
});

async function signIn(page: Page, user: { email: string; password: string }) {
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel(en.email, { exact: true }).fill(user.email);
  await page.getByLabel(en.password, { exact: true }).fill(user.password);
  await page.getByRole("button", { name: en.signIn }).click();
  await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
}

describe("refunds in the dashboard", () => {
  it("refunds part of a succeeded payment from its page, with the refundable amount prefilled", async () => {
    const payment = await succeededPayment(svc, svc.credentials, "150000.00");
    const waiting = await createPayment(svc, svc.credentials);
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    try {
      await page.goto(`${origin}/dashboard`);
      await page.getByLabel(en.email, { exact: true }).fill(login.email);
      await page.getByLabel(en.password, { exact: true }).fill(login.password);
      await page.getByRole("button", { name: en.signIn }).click();
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();

      await page.goto(`${origin}/dashboard#/payments/${payment.id}`);
      await page.getByRole("heading", { name: en.refundsTitle }).waitFor();
      await page.getByText(en.refundNone).waitFor();
      const amount = page.getByLabel(en.refundAmount);
      assert.equal(await amount.inputValue(), "1500.00", "prefilled with the whole payment, in THB");
      await amount.fill("400.5");
      await page.getByLabel(en.refundReason).fill("Customer returned one item");
      await page.getByRole("button", { name: en.refundButton, exact: true }).click();
      await page.getByRole("status").filter({ hasText: "฿400.50" }).waitFor();
      const row = page.getByTestId("refund-row");
      assert.equal(await row.count(), 1);
      const text = (await row.textContent()) ?? "";
      assert.match(text, /Pending/);
      assert.match(text, /฿400\.50/);
      assert.match(text, /Customer returned one item/);
      assert.equal(
        await page.getByLabel(en.refundAmount).inputValue(),
        "1099.50",
        "only the rest is offered",
      );
      await page.screenshot({ path: `${RESULTS_DIR}dashboard-refund.png`, fullPage: true });

      await page.getByLabel(en.refundAmount).fill("1099.51");
      await page.getByRole("button", { name: en.refundButton, exact: true }).click();
      await page.getByRole("alert").filter({ hasText: "฿1,099.50" }).waitFor();

      const refunds = await svc.sdk.refunds.listForPayment(payment.id);
      assert.deepEqual(
        refunds.data.map((r) => [r.amount, r.status, r.reason]),
        [["40050.00", "pending", "Customer returned one item"]],
      );

      await page.goto(`${origin}/dashboard#/payments/${waiting.id}`);
      await page.getByRole("heading", { name: en.refundsTitle }).waitFor();
      assert.equal(
        await page.getByLabel(en.refundAmount).count(),
        0,
        "no refund form before the payment succeeds",
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
    await assertLedgerConsistent(svc.deps.db);
  });

  it("lists refunds with a status filter, nets them on the overview, and shows a finance user no form", async () => {
    const shop = await svc.newMerchant();
    const owner = await createDashboardUser(svc, shop.merchantId, `owner-${process.pid}@shop.example`);
    const finance = await createDashboardUser(
      svc,
      shop.merchantId,
      `finance-${process.pid}@shop.example`,
      "finance",
    );
    const payment = await succeededPayment(svc, shop, "90000.00");
    const paidBack = await createRefund(svc, shop, payment.id, {
      amount: "12345.00",
      referenceId: "return-paid",
    });
    assert.equal((await simulateRefundRequest(svc, shop, paidBack.id, "succeeded")).status, 200);
    await createRefund(svc, shop, payment.id, { amount: "1000.00", referenceId: "return-waiting" });
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    try {
      await signIn(page, owner);
      // The overview: 900.00 received, 123.45 refunded, 776.55 net.
      const summary = en.volumeSummary
        .replace("{in}", "฿900.00")
        .replace("{refunds}", "฿123.45")
        .replace("{net}", "฿776.55");
      await page.getByText(summary.slice(0, summary.indexOf("{out}"))).waitFor();

      await page.getByRole("link", { name: en.navRefunds }).first().click();
      await page.getByRole("heading", { level: 1, name: en.refundsTitle }).waitFor();
      const rows = page.locator("tbody tr");
      await rows.filter({ hasText: "return-waiting" }).waitFor();
      assert.equal(await rows.count(), 2);
      const paidRow = (await rows.filter({ hasText: "return-paid" }).textContent()) ?? "";
      assert.match(paidRow, /฿123\.45/);
      assert.match(paidRow, new RegExp(en["refundStatus.succeeded"]));
      await page.screenshot({ path: `${RESULTS_DIR}dashboard-refunds-list.png`, fullPage: true });

      await page.goto(`${origin}/dashboard#/refunds?status=pending`);
      await page.getByRole("heading", { level: 1, name: en.refundsTitle }).waitFor();
      // The address changes only after its '#', so the unfiltered rows stay on the page until the
      // filtered list replaces them: wait for the paid refund's row to go.
      await rows.filter({ hasText: "return-paid" }).waitFor({ state: "detached" });
      await rows.filter({ hasText: "return-waiting" }).waitFor();
      assert.equal(await rows.count(), 1, "the status filter keeps the pending refund only");
      await rows.getByRole("link", { name: "return-waiting" }).click();
      // The list's heading and the payment's refunds heading share a name: wait for the rows.
      await page.getByTestId("refund-row").nth(1).waitFor();
      assert.equal(await page.getByTestId("refund-row").count(), 2, "the reference leads to the payment");

      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
    const financeContext = await browser.newContext({
      locale: "en-US",
      viewport: { width: 1280, height: 900 },
    });
    try {
      const financePage = await financeContext.newPage();
      financePage.setDefaultTimeout(WAIT_MS);
      await signIn(financePage, finance);
      await financePage.goto(`${origin}/dashboard#/payments/${payment.id}`);
      await financePage.getByTestId("refund-owners-only").waitFor();
      assert.equal(
        await financePage.getByLabel(en.refundAmount).count(),
        0,
        "no form a finance user could only fail",
      );
    } finally {
      await financeContext.close();
    }
  });
});
