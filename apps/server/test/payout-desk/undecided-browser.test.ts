/**
 * The payout desk's undecided section in a real browser (headless Chromium through
 * playwright-core): an undecided payout past PAYOUT_UNDECIDED_ALERT_S is shown with its amount in
 * baht with the unit (a wire amount is satang: "25000.00" is ฿250.00, never "25000.00 THB"), and
 * the operator resolves it failed from the page. Screenshot: test-results/payout-desk-undecided.png.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, RESULTS_DIR } from "../helpers/browser.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

const WAIT_MS = 20_000;
const { MESSAGES } = await import(new URL("../../src/payout-desk/assets/i18n.js", import.meta.url).href);
const en: Record<string, string> = MESSAGES.en;
const th: Record<string, string> = MESSAGES.th;

let svc: TestService;
let browser: Browser;
let origin: string;
let shop: Credentials;

before(async () => {
  svc = await startService({ env: { PAYOUT_UNDECIDED_ALERT_S: "60" } });
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  shop = await fundedMerchant(svc, {}, 1_000_000n);
  browser = await launchChromium("the payout desk undecided browser test");
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

describe("payout desk: undecided payouts", () => {
  it("shows an undecided payout's amount in baht with its unit", async () => {
    const withdraw = await createWithdraw(svc, shop, { amount: "25000.00" });
    const lost = await simulateWithdrawRequest(svc, shop, withdraw.id, "indeterminate");
    assert.equal(lost.status, 200, JSON.stringify(lost.body));
    svc.clock.advance(61_000);
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      await page.goto(`${origin}/dashboard/payout-desk`);
      await page.fill("#token", ADMIN_TOKEN);
      await page.click("#login button[type=submit]");
      const heading = page.locator(".undecided-item h3").filter({ hasText: withdraw.id });
      await heading.waitFor();
      const text = (await heading.textContent()) ?? "";
      assert.match(text, /^฿250\.00, /, text);
      assert.doesNotMatch(text, /25000/);
      await page.screenshot({ path: `${RESULTS_DIR}payout-desk-undecided.png`, fullPage: true });

      // The language switch redraws the section in Thai too (i18n.js holds its texts).
      await page.getByRole("button", { name: en.switchLanguageLabel }).click();
      const thaiHeading = page.locator("#undecided h2");
      await thaiHeading.filter({ hasText: th.undecidedHeading!.replace(" ({count})", "") }).waitFor();
      const thai = (await heading.textContent()) ?? "";
      assert.ok(thai.startsWith(`${th["subject.withdraw"]} ${withdraw.id}`), thai);
      assert.match(thai, /฿250\.00$/, thai);

      // Resolved from the page, the action is the desk's in the audit log, as a batch outcome is.
      const item = page.locator(".undecided-item").filter({ hasText: withdraw.id });
      await item.locator("select[name=outcome]").selectOption("failed");
      await item.locator("input[name=reason]").fill("The bank's statement shows no such transfer");
      await item.locator("form.resolve button[type=submit]").click();
      await item.locator("[role=status]").filter({ hasText: "failed" }).waitFor();
      const audit = await svc.admin("GET", `/admin/v1/audit-log?recordId=${withdraw.id}`);
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      const resolved = audit.body.data.data.find(
        (entry: { action: string }) => entry.action === "resolveWithdraw",
      );
      assert.ok(resolved, JSON.stringify(audit.body.data));
      assert.equal(resolved.via, "desk");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
