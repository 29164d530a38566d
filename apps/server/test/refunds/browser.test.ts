/**
 * A refund from the dashboard in a real browser (Debian's Chromium through playwright-core): on
 * a succeeded payment's page the refund form is prefilled with what is left to refund, in THB;
 * a partial refund with a reason appears in the payment's refunds, pending, and the form then
 * offers only the rest. A payment that has not succeeded shows no form. Screenshot:
 * test-results/dashboard-refund.png.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, RESULTS_DIR } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { createPayment } from "../helpers/lifecycle.ts";
import { succeededPayment } from "../helpers/refunds.ts";

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
});
