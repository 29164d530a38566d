/**
 * The payout desk page in a real browser (headless Debian Chromium through playwright-core),
 * against the real app on a loopback port with SATANG_PAYOUTS=manual: the operator signs in
 * with the operator token, creates a batch from a merchant's pending withdraws, downloads the
 * CSV, records one paid and one failed, and sees the batch closed. Screenshots go to
 * apps/server/test-results/payout-desk-*.png. Chromium is required, never skipped.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, RESULTS_DIR, refusedAnswer } from "../helpers/browser.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const WAIT_MS = 20_000;

let svc: TestService;
let browser: Browser;
let origin: string;
let shop: Credentials;

before(async () => {
  svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  shop = await fundedMerchant(svc, {}, 1_000_000n);
  browser = await launchChromium("the payout desk browser test");
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

async function withdraw(
  amount: string,
  name: string,
  destinationType: "bank_account" | "wallet" = "bank_account",
): Promise<string> {
  svc.clock.advance(1000);
  const res = await svc.request(
    "POST",
    "/api/v1/withdraws",
    withdrawBody({ amount, customerBankAccountName: name, destinationType }),
    {
      credentials: shop,
    },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.id;
}

describe("payout desk page", () => {
  it("signs in, creates a batch, downloads the CSV and records outcomes until the batch closes", async () => {
    const first = await withdraw("150000.00", "Somchai Jaidee");
    const second = await withdraw("2500.00", "บริษัท ตัวอย่าง จำกัด", "wallet");
    const context = await browser.newContext({
      locale: "en-US",
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      const response = await page.goto(`${origin}/dashboard/payout-desk`);
      assert.equal(response?.status(), 200);
      assert.match(String(response?.headers()["content-security-policy"]), /script-src 'self'/);

      // A mistyped token is one failed attempt (the operator API limits them per address), not
      // one for each list the desk reads.
      const refusedCalls: string[] = [];
      page.on("response", (answer) => {
        if (answer.url().includes("/admin/v1/") && answer.status() === 401) refusedCalls.push(answer.url());
      });
      await page.fill("#token", "not-the-operator-token");
      await page.click("#login button[type=submit]");
      await page.waitForSelector("text=The operator token was refused.");
      await page.waitForTimeout(300);
      assert.equal(refusedCalls.length, 1, refusedCalls.join(", "));

      // A refusal that says when to try again is told with its wait.
      await page.route("**/admin/v1/payout-batches*", (route) =>
        route.fulfill(
          refusedAnswer(
            429,
            { code: "RATE_LIMIT_EXCEEDED", message: "Too many", metadata: { retryAfter: 7 } },
            7,
          ),
        ),
      );
      await page.fill("#token", ADMIN_TOKEN);
      await page.click("#login button[type=submit]");
      await page.waitForSelector("text=RATE_LIMIT_EXCEEDED: Too many Try again in 7 s.");
      await page.unroute("**/admin/v1/payout-batches*");
      // A token the server did not accept is not kept for the page's own later reads to send.
      assert.equal(await page.evaluate('sessionStorage.getItem("satang.operatorToken")'), null);

      await page.fill("#token", ADMIN_TOKEN);
      await page.click("#login button[type=submit]");
      await page.waitForSelector("#empty");

      await page.fill("#merchant", shop.merchantId);
      await page.fill("#by", "Khun Operator");
      await page.click("#create button[type=submit]");
      await page.waitForSelector("#items tbody tr >> nth=1");
      assert.match((await page.textContent("#batch-title")) ?? "", /\(open\)/);
      assert.equal(await page.locator("#items tbody tr").count(), 2);

      // Amounts in baht with the unit, the figures of the CSV: 150000 satang is ฿1,500.00.
      const row1 = page.locator(`tr[data-withdraw="${first}"]`);
      const row2 = page.locator(`tr[data-withdraw="${second}"]`);
      const headings = await page.locator("#items thead th").allTextContents();
      assert.deepEqual(headings, [
        "#",
        "Destination",
        "Bank",
        "Account",
        "Account name",
        "Amount (THB)",
        "Reference",
        "Withdraw",
        "Withdraw status",
        "Outcome",
        "Recorded by",
      ]);
      assert.equal(await row1.locator("td.amount").textContent(), "฿1,500.00");
      assert.equal(await row2.locator("td.amount").textContent(), "฿25.00");
      assert.match(
        (await page.textContent("#batch-summary")) ?? "",
        /^Lines: 2 \(withdraws: 2, refunds: 0\), total ฿1,525\.00; paid: 0 \(฿0\.00\)/,
      );
      // The label names a person; the token the batch came with is shown beside it.
      assert.match(
        (await page.textContent("#batch-summary")) ?? "",
        /Created by Khun Operator \(operator token admin-token\)\.$/,
      );
      assert.match((await page.textContent("#units")) ?? "", /Thai baht \(THB\)/);
      const shown = (await page.textContent("#app")) ?? "";
      assert.doesNotMatch(shown, /150000|2500\.00|satang/, "no satang figure an operator could key in");
      // The Withdraw column names the withdraw; its status has a column of its own.
      assert.equal(await row1.locator("td.withdraw").textContent(), first);
      assert.equal(await row1.locator("td.withdraw-status").textContent(), "Processing");
      assert.equal(await row1.locator("td.destination").textContent(), "Bank account");
      assert.equal(await row2.locator("td.destination").textContent(), "Wallet");
      assert.equal(await row1.locator("td.bank").textContent(), "004 Kasikornbank");
      await page.screenshot({ path: join(RESULTS_DIR, "payout-desk-batch.png"), fullPage: true });

      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#csv")]);
      const csv = readFileSync((await download.path())!, "utf8");
      assert.match(
        csv,
        /^\uFEFFbank_code,bank_name,account_number,account_name,amount_thb,withdraw_id,reference,destination_type,status,bank_reference,failure_reason,recorded_by\r\n/,
      );
      assert.match(
        csv,
        new RegExp(`,1234567890,Somchai Jaidee,1500\\.00,${first},[^,]+,bank_account,open,,,\r\n`),
      );
      assert.match(csv, /บริษัท ตัวอย่าง จำกัด,25\.00,[^,]+,[^,]+,wallet,open,,,\r\n/);

      // Each row's controls name their line, so one row's "Paid" is told from the next.
      assert.equal(await row2.getByRole("button", { name: "Paid, line 2", exact: true }).count(), 1);
      assert.equal(await page.getByRole("button", { name: "Failed, line 1", exact: true }).count(), 1);
      assert.equal(
        await row1.getByRole("textbox", { name: "bank reference, line 1", exact: true }).count(),
        1,
      );
      await row1.locator("input[name=reference]").fill("KB20261123-0001");
      await row1.locator("button[name=paid]").click();
      await page.waitForSelector("text=paid · KB20261123-0001");
      assert.equal(await row1.locator("td.recorded-by").textContent(), "admin-token via payout desk");
      assert.equal(await row1.locator("td.withdraw-status").textContent(), "Paid");

      await row2.locator("button[name=failed]").click();
      await page.waitForSelector("text=VALIDATION_ERROR: reason is required when outcome is failed");
      await row2.locator("input[name=reason]").fill("Account closed");
      await row2.locator("button[name=failed]").click();
      await page.waitForSelector("text=failed · Account closed");
      assert.match((await page.textContent("#batch-title")) ?? "", /\(closed\)/);
      await page.screenshot({ path: join(RESULTS_DIR, "payout-desk-closed.png"), fullPage: true });

      await page.click("#back");
      await page.waitForSelector("#batches tbody tr");
      assert.match((await page.textContent("#batches")) ?? "", /1 paid, 1 failed, 0 open/);
      assert.match((await page.textContent("#batches")) ?? "", /฿1,525\.00/);

      // Thai, like the dashboard: the whole page switches, and the choice holds after a reload.
      await page.click("button.lang");
      await page.waitForSelector("text=ชุดรายการจ่าย");
      assert.equal(await page.getAttribute("html", "lang"), "th");
      assert.match((await page.textContent("#batches")) ?? "", /จ่ายแล้ว 1, ไม่สำเร็จ 1, ค้างอยู่ 0/);
      await page.locator("#batches button.link").first().click();
      await page.waitForSelector("#items");
      assert.match((await page.textContent("#batch-title")) ?? "", /\(ปิดแล้ว\)/);
      assert.equal(await page.locator("#items thead th").nth(5).textContent(), "จำนวนเงิน (บาท)");
      assert.equal(await row1.locator("td.amount").textContent(), "฿1,500.00");
      assert.equal(await row2.locator("td.destination").textContent(), "วอลเล็ต");
      // The bank is named in Thai too: the operator matches it against a Thai bank's screen.
      assert.equal(await row1.locator("td.bank").textContent(), "004 ธนาคารกสิกรไทย");
      assert.equal(await row1.locator("td.withdraw-status").textContent(), "จ่ายแล้ว");
      assert.equal(await row1.locator("td.recorded-by").textContent(), "admin-token ผ่าน หน้าระบบจ่ายเงินถอน");
      await page.screenshot({ path: join(RESULTS_DIR, "payout-desk-thai.png"), fullPage: true });
      await page.reload();
      await page.waitForSelector("text=ชุดรายการจ่าย");

      // The token revoked meanwhile: the undecided section's next read is refused, the token is
      // forgotten and the sign-in shown, so the half-minute reads send it no more.
      await page.route("**/admin/v1/payouts/undecided*", (route) =>
        route.fulfill(
          refusedAnswer(401, { code: "INVALID_CREDENTIALS", message: "Invalid or missing admin token" }),
        ),
      );
      await page.evaluate('document.dispatchEvent(new Event("satang:lang"))');
      await page.waitForSelector("#login");
      assert.equal(await page.evaluate('sessionStorage.getItem("satang.operatorToken")'), null);
      await page.unroute("**/admin/v1/payouts/undecided*");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
    const statusOf = async (id: string) =>
      (await svc.request("GET", `/api/v1/withdraws/${id}`, undefined, { credentials: shop })).body.data
        .status;
    assert.equal(await statusOf(first), "paid");
    assert.equal(await statusOf(second), "failed");
  });
});
