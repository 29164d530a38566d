/**
 * Roles, two-factor login and the audit log in a real browser (Debian's Chromium through
 * playwright-core): a finance user sees API keys and webhook endpoints without the forms that
 * change them and no Users page; an owner adds a user with a role, changes it, and reads the
 * audit log; a user enrols an authenticator from the QR page and then signs in with its code;
 * in live an owner is held on the security page until enrolled. Screenshots:
 * test-results/dashboard-roles-*.png.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generate } from "otplib";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium, RESULTS_DIR } from "../helpers/browser.ts";
import { createDashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { advanceClock, createPayment, simulatePaymentRequest } from "../helpers/lifecycle.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

const { MESSAGES } = await import(new URL("../../src/dashboard/assets/i18n.js", import.meta.url).href);
const en: any = MESSAGES.en;
const DESKTOP: BrowserContextOptions = { locale: "en-US", viewport: { width: 1280, height: 900 } };
const WAIT_MS = 20_000;

let browser: Browser;
let svc: TestService;
let origin: string;

async function listen(service: TestService): Promise<string> {
  await service.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
}

before(async () => {
  browser = await launchChromium("the dashboard roles browser tests");
  svc = await startService({ env: { LOGIN_PER_ADDRESS_PER_MINUTE: "1000" } });
  origin = await listen(svc);
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${RESULTS_DIR}dashboard-roles-${name}.png`, fullPage: true });

async function signIn(at: string, login: { email: string; password: string }, otp?: string) {
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${at}/dashboard`);
  await page.getByLabel(en.email, { exact: true }).fill(login.email);
  await page.getByLabel(en.password, { exact: true }).fill(login.password);
  if (otp) await page.getByLabel(en.otpCode, { exact: true }).fill(otp);
  await page.getByRole("button", { name: en.signIn }).click();
  return { page, errors, close: () => context.close() };
}

const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

describe("dashboard roles in the browser", () => {
  it("shows a finance user the keys and endpoints without the forms that change them, and no Users page", async () => {
    const login = await createDashboardUser(svc, undefined, undefined, "finance");
    const { page, errors, close } = await signIn(origin, login);
    try {
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      const nav = page.getByRole("navigation", { name: en.mainNav });
      assert.equal(await nav.getByRole("link", { name: en.navUsers }).count(), 0, "no Users link");
      assert.equal(await nav.getByRole("link", { name: en.navAudit }).count(), 1);
      await page.goto(`${origin}/dashboard#/api-keys`);
      await page.getByRole("heading", { level: 1, name: en.apiKeysTitle }).waitFor();
      await page.getByTestId("read-only").waitFor();
      assert.equal(await page.getByRole("button", { name: en.createKey }).count(), 0);
      await screenshot(page, "finance-api-keys");
      await page.goto(`${origin}/dashboard#/webhooks`);
      await page.getByRole("heading", { level: 1, name: en.webhooksTitle }).waitFor();
      await page.getByTestId("read-only").waitFor();
      assert.equal(await page.getByRole("button", { name: en.createEndpoint }).count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("shows a developer the exports page without its download form: exports are owners' and finance's", async () => {
    const login = await createDashboardUser(svc, undefined, undefined, "developer");
    const { page, errors, close } = await signIn(origin, login);
    try {
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      await page.goto(`${origin}/dashboard#/exports`);
      await page.getByRole("heading", { level: 1, name: en.exportsTitle }).waitFor();
      await page.getByTestId("exports-not-for-role").waitFor();
      assert.equal(await page.getByRole("button", { name: en.exportDownload }).count(), 0);
      // The Users page opened by its address says the role cannot see it, not that it may read it.
      await page.goto(`${origin}/dashboard#/users`);
      await page.getByRole("heading", { level: 1, name: en.usersTitle }).waitFor();
      assert.equal(
        await page.getByTestId("users-not-for-role").textContent(),
        en.usersNotForRole.replace("{role}", en["role.developer"]),
      );
      assert.equal(await page.getByTestId("read-only").count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("hides what the server refuses the role: the test clock's reset (owners), an event's Redeliver (not finance)", async () => {
    const shop = await svc.newMerchant();
    const payment = await createPayment(svc, shop);
    await simulatePaymentRequest(svc, shop, payment.id, "succeeded");
    const events = await svc.request("GET", "/api/v1/events?type=payment.received", undefined, {
      credentials: shop,
    });
    const eventId = events.body.data.data[0].id as string;
    await advanceClock(svc, shop, 3600);
    for (const role of ["developer", "finance", "owner"] as const) {
      const login = await createDashboardUser(svc, shop.merchantId, undefined, role);
      const { page, errors, close } = await signIn(origin, login);
      try {
        await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
        const banner = page.locator("#test-clock", { hasText: "+1 h" });
        await banner.waitFor();
        const reset = await banner.getByRole("button", { name: en.testClockReset }).count();
        assert.equal(reset, role === "owner" ? 1 : 0, `${role}: the reset button`);
        assert.equal(await banner.getByText(en.testClockOwnerOnly).count(), role === "owner" ? 0 : 1, role);
        await page.goto(`${origin}/dashboard#/events/${eventId}`);
        await page.getByRole("heading", { level: 2, name: en.deliveries }).waitFor();
        const redeliver = await page.getByRole("button", { name: en.redeliver }).count();
        assert.equal(redeliver, role === "finance" ? 0 : 1, `${role}: Redeliver`);
        assert.deepEqual(errors, []);
      } finally {
        await close();
      }
    }
  });

  it("lets an owner add a user with a role, change it, and read both in the audit log", async () => {
    const login = await createDashboardUser(svc);
    const { page, errors, close } = await signIn(origin, login);
    try {
      await page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      await page
        .getByRole("navigation", { name: en.mainNav })
        .getByRole("link", { name: en.navUsers })
        .click();
      await page.getByRole("heading", { level: 1, name: en.usersTitle }).waitFor();
      const email = `accountant-${process.pid}@shop.example`;
      await page.getByLabel(en.userEmail, { exact: true }).fill(email);
      await page.getByLabel(en.userPassword, { exact: true }).fill("correct horse battery staple");
      await page.getByLabel(en.userRole, { exact: true }).selectOption("finance");
      await page.getByRole("button", { name: en.addUser }).click();
      await page
        .getByText(en.userAdded.replace("{email}", email).replace("{role}", en["role.finance"]))
        .waitFor();
      // The table shows the paged list's records: the owner signed in and the user just added.
      const users = page.getByRole("table", { name: en.usersTitle });
      await users.getByText(login.email, { exact: true }).waitFor();
      await users.getByText(email, { exact: true }).waitFor();
      const roleOf = page.getByLabel(en.roleOf.replace("{email}", email));
      assert.equal(await roleOf.inputValue(), "finance");
      await roleOf.selectOption("developer");
      await page
        .getByText(en.roleChanged.replace("{email}", email).replace("{role}", en["role.developer"]))
        .waitFor();
      await screenshot(page, "owner-users");
      // Refusals a person can act on are told by name, not as "something went wrong".
      await page.getByLabel(en.userEmail, { exact: true }).fill(email);
      await page.getByLabel(en.userPassword, { exact: true }).fill("another horse battery staple");
      await page.getByRole("button", { name: en.addUser }).click();
      await page.getByText(en.emailTaken).waitFor();
      const ownRole = page.getByLabel(en.roleOf.replace("{email}", login.email));
      await ownRole.selectOption("finance");
      await page.getByText(en.lastOwner).waitFor();
      assert.equal(await ownRole.inputValue(), "owner", "the select shows the role kept");

      await page
        .getByRole("navigation", { name: en.mainNav })
        .getByRole("link", { name: en.navAudit })
        .click();
      await page.getByRole("heading", { level: 1, name: en.auditTitle }).waitFor();
      const table = page.getByRole("table", { name: en.auditTitle });
      await table.getByText("changeUserRole").waitFor();
      // The action in words, beside its name as the operator's log spells it.
      assert.ok((await table.getByText(en["auditAction.changeUserRole"], { exact: true }).count()) >= 1);
      assert.ok((await table.getByText("createDashboardUser").count()) >= 1);
      assert.ok((await table.getByText(login.email).count()) >= 2, "the owner is named as the actor");
      await screenshot(page, "owner-audit");
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });

  it("enrols an authenticator from the QR page, then signs in only with its code", async () => {
    const login = await createDashboardUser(svc);
    const first = await signIn(origin, login);
    let secret = "";
    try {
      await first.page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      await first.page.goto(`${origin}/dashboard#/security`);
      await first.page.getByRole("heading", { level: 1, name: en.securityTitle }).waitFor();
      await first.page.getByRole("button", { name: en.startEnrolment }).click();
      const qr = first.page.getByTestId("totp-qr");
      await qr.waitFor();
      assert.ok(
        await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
        "the QR code is drawn",
      );
      secret = ((await first.page.getByTestId("totp-secret").textContent()) ?? "").trim();
      assert.match(secret, /^[A-Z2-7]{16,}$/);
      await screenshot(first.page, "enrol-qr");
      // A wrong code is told as a wrong code (not as a list's filter), and enrolment goes on.
      const right = await codeNow(secret);
      await first.page
        .getByLabel(en.confirmCode, { exact: true })
        .fill(right === "000000" ? "000001" : "000000");
      await first.page.getByRole("button", { name: en.confirmEnrolment }).click();
      await first.page.getByText(en.otpWrong).waitFor();
      await first.page.getByLabel(en.confirmCode, { exact: true }).fill(await codeNow(secret));
      await first.page.getByRole("button", { name: en.confirmEnrolment }).click();
      await first.page.getByText(en.twoFactorTurnedOn).waitFor();
      assert.equal(await first.page.getByTestId("two-factor-state").textContent(), en.twoFactorEnabledNote);
      assert.deepEqual(first.errors, []);
    } finally {
      await first.close();
    }

    const withoutCode = await signIn(origin, login);
    try {
      await withoutCode.page.getByText(en.loginFailed).waitFor();
    } finally {
      await withoutCode.close();
    }
    // The confirming code's step is used up: the next step's code is what a person types next.
    const next = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    const withCode = await signIn(origin, login, next);
    try {
      await withCode.page.getByRole("heading", { level: 1, name: en.overviewTitle }).waitFor();
      await screenshot(withCode.page, "signed-in-with-code");
    } finally {
      await withCode.close();
    }
  });
});

describe("two-factor login required in live, in the browser", () => {
  let live: TestService;
  let liveOrigin: string;
  before(async () => {
    live = await startService({
      env: { ...LIVE_PROVIDER_ENV, SATANG_ENV: "live", SECRET_KEY: "ef".repeat(32) },
    });
    liveOrigin = await listen(live);
  });
  after(async () => {
    await live?.close();
  });

  it("holds an owner on the security page until enrolled, then opens the dashboard", async () => {
    const login = await createDashboardUser(live);
    const { page, errors, close } = await signIn(liveOrigin, login);
    try {
      await page.getByRole("heading", { level: 1, name: en.securityTitle }).waitFor();
      await page.getByText(en.twoFactorRequiredNote).waitFor();
      const nav = page.getByRole("navigation", { name: en.mainNav });
      assert.equal(await nav.getByRole("link").count(), 1, "only the security page is offered");
      await page.goto(`${liveOrigin}/dashboard#/payments`);
      await page.waitForFunction(
        () => (globalThis as unknown as { location: { hash: string } }).location.hash === "#/security",
      );
      await screenshot(page, "live-owner-held");
      await page.getByRole("button", { name: en.startEnrolment }).click();
      const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").trim();
      await page.getByLabel(en.confirmCode, { exact: true }).fill(await codeNow(secret));
      await page.getByRole("button", { name: en.confirmEnrolment }).click();
      await page.getByText(en.twoFactorTurnedOn).waitFor();
      await page
        .getByRole("navigation", { name: en.mainNav })
        .getByRole("link", { name: en.navPayments })
        .click();
      await page.getByRole("heading", { level: 1, name: en.paymentsTitle }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
});
