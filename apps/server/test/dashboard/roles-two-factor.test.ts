/**
 * Dashboard roles and two-factor login (CONTRACT 13), and a merchant's own audit log
 * (CONTRACT 2), through the dashboard API: a finance user reads and exports but cannot create
 * API keys or webhook endpoints (403 FORBIDDEN from the route, before the body is looked at);
 * a developer manages keys and endpoints but not users; owners manage users and roles and keep
 * at least one owner. TOTP: enrolment by QR/otpauth URI and a confirming code; an enrolled
 * user's login needs the current code once, a missing or wrong one is the login's 401 and counts
 * towards the lockout; in live an owner can do nothing but enrol until enrolled.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { generate } from "otplib";
import { type Clock, ManualClock, systemClock } from "../../src/lib/clock.ts";
import { createDashboardUser, DASHBOARD_PASSWORD, dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

let svc: TestService;

before(async () => {
  // Many logins from one test address: the per-address login limit is not under test here.
  svc = await startService({ env: { LOGIN_PER_ADDRESS_PER_MINUTE: "1000" } });
});
after(async () => {
  await svc?.close();
});

async function login(service: TestService, body: Record<string, unknown>) {
  const res = await service.app.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  return { status: res.statusCode, body: res.json() };
}

/** The authenticator's code `steps` 30-second steps from `clock`'s now (the service's wall clock). */
const codeAtOf = (secret: string, steps = 0, clock: Clock = systemClock) =>
  generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) + steps * 30 });

