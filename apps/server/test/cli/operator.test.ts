/**
 * The `satang` CLI against a server listening in this test process. The operator commands run
 * through `runCli`, the function the `satang` entry point hands its argv, environment and
 * output to, so each case costs a request and not a Node.js start; the launcher (bin/satang.js),
 * `serve` and `migrate` run as separate processes, the way an operator runs them.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { generate } from "otplib";
import { runSatangCli } from "../helpers/cli.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { satangArgv } from "../helpers/processes.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

const SERVER_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

const directories: string[] = [];
function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "satang-cli-"));
  directories.push(dir);
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a command sees: nothing of the test process's own configuration leaks in, and
 * DATA_DIR points at an empty directory unless the test says otherwise.
 */
function cleanEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: emptyDataDir, ...env };
}

/** Runs one operator command in this process, as the entry point would. */
function satang(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runSatangCli(args, { DATA_DIR: emptyDataDir, ...env });
}

/** Runs the CLI as a separate process through `entry`. */
function satangProcess(
  args: string[],
  env: Record<string, string> = {},
  entry = "src/main.ts",
): Promise<Run> {
  const argv =
    entry === "src/main.ts"
      ? satangArgv(args)
      : entry.endsWith(".ts")
        ? ["--import", "tsx", entry, ...args]
        : [entry, ...args];
  const child = spawn(process.execPath, argv, { cwd: SERVER_ROOT, env: cleanEnv(env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let emptyDataDir = "";
after(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

describe("satang operator commands", () => {
  let svc: TestService;
  let url = "";
  let target: string[] = [];

  before(async () => {
    emptyDataDir = temporaryDir();
    svc = await startService();
    await svc.app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
    target = ["--url", url, "--token", ADMIN_TOKEN];
  });
  after(async () => {
    await svc?.close();
  });

  it("creates, shows and updates a merchant, printing JSON with --json", async () => {
    const created = await satang([
      "merchant",
      "create",
      "--name",
      "CLI Shop",
      "--promptpay-id",
      "0898765432",
      "--no-promptpay-reuse",
      "--daily-limit",
      "500000",
      "--monthly-limit",
      "none",
      "--settlement-delay-hours",
      "12",
      "--collection-bank-code",
      "004",
      "--collection-account-number",
      "123-456-7890",
      "--collection-account-name",
      "CLI Shop Ltd.",
      "--json",
      ...target,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const merchant = JSON.parse(created.stdout);
    assert.equal(merchant.name, "CLI Shop");
    assert.equal(merchant.promptpayId, "0898765432");
    assert.equal(merchant.promptpayReuse, false);
    assert.equal(merchant.dailyWithdrawLimit, "500000.00");
    assert.equal(merchant.monthlyWithdrawLimit, null);
    assert.equal(merchant.settlementDelayHours, 12);
    assert.deepEqual(merchant.collectionAccount, {
      bankCode: "004",
      accountNumber: "1234567890",
      accountName: "CLI Shop Ltd.",
    });

    const [got, friendly] = await Promise.all([
      satang(["merchant", "get", merchant.id, "--json", ...target]),
      satang(["merchant", "get", merchant.id, ...target]),
    ]);
    const updated = await satang([
      "merchant",
      "update",
      merchant.id,
      "--daily-limit",
      "none",
      "--wallet-status",
      "frozen",
      "--verification-threshold",
      "100000.00",
      "--promptpay-reuse",
      "--json",
      ...target,
    ]);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).id, merchant.id);
    assert.equal(updated.code, 0, updated.stderr);
    const changed = JSON.parse(updated.stdout);
    assert.equal(changed.dailyWithdrawLimit, null);
    assert.equal(changed.walletStatus, "frozen");
    assert.equal(changed.withdrawVerificationThreshold, "100000.00");
    assert.equal(changed.promptpayReuse, true);
    assert.equal(friendly.code, 0, friendly.stderr);
    assert.match(friendly.stdout, /Merchant [0-9a-f-]{36} "CLI Shop"/);
    assert.match(friendly.stdout, /collection account\s+004 KBANK 1234567890 \(CLI Shop Ltd\.\)/);
    assert.match(friendly.stdout, /daily limit\s+500000\.00 satang \(5000\.00 THB\)/);

    const disabled = await satang([
      "merchant",
      "update",
      merchant.id,
      "--status",
      "disabled",
      "--json",
      ...target,
    ]);
    assert.equal(JSON.parse(disabled.stdout).status, "disabled");

    // A pin is sent as `provider`: this sandbox has no live connector, so a name is refused and
    // `none` (null) is accepted.
    const pinned = await satang([
      "merchant",
      "update",
      merchant.id,
      "--provider",
      "opn",
      "--json",
      ...target,
    ]);
    assert.equal(pinned.code, 1, pinned.stderr);
    assert.equal(JSON.parse(pinned.stdout).error.metadata.field, "provider");
    const unpinned = await satang([
      "merchant",
      "update",
      merchant.id,
      "--provider",
      "none",
      "--json",
      ...target,
    ]);
    assert.equal(unpinned.code, 0, unpinned.stderr);
    assert.equal(JSON.parse(unpinned.stdout).provider, null);
  });

  it("creates, lists and revokes integrations, showing the secret once with a warning", async () => {
    const merchantId = svc.credentials.merchantId;
    const json = await satang([
      "integration",
      "create",
      "--merchant",
      merchantId,
      "--name",
      "Checkout",
      "--redirect-url",
      "https://shop.example/done",
      "--require-v2",
      "--json",
      ...target,
    ]);
    assert.equal(json.code, 0, json.stderr);
    const created = JSON.parse(json.stdout);
    assert.match(created.apiKey, /^sk_test_/);
    assert.match(created.apiSecret, /^sec_/);
    assert.equal(created.requireSignatureV2, true);
    assert.equal(created.redirectUrl, "https://shop.example/done");

    const friendly = await satang(["integration", "create", "--merchant", merchantId, ...target]);
    assert.equal(friendly.code, 0, friendly.stderr);
    assert.match(friendly.stdout, /API secret\s+sec_/);
    assert.match(friendly.stdout, /shown once/);

    const list = await satang(["integration", "list", "--merchant", merchantId, "--json", ...target]);
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout);
    assert.ok(listed.total >= 3);
    assert.ok(!list.stdout.includes(created.apiSecret), "a list never carries secrets");

    const relaxed = await satang([
      "integration",
      "update",
      created.id,
      "--allow-v1",
      "--name",
      "POS",
      "--json",
      ...target,
    ]);
    assert.equal(relaxed.code, 0, relaxed.stderr);
    assert.equal(JSON.parse(relaxed.stdout).requireSignatureV2, false);
    assert.equal(JSON.parse(relaxed.stdout).name, "POS");
    const strict = await satang([
      "integration",
      "update",
      created.id,
      "--require-v2",
      "--clear-redirect-url",
      ...target,
    ]);
    assert.equal(strict.code, 0, strict.stderr);
    assert.match(strict.stdout, /v2 required/);
    const nothing = await satang(["integration", "update", created.id, ...target]);
    assert.notEqual(nothing.code, 0);
    assert.match(nothing.stderr, /nothing to change/);
    const both = await satang(["integration", "update", created.id, "--require-v2", "--allow-v1", ...target]);
    assert.notEqual(both.code, 0);

    const revoked = await satang(["integration", "revoke", created.id, "--json", ...target]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.ok(JSON.parse(revoked.stdout).revokedAt);
    const text = await satang(["integration", "revoke", created.id, ...target]);
    assert.match(text.stdout, /no longer authenticates/);
  });

  it("moves a merchant's test clock forward and back with the operator token", async () => {
    const merchantId = svc.credentials.merchantId;
    const advanced = await satang(["merchant", "clock", "advance", merchantId, "3600", ...target]);
    assert.equal(advanced.code, 0, advanced.stderr);
    assert.match(
      advanced.stdout,
      new RegExp(`Test clock of merchant ${merchantId}: \\S+ \\(1 hour ahead of real time`),
    );
    const clock = (await svc.request("GET", "/api/v1/sandbox/clock")).body.data;
    assert.ok(clock.offsetSeconds >= 3600, JSON.stringify(clock));
    const reset = await satang(["merchant", "clock", "reset", merchantId, "--json", ...target]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal(JSON.parse(reset.stdout).offsetSeconds, 0);
    assert.equal((await svc.request("GET", "/api/v1/sandbox/clock")).body.data.offsetSeconds, 0);
    // Whole seconds the API takes, or a usage error before anything is sent.
    for (const bad of ["0", "1.5", "-5", "31622401"]) {
      const refused = await satang(["merchant", "clock", "advance", merchantId, bad, ...target]);
      assert.equal(refused.code, 2, `${bad}: ${refused.stderr}`);
    }
    const missing = await satang(["merchant", "clock", "reset", MISSING_ID, ...target]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RESOURCE_NOT_FOUND/);
  });

  it("resets a user's two-factor login: the password alone signs in again", async () => {
    const user = await dashboardUser(svc);
    const userId = (await user.request("GET", "/me")).body.data.user.id as string;
    const enrol = await user.request("POST", "/two-factor/enrol", {});
    const secret = enrol.body.data.secret as string;
    const confirmed = await user.request("POST", "/two-factor/confirm", { otp: await generate({ secret }) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const login = (otp?: string) =>
      svc.app.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ email: user.email, password: user.password, ...(otp ? { otp } : {}) }),
      });
    assert.equal((await login()).statusCode, 401, "enrolled: the password alone is not enough");
    const reset = await satang(["user", "reset-two-factor", userId, ...target]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, new RegExp(`Two-factor login of ${user.email} \\(${userId}\\) is reset`));
    assert.equal((await user.request("GET", "/me")).status, 401, "the user's sessions ended");
    assert.equal((await login()).statusCode, 200);
    const missing = await satang(["user", "reset-two-factor", MISSING_ID, "--json", ...target]);
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.stdout).error.code, "RESOURCE_NOT_FOUND");
  });

  it("exits 1 with the API's code and message when the server refuses", async () => {
    const [missing, wrongToken, badAmount, badAmountJson] = await Promise.all([
      satang(["merchant", "get", MISSING_ID, ...target]),
      satang(["merchant", "get", MISSING_ID, "--url", url, "--token", "not-the-token-at-all"]),
      satang(["merchant", "create", "--name", "X", "--daily-limit", "10.50", ...target]),
      satang(["merchant", "create", "--name", "X", "--daily-limit", "10.50", "--json", ...target]),
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /RESOURCE_NOT_FOUND/);
    assert.equal(wrongToken.code, 1);
    assert.match(wrongToken.stderr, /INVALID_CREDENTIALS/);
    assert.match(wrongToken.stderr, /admin token/);
    assert.equal(badAmount.code, 1);
    assert.match(badAmount.stderr, /INVALID_AMOUNT.*field: dailyWithdrawLimit/);
    assert.equal(badAmountJson.code, 1);
    assert.equal(JSON.parse(badAmountJson.stdout).error.code, "INVALID_AMOUNT");
  });

  it("exits 3 with a hint to start the server when nothing listens", async () => {
    const port = await freePort();
    const run = await satang([
      "merchant",
      "get",
      MISSING_ID,
      "--url",
      `http://127.0.0.1:${port}`,
      "--token",
      "x",
    ]);
    assert.equal(run.code, 3);
    assert.match(run.stderr, /Cannot reach the Satang server at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(run.stderr, /npm start/);
    assert.match(run.stderr, /that is the address given with --url/);
    const fromEnv = await satang(["merchant", "get", MISSING_ID], { PORT: String(port), ADMIN_TOKEN: "x" });
    assert.equal(fromEnv.code, 3, "HOST and PORT name the server when --url and SATANG_URL are absent");
    // A developer who did not know about SATANG_URL learns that the CLI used its default.
    assert.match(fromEnv.stderr, /the default http:\/\/HOST:PORT .*because SATANG_URL is not set/);
    assert.match(fromEnv.stderr, /set SATANG_URL to the server's address/);
  });

  it("exits 2 on usage and configuration errors", async () => {
    const runs = await Promise.all([
      satang(["merchant", "create", ...target]),
      satang(["merchant", "create", "--name", "X", "--collection-bank-code", "014", ...target]),
      satang(["merchant", "create", "--name", "X", "--settlement-delay-hours", "soon", ...target]),
      satang(["merchant", "update", MISSING_ID, "--wallet-status", "paused", ...target]),
      satang(["merchant", "update", MISSING_ID, ...target]),
      satang(["merchant", "get", MISSING_ID, "--url", "not a url", "--token", "x"]),
      satang(["merchant", "get", MISSING_ID], { PORT: "http", ADMIN_TOKEN: "x" }),
      satang(["merchant", "get", MISSING_ID, "--url", url]),
      satang(["merchant", "frobnicate"]),
      satang([]),
      satang(["serve"], { SATANG_ENV: "live" }),
    ]);
    for (const [index, run] of runs.entries()) assert.equal(run.code, 2, `case ${index}: ${run.stderr}`);
    assert.match(runs[0]!.stderr, /--name/);
    assert.match(runs[1]!.stderr, /give all three/);
    assert.match(runs[4]!.stderr, /nothing to change/);
    assert.match(runs[6]!.stderr, /PORT/);
    assert.match(runs[7]!.stderr, /No admin token/);
    assert.match(runs[10]!.stderr, /SECRET_KEY is required/);
  });

  it("finds the server in SATANG_URL and the token in DATA_DIR/admin-token", async () => {
    const dataDir = temporaryDir();
    writeFileSync(join(dataDir, "admin-token"), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    const run = await satang(["merchant", "get", svc.credentials.merchantId, "--json"], {
      SATANG_URL: url,
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).id, svc.credentials.merchantId);
    const preferred = await satang(["merchant", "get", svc.credentials.merchantId, "--json"], {
      SATANG_URL: url,
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      ADMIN_TOKEN: "wrong-token-from-the-environment",
    });
    assert.equal(preferred.code, 1, "ADMIN_TOKEN comes before the token file");
  });

  it("runs through the bin/satang.js launcher", async () => {
    const run = await satangProcess(
      ["merchant", "get", svc.credentials.merchantId, "--json", ...target],
      {},
      "bin/satang.js",
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).name, "Test Shop");
  });
});

describe("satang serve and migrate", () => {
  it("migrates a fresh store, serves with first-start output and JSON logs, refuses a second process, and exits 0 on SIGTERM", async () => {
    emptyDataDir ||= temporaryDir();
    const dataDir = temporaryDir();
    const env = { DATA_DIR: dataDir };

    const migrated = await satangProcess(["migrate", "--json"], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.ok(JSON.parse(migrated.stdout).applied.includes("0001_core"));
    const again = await satangProcess(["migrate"], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /up to date/);

    const port = await freePort();
    const child = spawn(process.execPath, satangArgv(["serve", "--no-workers"]), {
      cwd: SERVER_ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...EMBEDDED_TEMPLATE_ENV,
        DATA_DIR: dataDir,
        PORT: String(port),
      },
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 240_000;
      // Printed last, after the first-start text: the start is complete.
      while (!stdout.includes("is listening on") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(stdout.includes("Server listening"), stdout);
      assert.match(stdout, /first start/);
      const demoId = /Demo merchant "Demo Shop" \(([0-9a-f-]{36})\)/.exec(stdout)?.[1];
      assert.ok(demoId, stdout);
      const logLine = stdout.split("\n").find((line) => line.includes("Server listening"))!;
      assert.equal(JSON.parse(logLine).level, 30, "logs are pino JSON lines");

      const token = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
      assert.ok(stdout.includes(token), "the token is printed once");
      const got = await satangProcess(["merchant", "get", demoId, "--json"], { ...env, PORT: String(port) });
      assert.equal(got.code, 0, got.stderr);
      assert.equal(JSON.parse(got.stdout).name, "Demo Shop");

      const busy = await satangProcess(["migrate"], env);
      assert.equal(busy.code, 2, "the embedded store belongs to the running server");
      assert.match(busy.stderr, /in use by another Satang process/);

      child.kill("SIGTERM");
      assert.equal(await exited, 0, stdout);
    } finally {
      child.kill("SIGKILL");
    }
    const after = await satangProcess(["migrate", "--json"], env);
    assert.equal(after.code, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout).applied, []);
  });
});
