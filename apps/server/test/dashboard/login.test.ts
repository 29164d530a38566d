/**
 * Dashboard users and login (CONTRACT 13): the operator creates users, a user logs in for a
 * 12-hour session, logout revokes it, and failed logins lock an email out for 15 minutes. The
 * lockout is counted in the database, so two app instances over one database share it. The
 * wall clock is injected, so the 15 minutes and the 12 hours pass without waiting.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { passwordVerifications } from "../../src/dashboard/passwords.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { runSatangCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

const PASSWORD = "correct horse battery";
const MINUTE_MS = 60_000;

let svc: TestService;
let wall: ManualClock;
let counter = 0;

before(async () => {
  wall = new ManualClock(Date.now());
  // These tests log in far more than 20 times a minute from one address: the per-address
  // limit has its own tests (login-limits.test.ts).
  svc = await startService({
    deps: { wallClock: wall },
    config: { login: { perAddressPerMinute: 1_000_000, hashesMax: 2, queueMax: 16 } },
  });
});
after(async () => {
  await svc.close();
});

function uniqueEmail(prefix = "user"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}@shop.example`;
}

async function createUser(email: string, merchantId = svc.credentials.merchantId, password = PASSWORD) {
  return svc.admin("POST", `/admin/v1/merchants/${merchantId}/users`, { email, password });
}

async function login(email: string, password: string, app: FastifyInstance = svc.app) {
  const raw = await app.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    payload: JSON.stringify({ email, password }),
    headers: { "content-type": "application/json" },
  });
  return { status: raw.statusCode, body: raw.json(), headers: raw.headers };
}

async function me(token: string) {
  const raw = await svc.app.inject({
    method: "GET",
    url: "/dashboard/api/me",
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: raw.statusCode, body: raw.json() };
}

describe("POST /admin/v1/merchants/{id}/users", () => {
  it("creates a user (201) with id, merchantId, email, role (owner by default), two-factor state and createdAt, never the password", async () => {
    const email = uniqueEmail("Owner");
    const res = await createUser(email);
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.deepEqual(Object.keys(res.body.data).sort(), [
      "createdAt",
      "email",
      "id",
      "merchantId",
      "role",
      "twoFactorEnabled",
    ]);
    assert.equal(res.body.data.role, "owner");
    assert.equal(res.body.data.twoFactorEnabled, false);
    assert.equal(res.body.data.email, email);
    assert.equal(res.body.data.merchantId, svc.credentials.merchantId);
    assert.match(res.body.data.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const row = await svc.deps.db
      .selectFrom("dashboard_users")
      .selectAll()
      .where("id", "=", res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$v=19\$/);
    assert.ok(!row.password_hash.includes(PASSWORD));
  });

  it("refuses an email already taken in another case with 409 STATE_CONFLICT", async () => {
    const email = uniqueEmail("dup");
    assert.equal((await createUser(email)).status, 201);
    const other = await svc.newMerchant();
    const res = await createUser(email.toUpperCase(), other.merchantId);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "STATE_CONFLICT");
    assert.equal(res.body.error.metadata.field, "email");
  });

  it("refuses a password shorter than 12 characters, and a malformed email, naming the field", async () => {
    const short = await createUser(uniqueEmail(), svc.credentials.merchantId, "elevenchars");
    assert.equal(short.status, 400);
    assert.equal(short.body.error.code, "VALIDATION_ERROR");
    assert.equal(short.body.error.metadata.field, "password");
    const exactly12 = await createUser(uniqueEmail(), svc.credentials.merchantId, "twelve chars");
    assert.equal(exactly12.status, 201);
    const badEmail = await createUser("not-an-email");
    assert.equal(badEmail.status, 400);
    assert.equal(badEmail.body.error.metadata.field, "email");
    const extra = await svc.admin("POST", `/admin/v1/merchants/${svc.credentials.merchantId}/users`, {
      email: uniqueEmail(),
      password: PASSWORD,
      merchantId: svc.credentials.merchantId,
    });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "merchantId");
  });

  it("answers 404 for an unknown merchant and 401 without the admin token", async () => {
    const missing = await createUser(uniqueEmail(), "00000000-0000-4000-8000-000000000000");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "RESOURCE_NOT_FOUND");
    const unauthorized = await svc.admin(
      "POST",
      `/admin/v1/merchants/${svc.credentials.merchantId}/users`,
      { email: uniqueEmail(), password: PASSWORD },
      "wrong-token",
    );
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.body.error.code, "INVALID_CREDENTIALS");
  });
});

describe("POST /api/v1/auth/login", () => {
  it("answers 200 { token, expiresAt, user } with a 12-hour session, without any HMAC header", async () => {
    const email = uniqueEmail();
    const user = (await createUser(email)).body.data;
    const res = await login(email.toUpperCase(), PASSWORD);
    assert.equal(res.status, 200);
    assert.equal(res.headers["cache-control"], "no-store");
    assert.deepEqual(Object.keys(res.body.data).sort(), ["expiresAt", "token", "user"]);
    assert.deepEqual(res.body.data.user, user);
    assert.equal(Date.parse(res.body.data.expiresAt), wall.now().getTime() + 12 * 60 * MINUTE_MS);
    // 32 random bytes, base64url: 43 characters.
    assert.match(res.body.data.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal((await me(res.body.data.token)).status, 200);
  });

  it("stores only the SHA-256 of the session token", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const { token } = (await login(email, PASSWORD)).body.data;
    const rows = await svc.deps.db.selectFrom("dashboard_sessions").select("token_sha256").execute();
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update(token).digest("hex");
    assert.ok(rows.some((row) => row.token_sha256 === hash));
    assert.ok(rows.every((row) => row.token_sha256 !== token));
  });

  it("answers a wrong password and an unknown email with the same 401 INVALID_CREDENTIALS", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const wrong = await login(email, "not the password at all");
    const unknown = await login(uniqueEmail("nobody"), PASSWORD);
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.equal(wrong.body.error.code, "INVALID_CREDENTIALS");
    assert.equal(wrong.body.error.message, "Invalid email or password");
  });

  it("runs one argon2 verification for an unknown email, as for a wrong password (a dummy hash)", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const before = passwordVerifications();
    assert.equal((await login(email, "a wrong password")).status, 401);
    assert.equal(passwordVerifications(), before + 1);
    assert.equal((await login(uniqueEmail("nobody"), "a wrong password")).status, 401);
    assert.equal(passwordVerifications(), before + 2);
  });

  it("is not inside the HMAC scope: HMAC headers are neither needed nor looked at", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const signed = await svc.request("POST", "/api/v1/auth/login", { email, password: PASSWORD });
    assert.equal(signed.status, 200);
    const bogusHeaders = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: JSON.stringify({ email, password: PASSWORD }),
      headers: {
        "content-type": "application/json",
        "x-api-key": "sk_test_nope",
        "x-signature": "sha256=00",
      },
    });
    assert.equal(bogusHeaders.statusCode, 200);
    // The HMAC scope still guards its own routes.
    const unsigned = await svc.app.inject({ method: "GET", url: "/api/v1/balance" });
    assert.equal(unsigned.statusCode, 401);
  });

  it("validates the body: missing fields, unknown fields and non-JSON are 400 VALIDATION_ERROR", async () => {
    const missing = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: JSON.stringify({ email: "a@b.example" }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error.metadata.field, "password");
    const extra = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: JSON.stringify({ email: "a@b.example", password: "x", remember: true }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(extra.statusCode, 400);
    assert.equal(extra.json().error.metadata.field, "remember");
    const notJson = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: "{",
      headers: { "content-type": "application/json" },
    });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().error.code, "VALIDATION_ERROR");
  });

  it("refuses the correct password of a disabled merchant with 401 AUTHENTICATION_ERROR", async () => {
    const other = await svc.newMerchant();
    const email = uniqueEmail();
    await createUser(email, other.merchantId);
    const { token } = (await login(email, PASSWORD)).body.data;
    await svc.admin("PATCH", `/admin/v1/merchants/${other.merchantId}`, { status: "disabled" });
    const refused = await login(email, PASSWORD);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "AUTHENTICATION_ERROR");
    const existing = await me(token);
    assert.equal(existing.status, 401);
    assert.equal(existing.body.error.code, "AUTHENTICATION_ERROR");
  });
});

describe("login lockout: 5 failures in 15 minutes for one email", () => {
  it("answers the 5th failure 401 and the 6th attempt 429 with metadata, even with the right password", async () => {
    const email = uniqueEmail();
    await createUser(email);
    for (let attempt = 1; attempt <= 5; attempt++) {
      // An empty password is a wrong one: 401 and counted, not a 400 that escapes the count.
      const res = await login(email, attempt === 1 ? "" : `wrong password ${attempt}`);
      assert.equal(res.status, 401, `attempt ${attempt}`);
      assert.equal(res.body.error.code, "INVALID_CREDENTIALS");
    }
    const locked = await login(email, PASSWORD);
    assert.equal(locked.status, 429);
    assert.equal(locked.body.error.code, "RATE_LIMIT_EXCEEDED");
    const { metadata } = locked.body.error;
    assert.deepEqual(Object.keys(metadata).sort(), ["limit", "remaining", "resetAt", "retryAfter"]);
    assert.equal(metadata.limit, 5);
    assert.equal(metadata.remaining, 0);
    assert.equal(Date.parse(metadata.resetAt), wall.now().getTime() + 15 * MINUTE_MS);
    assert.equal(metadata.retryAfter, 15 * 60);
    assert.equal(locked.headers["retry-after"], String(15 * 60));
    // The email is locked whatever its case; other emails are not.
    assert.equal((await login(email.toUpperCase(), PASSWORD)).status, 429);
    const neighbour = uniqueEmail();
    await createUser(neighbour);
    assert.equal((await login(neighbour, PASSWORD)).status, 200);
  });

  it("allows the email again once its failures are 15 minutes old (wall clock)", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const start = wall.now().getTime();
    for (let attempt = 0; attempt < 5; attempt++) {
      assert.equal((await login(email, "wrong password")).status, 401);
      wall.advance(MINUTE_MS);
    }
    // Now 5 minutes after the first failure: still locked, until the first one is 15 minutes old.
    wall.set(start + 15 * MINUTE_MS - 1);
    const locked = await login(email, PASSWORD);
    assert.equal(locked.status, 429);
    assert.equal(Date.parse(locked.body.error.metadata.resetAt), start + 15 * MINUTE_MS);
    assert.equal(locked.body.error.metadata.retryAfter, 1);
    wall.set(start + 15 * MINUTE_MS);
    assert.equal((await login(email, PASSWORD)).status, 200);
    // Four failures still count (minutes 1 to 4): one more failure locks the email again.
    assert.equal((await login(email, "wrong again")).status, 401);
    assert.equal((await login(email, PASSWORD)).status, 429);
  });

  it("does not count a successful login as a failure", async () => {
    const email = uniqueEmail();
    await createUser(email);
    for (let attempt = 0; attempt < 4; attempt++) assert.equal((await login(email, "nope nope")).status, 401);
    for (let attempt = 0; attempt < 3; attempt++) assert.equal((await login(email, PASSWORD)).status, 200);
    assert.equal((await login(email, "nope nope")).status, 401);
    assert.equal((await login(email, PASSWORD)).status, 429);
  });

  it("locks unknown emails the same way, so the lockout tells nothing about accounts", async () => {
    const email = uniqueEmail("ghost");
    for (let attempt = 0; attempt < 5; attempt++)
      assert.equal((await login(email, "guess guess")).status, 401);
    assert.equal((await login(email, "guess guess")).status, 429);
  });

  it("is shared by two app instances over one database, as two processes would be", async () => {
    const second = await buildApp(svc.deps);
    await second.ready();
    try {
      const email = uniqueEmail();
      await createUser(email);
      for (let attempt = 0; attempt < 5; attempt++) {
        const app = attempt % 2 === 0 ? svc.app : second;
        assert.equal((await login(email, "wrong wrong", app)).status, 401);
      }
      assert.equal((await login(email, PASSWORD, second)).status, 429);
      assert.equal((await login(email, PASSWORD, svc.app)).status, 429);
    } finally {
      await second.close();
    }
  });

  it("counts concurrent attempts before checking any, so a burst gets no more than 5 guesses", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, attempt) => login(email, `parallel guess ${attempt}`)),
    );
    const statuses = results.map((res) => res.status).sort();
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
  });
});

describe("sessions", () => {
  it("expire 12 hours after login (wall clock), and the sandbox test clock does not extend them", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const { token, expiresAt } = (await login(email, PASSWORD)).body.data;
    svc.clock.advance(-24 * 60 * MINUTE_MS);
    wall.set(Date.parse(expiresAt) - 1);
    assert.equal((await me(token)).status, 200);
    wall.set(Date.parse(expiresAt));
    const expired = await me(token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.code, "INVALID_CREDENTIALS");
    svc.clock.advance(24 * 60 * MINUTE_MS);
  });

  it("end at once on logout; the token is refused afterwards, other sessions live on", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const first = (await login(email, PASSWORD)).body.data.token;
    const second = (await login(email, PASSWORD)).body.data.token;
    const logout = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/logout",
      headers: { authorization: `Bearer ${first}` },
    });
    assert.equal(logout.statusCode, 200);
    assert.deepEqual(logout.json(), { success: true, data: { loggedOut: true } });
    assert.equal((await me(first)).status, 401);
    assert.equal((await me(second)).status, 200);
    const again = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/logout",
      headers: { authorization: `Bearer ${first}` },
    });
    assert.equal(again.statusCode, 401);
  });

  it("refuse missing, malformed and unknown tokens with 401 INVALID_CREDENTIALS", async () => {
    for (const authorization of [undefined, "Bearer", "Basic abc", "Bearer not-a-real-token"]) {
      const raw = await svc.app.inject({
        method: "GET",
        url: "/dashboard/api/me",
        headers: authorization ? { authorization } : {},
      });
      assert.equal(raw.statusCode, 401, String(authorization));
      assert.equal(raw.json().error.code, "INVALID_CREDENTIALS");
    }
  });

  it("are not API credentials: a session token does not open the HMAC API", async () => {
    const email = uniqueEmail();
    await createUser(email);
    const { token } = (await login(email, PASSWORD)).body.data;
    const raw = await svc.app.inject({
      method: "GET",
      url: "/api/v1/payments",
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(raw.statusCode, 401);
  });
});

describe("satang user create", () => {
  it("creates a dashboard user through the operator API and prints it; --json prints the record", async () => {
    const cliSvc = await startService();
    await cliSvc.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(cliSvc.app.server.address() as AddressInfo).port}`;
    try {
      const run = (args: string[]) => satang([...args, "--url", url, "--token", ADMIN_TOKEN]);
      const email = uniqueEmail("cli");
      const created = await run([
        "user",
        "create",
        "--merchant",
        cliSvc.credentials.merchantId,
        "--email",
        email,
        "--password",
        PASSWORD,
      ]);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, new RegExp(`Created dashboard user ${email.replace(/[.]/g, "\\.")}`));
      const json = await run([
        "user",
        "create",
        "--merchant",
        cliSvc.credentials.merchantId,
        "--email",
        uniqueEmail("cli"),
        "--password",
        PASSWORD,
        "--json",
      ]);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).merchantId, cliSvc.credentials.merchantId);
      const logged = await cliSvc.app.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: JSON.stringify({ email, password: PASSWORD }),
        headers: { "content-type": "application/json" },
      });
      assert.equal(logged.statusCode, 200);

      const short = await run([
        "user",
        "create",
        "--merchant",
        cliSvc.credentials.merchantId,
        "--email",
        uniqueEmail("cli"),
        "--password",
        "short",
      ]);
      assert.equal(short.code, 1);
      assert.match(short.stderr, /VALIDATION_ERROR.*field: password/);
      const usage = await run(["user", "create", "--merchant", cliSvc.credentials.merchantId]);
      assert.equal(usage.code, 2);
    } finally {
      await cliSvc.close();
    }
  });
});

const satang = (args: string[]) => runSatangCli(args);