describe("dashboard roles", () => {
  it("lets finance read and export but refuses API keys, webhook endpoints and users with FORBIDDEN", async () => {
    const finance = await dashboardUser(svc, undefined, "finance");
    assert.equal((await finance.request("GET", "/payments")).status, 200);
    assert.equal((await finance.request("GET", "/api-keys")).status, 200);
    const csv = await finance.request("GET", "/reports/payments.csv?dateFrom=2026-01-01&dateTo=2026-02-01");
    assert.equal(csv.status, 200);
    // Every export of the API, refunds included (CONTRACT 13: finance reads and exports).
    for (const kind of ["withdraws", "refunds", "ledger"]) {
      const file = await finance.request("GET", `/reports/${kind}.csv?dateFrom=2026-01-01&dateTo=2026-02-01`);
      assert.equal(file.status, 200, kind);
    }
    const refunds = await finance.request(
      "GET",
      "/reports/refunds.csv?dateFrom=2026-01-01&dateTo=2026-02-01",
    );
    assert.match(String(refunds.body), /^refund_id,payment_id,/);
    const badRange = await finance.request("GET", "/reports/refunds.csv?dateFrom=2026-01-01");
    assert.equal(badRange.status, 400);
    for (const [method, path, body] of [
      ["POST", "/api-keys", {}],
      ["POST", "/api-keys", { unknownField: true }],
      ["POST", "/webhook-endpoints", { url: "https://shop.example/hooks", events: ["*"] }],
      ["DELETE", "/api-keys/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84", undefined],
      ["GET", "/users", undefined],
      ["POST", "/users", { email: "x@shop.example", password: DASHBOARD_PASSWORD }],
      ["POST", "/payments/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84/refunds", { amount: "1.00" }],
    ] as const) {
      const res = await finance.request(method, path, body);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.code, "FORBIDDEN");
      assert.equal(res.body.error.metadata.reason, "role");
      assert.equal(res.body.error.metadata.role, "finance");
    }
  });

  it("lets a developer manage API keys and endpoints but not users", async () => {
    const developer = await dashboardUser(svc, undefined, "developer");
    const key = await developer.request("POST", "/api-keys", { name: "Shop backend" });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    assert.equal((await developer.request("DELETE", `/api-keys/${key.body.data.id}`)).status, 200);
    const users = await developer.request("GET", "/users");
    assert.equal(users.status, 403);
    assert.deepEqual(users.body.error.metadata.allowedRoles, ["owner"]);
    // A refund sends the merchant's money: owners only.
    const refund = await developer.request("POST", "/payments/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84/refunds", {
      amount: "1.00",
    });
    assert.equal(refund.status, 403);
    assert.deepEqual(refund.body.error.metadata.allowedRoles, ["owner"]);
    // The sandbox test clock is neither a key, an endpoint nor a read: owners only.
    const reset = await developer.request("POST", "/clock/reset", {});
    assert.equal(reset.status, 403);
    assert.equal(reset.body.error.code, "FORBIDDEN");
    assert.deepEqual(reset.body.error.metadata.allowedRoles, ["owner"]);
    assert.equal((await developer.request("GET", "/clock")).status, 200, "reading the clock is a read");
    // Finance reads and exports; a developer reads: the CSV exports are owners' and finance's.
    for (const kind of ["payments", "withdraws", "refunds", "ledger"]) {
      const file = await developer.request(
        "GET",
        `/reports/${kind}.csv?dateFrom=2026-01-01&dateTo=2026-02-01`,
      );
      assert.equal(file.status, 403, kind);
      assert.equal(file.body.error.code, "FORBIDDEN");
      assert.deepEqual(file.body.error.metadata.allowedRoles, ["owner", "finance"]);
    }
    assert.equal(
      (await developer.request("GET", "/payments")).status,
      200,
      "the lists stay a developer's reads",
    );
  });

  it("lets an owner add users with a role and change roles, keeping at least one owner", async () => {
    const shop = await svc.newMerchant();
    const owner = await dashboardUser(svc, shop.merchantId);
    const created = await owner.request("POST", "/users", {
      email: `finance-${process.pid}@shop.example`,
      password: DASHBOARD_PASSWORD,
      role: "finance",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.data.role, "finance");
    // Adding a user names the role: a body without one is refused, never a new owner by omission.
    const roleless = await owner.request("POST", "/users", {
      email: `roleless-${process.pid}@shop.example`,
      password: DASHBOARD_PASSWORD,
    });
    assert.equal(roleless.status, 400, JSON.stringify(roleless.body));
    assert.equal(roleless.body.error.code, "VALIDATION_ERROR");
    assert.equal(roleless.body.error.metadata.field, "role");
    const list = await owner.request("GET", "/users");
    assert.deepEqual(list.body.data.data.map((u: any) => u.role).sort(), ["finance", "owner"]);
    const ownerId = list.body.data.data.find((u: any) => u.role === "owner").id;

    const promoted = await owner.request("PATCH", `/users/${created.body.data.id}`, { role: "developer" });
    assert.equal(promoted.body.data.role, "developer");
    const self = await owner.request("PATCH", `/users/${ownerId}`, { role: "finance" });
    assert.equal(self.status, 409, "the last owner stays an owner");
    assert.equal(self.body.error.metadata.reason, "last_owner");
    const bad = await owner.request("PATCH", `/users/${created.body.data.id}`, { role: "admin" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.metadata.field, "role");
    // A change without a role is refused: it never falls back to the new user's default (owner).
    const empty = await owner.request("PATCH", `/users/${created.body.data.id}`, {});
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, "VALIDATION_ERROR");
    assert.equal(empty.body.error.metadata.field, "role");
    const unchanged = await owner.request("GET", "/users");
    assert.equal(unchanged.body.data.data.find((u: any) => u.id === created.body.data.id).role, "developer");
    const foreign = await dashboardUser(svc);
    const other = await owner.request(
      "PATCH",
      `/users/${(await foreign.request("GET", "/me")).body.data.user.id}`,
      {
        role: "finance",
      },
    );
    assert.equal(other.status, 404, "another merchant's user is not found");
  });

  it("lists the users as a paged list, oldest first, and refuses invalid paging with the field", async () => {
    const shop = await svc.newMerchant();
    const owner = await dashboardUser(svc, shop.merchantId);
    for (const role of ["developer", "finance"]) {
      const email = `${role}-paged-${process.pid}@shop.example`;
      const created = await owner.request("POST", "/users", { email, password: DASHBOARD_PASSWORD, role });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const all = await owner.request("GET", "/users");
    assert.equal(all.status, 200);
    const { data: users, ...totals } = all.body.data;
    assert.deepEqual(totals, { total: 3, page: 1, limit: 10, totalPages: 1 });
    const oldestFirst = [...users].sort(
      (a: any, b: any) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    );
    assert.deepEqual(users, oldestFirst, "oldest first, ties by id");
    assert.deepEqual(users.map((u: any) => u.role).sort(), ["developer", "finance", "owner"]);
    const second = await owner.request("GET", "/users?page=2&limit=1");
    assert.deepEqual(second.body.data, { data: [users[1]], total: 3, page: 2, limit: 1, totalPages: 3 });
    const past = await owner.request("GET", "/users?page=9&limit=2");
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.data, { data: [], total: 3, page: 9, limit: 2, totalPages: 2 });
    for (const [query, field] of [
      ["page=0", "page"],
      ["page=abc", "page"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["sortBy=email", "sortBy"],
    ] as const) {
      const refused = await owner.request("GET", `/users?${query}`);
      assert.equal(refused.status, 400, query);
      assert.equal(refused.body.error.code, "VALIDATION_ERROR", query);
      assert.equal(refused.body.error.metadata.field, field, query);
    }
  });

  it("takes effect on the user's next request, without a new login", async () => {
    const shop = await svc.newMerchant();
    const owner = await dashboardUser(svc, shop.merchantId);
    const developer = await dashboardUser(svc, shop.merchantId, "developer");
    assert.equal((await developer.request("POST", "/api-keys", {})).status, 201);
    const me = (await developer.request("GET", "/me")).body.data.user;
    assert.equal((await owner.request("PATCH", `/users/${me.id}`, { role: "finance" })).status, 200);
    assert.equal((await developer.request("POST", "/api-keys", {})).status, 403);
  });
});

describe("a merchant's audit log in the dashboard", () => {
  it("shows its users' actions and the operator's on its records, never another merchant's", async () => {
    const shop = await svc.newMerchant();
    const developer = await dashboardUser(svc, shop.merchantId, "developer");
    const key = await developer.request("POST", "/api-keys", { name: "Audited key" });
    await svc.admin("DELETE", `/admin/v1/integrations/${key.body.data.id}`);
    const outsider = await dashboardUser(svc);
    await outsider.request("POST", "/api-keys", {});

    const finance = await dashboardUser(svc, shop.merchantId, "finance");
    const log = await finance.request("GET", "/audit-log?limit=100");
    assert.equal(log.status, 200, JSON.stringify(log.body));
    const entries = log.body.data.data as any[];
    const created = entries.find((e) => e.action === "createApiKey");
    assert.equal(created.actorName, developer.email);
    assert.equal(created.actorKind, "dashboard_user");
    assert.equal(created.recordId, key.body.data.id);
    assert.equal(created.via, "dashboard");
    const revoked = entries.find((e) => e.action === "revokeIntegration");
    assert.equal(revoked.actorName, "admin-token");
    // The operator's network address is the operator's business: the merchant sees its users' only.
    assert.equal(revoked.clientAddress, null);
    assert.equal(typeof created.clientAddress, "string");
    const operatorView = await svc.admin(
      "GET",
      `/admin/v1/audit-log?action=revokeIntegration&recordId=${key.body.data.id}`,
    );
    assert.equal(
      typeof operatorView.body.data.data[0].clientAddress,
      "string",
      "the operator's own log keeps it",
    );
    assert.ok(entries.some((e) => e.action === "logIn" && e.actorName === finance.email));
    assert.ok(
      entries.every((e) => e.merchantId === shop.merchantId),
      "only this merchant's entries",
    );
    const filtered = await finance.request("GET", `/audit-log?actor=${encodeURIComponent(developer.email)}`);
    assert.ok(filtered.body.data.data.every((e: any) => e.actorName === developer.email));
    const refused = await finance.request("GET", `/audit-log?merchantId=${svc.credentials.merchantId}`);
    assert.equal(refused.status, 400, "the merchant is the session's, never a parameter");
  });

  it("names the merchant as the record of its test clock's reset", async () => {
    const shop = await svc.newMerchant();
    const owner = await dashboardUser(svc, shop.merchantId);
    assert.equal((await owner.request("POST", "/clock/reset", {})).status, 200);
    const log = await owner.request("GET", "/audit-log?limit=100");
    const reset = (log.body.data.data as any[]).find((e) => e.action === "resetClock");
    assert.equal(reset.recordType, "merchant");
    assert.equal(reset.recordId, shop.merchantId);
    assert.equal(reset.merchantId, shop.merchantId);
  });
});

describe("two-factor login", () => {
  // The service's wall clock stands still in the middle of a 30-second step, so "one step ahead"
  // and "two steps ahead" mean the same to the test and to the service: on the real clock, a step
  // that ends between computing a code and the service checking it moves the code one step nearer.
  const wall = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 15_000);
  let svc: TestService;
  before(async () => {
    svc = await startService({ env: { LOGIN_PER_ADDRESS_PER_MINUTE: "1000" }, deps: { wallClock: wall } });
  });
  after(async () => {
    await svc?.close();
  });
  const codeAt = (secret: string, steps = 0) => codeAtOf(secret, steps, wall);

  async function enrol(user: Awaited<ReturnType<typeof dashboardUser>>) {
    const started = await user.request("POST", "/two-factor/enrol");
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const { secret, otpauthUri, qrCode } = started.body.data;
    assert.match(otpauthUri, /^otpauth:\/\/totp\/Satang:/);
    assert.ok(otpauthUri.includes(`secret=${secret}`));
    assert.match(qrCode, /^data:image\/png;base64,/);
    return secret as string;
  }

  it("enrols with a confirming code, then needs the current code at login, once", async () => {
    const user = await dashboardUser(svc);
    const secret = await enrol(user);
    const wrong = await user.request("POST", "/two-factor/confirm", { otp: "000000" });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.metadata.field, "otp");
    const confirmed = await user.request("POST", "/two-factor/confirm", { otp: await codeAt(secret, -1) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.data.twoFactorEnabled, true);

    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    const missing = await login(svc, credentials);
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.code, "INVALID_CREDENTIALS");
    const empty = await login(svc, { ...credentials, otp: "" });
    assert.equal(empty.status, 401, "an empty code is a missing one");
    assert.equal(empty.body.error.message, missing.body.error.message);
    const wrongCode = await login(svc, { ...credentials, otp: "123456" });
    assert.equal(wrongCode.status, 401);
    assert.equal(wrongCode.body.error.message, missing.body.error.message, "one message for every refusal");
    assert.equal(
      (await login(svc, { ...credentials, otp: await codeAt(secret, 2) })).status,
      401,
      "two steps ahead",
    );
    const code = await codeAt(secret, 1);
    assert.equal((await login(svc, { ...credentials, otp: code })).status, 200);
    assert.equal((await login(svc, { ...credentials, otp: code })).status, 401, "a code logs in once");
  });

  it("replaces an enrolled authenticator only with its current code, used once", async () => {
    const user = await dashboardUser(svc);
    const old = await enrol(user);
    await user.request("POST", "/two-factor/confirm", { otp: await codeAt(old) });
    // A session alone cannot move the second factor.
    for (const body of [undefined, {}, { otp: "000000" }]) {
      const refused = await user.request("POST", "/two-factor/enrol", body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error.code, "VALIDATION_ERROR");
      assert.equal(refused.body.error.metadata.field, "otp");
    }
    const current = await codeAt(old, 1);
    const started = await user.request("POST", "/two-factor/enrol", { otp: current });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const again = await user.request("POST", "/two-factor/enrol", { otp: current });
    assert.equal(again.status, 400, "the code is used once");
    const fresh = started.body.data.secret as string;
    assert.notEqual(fresh, old);
    const confirmed = await user.request("POST", "/two-factor/confirm", { otp: await codeAt(fresh) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    assert.equal((await login(svc, { ...credentials, otp: await codeAt(old, -1) })).status, 401);
    assert.equal((await login(svc, { ...credentials, otp: await codeAt(fresh, 1) })).status, 200);
  });

  it("counts the codes a session sends to replace the authenticator towards the lockout", async () => {
    const user = await dashboardUser(svc);
    const secret = await enrol(user);
    await user.request("POST", "/two-factor/confirm", { otp: await codeAt(secret) });
    // A missing code is no guess; five wrong ones are five failures of the user's email.
    assert.equal((await user.request("POST", "/two-factor/enrol", {})).status, 400);
    for (const otp of ["999999", "000000", "123456", "654321", "111111"]) {
      const refused = await user.request("POST", "/two-factor/enrol", { otp });
      assert.equal(refused.status, 400, otp);
      assert.equal(refused.body.error.metadata.field, "otp");
    }
    const locked = await user.request("POST", "/two-factor/enrol", { otp: await codeAt(secret, 1) });
    assert.equal(locked.status, 429, "the sixth code is refused, even the right one");
    assert.equal(locked.body.error.code, "RATE_LIMIT_EXCEEDED");
    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    assert.equal(
      (await login(svc, { ...credentials, otp: await codeAt(secret, 1) })).status,
      429,
      "the login of that email is locked out too: one count for the one secret",
    );
  });

  it("lets a user without two-factor log in with an empty or any code, which is not read", async () => {
    const user = await dashboardUser(svc);
    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    for (const otp of ["", "123456"])
      assert.equal((await login(svc, { ...credentials, otp })).status, 200, otp);
  });

  it("counts missing and wrong codes towards the lockout", async () => {
    const user = await dashboardUser(svc);
    const secret = await enrol(user);
    await user.request("POST", "/two-factor/confirm", { otp: await codeAt(secret) });
    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    // Empty, wrong, too long (a code of 17 digits is a wrong code, not a malformed body).
    const codes = ["", "999999", "1".repeat(17), "abcdef", "999999"];
    for (const otp of codes) assert.equal((await login(svc, { ...credentials, otp })).status, 401, otp);
    const locked = await login(svc, { ...credentials, otp: await codeAt(secret, 1) });
    assert.equal(locked.status, 429, "the sixth attempt is locked out, even with the right code");
  });

  it("is reset by the operator when the authenticator is lost", async () => {
    const user = await dashboardUser(svc);
    const secret = await enrol(user);
    await user.request("POST", "/two-factor/confirm", { otp: await codeAt(secret) });
    const me = (await user.request("GET", "/me")).body.data.user;
    // Another user of the merchant keeps their session.
    const colleague = await dashboardUser(svc);
    const reset = await svc.admin("POST", `/admin/v1/users/${me.id}/two-factor/reset`);
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(reset.body.data.twoFactorEnabled, false);
    // The lost device's session ended with the reset.
    const stale = await user.request("GET", "/me");
    assert.equal(stale.status, 401, JSON.stringify(stale.body));
    assert.equal((await colleague.request("GET", "/me")).status, 200);
    assert.equal((await login(svc, { email: user.email, password: DASHBOARD_PASSWORD })).status, 200);
    const entries = await svc.admin("GET", `/admin/v1/audit-log?action=resetTwoFactor&recordId=${me.id}`);
    assert.equal(entries.body.data.total, 1);
    const unknown = await svc.admin(
      "POST",
      "/admin/v1/users/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84/two-factor/reset",
    );
    assert.equal(unknown.status, 404);
  });

  it("lets the user in with the password after the operator's reset, though the lost codes had locked the email out", async () => {
    const user = await dashboardUser(svc);
    const secret = await enrol(user);
    await user.request("POST", "/two-factor/confirm", { otp: await codeAt(secret) });
    const me = (await user.request("GET", "/me")).body.data.user;
    const credentials = { email: user.email, password: DASHBOARD_PASSWORD };
    for (const otp of ["", "999999", "000000", "123456", "654321"]) {
      assert.equal((await login(svc, { ...credentials, otp })).status, 401, otp);
    }
    assert.equal((await login(svc, credentials)).status, 429, "locked out before the reset");
    // Another email's failures are not the reset's to forget.
    const other = await dashboardUser(svc);
    const otherCredentials = { email: other.email, password: "not the password" };
    for (let i = 0; i < 5; i++) assert.equal((await login(svc, otherCredentials)).status, 401);
    const reset = await svc.admin("POST", `/admin/v1/users/${me.id}/two-factor/reset`);
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const after = await login(svc, credentials);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(
      (await login(svc, { email: other.email, password: DASHBOARD_PASSWORD })).status,
      429,
      "the other email is still locked out",
    );
  });
});

describe("two-factor login in live", () => {
  let live: TestService;
  before(async () => {
    live = await startService({
      env: { ...LIVE_PROVIDER_ENV, SATANG_ENV: "live", SECRET_KEY: "cd".repeat(32) },
    });
  });
  after(async () => {
    await live?.close();
  });

  it("lets an owner do nothing but enrol until enrolled; other roles are not held", async () => {
    const shop = await live.newMerchant();
    const owner = await dashboardUser(live, shop.merchantId);
    const me = await owner.request("GET", "/me");
    assert.equal(me.status, 200);
    assert.equal(me.body.data.twoFactorRequired, true);
    for (const [method, path] of [
      ["GET", "/payments"],
      ["GET", "/balance"],
      ["POST", "/api-keys"],
    ] as const) {
      const res = await owner.request(method, path, method === "POST" ? {} : undefined);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.metadata.reason, "two_factor_enrolment_required");
    }
    const started = await owner.request("POST", "/two-factor/enrol");
    const secret = started.body.data.secret as string;
    assert.equal(
      (await owner.request("POST", "/two-factor/confirm", { otp: await codeAtOf(secret) })).status,
      200,
    );
    assert.equal((await owner.request("GET", "/payments")).status, 200, "enrolled: the dashboard opens");
    assert.equal((await owner.request("GET", "/me")).body.data.twoFactorRequired, false);

    const { email } = await createDashboardUser(live, shop.merchantId, undefined, "finance");
    const finance = await login(live, { email, password: DASHBOARD_PASSWORD });
    assert.equal(finance.status, 200);
    const res = await live.app.inject({
      method: "GET",
      url: "/dashboard/api/payments",
      headers: { authorization: `Bearer ${finance.body.data.token}` },
    });
    assert.equal(res.statusCode, 200, "only owners must enrol");
  });

  it("makes a new API key only for a user with two-factor login, a developer too", async () => {
    const shop = await live.newMerchant();
    const developer = await dashboardUser(live, shop.merchantId, "developer");
    assert.equal((await developer.request("GET", "/me")).body.data.twoFactorRequired, false);
    const before = await developer.request("GET", "/api-keys");
    assert.equal(before.status, 200, "reads are not held");
    const endpoint = await developer.request("POST", "/webhook-endpoints", {
      url: "https://8.8.8.8/hooks",
      events: ["payment.received"],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    // A key carries the merchant's whole API: a password alone does not mint one in live.
    const refused = await developer.request("POST", "/api-keys", { name: "ci" });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "FORBIDDEN");
    assert.equal(refused.body.error.metadata.reason, "two_factor_enrolment_required");
    const keys = await developer.request("GET", "/api-keys");
    assert.equal(keys.body.data.total, before.body.data.total, "nothing was made");

    const started = await developer.request("POST", "/two-factor/enrol");
    const secret = started.body.data.secret as string;
    assert.equal(
      (await developer.request("POST", "/two-factor/confirm", { otp: await codeAtOf(secret) })).status,
      200,
    );
    // Enrolled in a session signed in with the password alone: whoever holds that session (or
    // the password) could have enrolled an authenticator of their own in it, so it still makes
    // no key; a session signed in with the code does.
    const sameSession = await developer.request("POST", "/api-keys", { name: "ci" });
    assert.equal(sameSession.status, 403, JSON.stringify(sameSession.body));
    assert.equal(sameSession.body.error.metadata.reason, "two_factor_login_required");
    assert.match(sameSession.body.error.message, /sign in again with your authenticator's code/);
    assert.equal((await developer.request("GET", "/api-keys")).body.data.total, before.body.data.total);
    const signedIn = await login(live, {
      email: developer.email,
      password: DASHBOARD_PASSWORD,
      otp: await codeAtOf(secret, 1),
    });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const created = await live.app.inject({
      method: "POST",
      url: "/dashboard/api/api-keys",
      payload: JSON.stringify({ name: "ci" }),
      headers: { authorization: `Bearer ${signedIn.body.data.token}`, "content-type": "application/json" },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  it("keeps an owner's session signed in before enrolment from making a key, but opens the dashboard to it", async () => {
    const shop = await live.newMerchant();
    const owner = await dashboardUser(live, shop.merchantId);
    const started = await owner.request("POST", "/two-factor/enrol");
    const secret = started.body.data.secret as string;
    assert.equal(
      (await owner.request("POST", "/two-factor/confirm", { otp: await codeAtOf(secret) })).status,
      200,
    );
    assert.equal((await owner.request("GET", "/payments")).status, 200);
    const refused = await owner.request("POST", "/api-keys", { name: "ci" });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.metadata.reason, "two_factor_login_required");
  });
});
