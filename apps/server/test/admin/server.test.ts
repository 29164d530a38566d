/**
 * The process around the app: first start (operator token, demo merchant), restarts, the
 * embedded store's one-process lock, the SECRET_KEY check, graceful close and log redaction.
 * These start real servers on real ports with a temporary DATA_DIR.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { curlExample } from "../../src/bootstrap.ts";
import { loadConfig } from "../../src/config.ts";
import { EMBEDDED_DATABASE_DIR } from "../../src/data-dir.ts";
import { countMerchants } from "../../src/merchants/store.ts";
import { lockDataDir, loggerOptions, type RunningServer, startServer } from "../../src/server.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";
import { pathWithStandIns } from "../helpers/shell-stand-ins.ts";
import { describeOnPostgres, EMBEDDED_TEMPLATE_ENV, openTestStore } from "../helpers/store.ts";

const execFileAsync = promisify(execFile);

/** Response bodies are JSON read field by field in the assertions. */
type Json = any;

const directories: string[] = [];
function temporaryDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "satang-server-"));
  directories.push(dir);
  return dir;
}
after(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function admin(server: RunningServer, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A route that holds its request open until released: to watch shutdown drain it. */
function slowRoute() {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const install = (app: FastifyInstance) => {
    app.get("/_test/slow", async () => {
      entered();
      await gate;
      return { success: true, data: { finished: true } };
    });
  };
  return { install, release, started };
}

/** Sends `text` as it is on a new connection and reads everything until the server closes it. */
async function rawExchange(port: number, text: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return exchangeOn(socket, text);
}

/** Sends `text` on an open connection and reads everything until the server closes it. */
function exchangeOn(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.write(text);
  });
}

function fileMode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("first start, restarts and shutdown on the embedded store", () => {
  const dataDir = temporaryDataDir();
  let token = "";
  let demoMerchantId = "";
  let keptMerchantId = "";

  it("generates the operator token and a demo merchant once, and prints them with a working curl example", async () => {
    const port = await freePort();
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: "silent",
    });
    const printed: string[] = [];
    const slow = slowRoute();
    const server = await startServer(config, {
      logger: false,
      print: (text) => printed.push(text),
      beforeListen: slow.install,
    });
    try {
      assert.equal(server.url, `http://127.0.0.1:${port}`);
      const { adminToken, demo } = server.bootstrap;
      assert.ok(adminToken && adminToken.length >= 40, "a long random token");
      assert.ok(demo);
      token = adminToken;
      demoMerchantId = demo.merchantId;

      const tokenFile = join(dataDir, "admin-token");
      assert.equal(readFileSync(tokenFile, "utf8").trim(), adminToken);
      assert.equal(fileMode(tokenFile), 0o600);
      assert.equal(fileMode(join(dataDir, "secret.key")), 0o600);
      assert.ok(existsSync(join(dataDir, EMBEDDED_DATABASE_DIR)), "the database has its own directory");

      const text = printed.join("");
      assert.ok(text.includes(adminToken));
      assert.ok(text.includes(demo.apiKey));
      assert.ok(text.includes(demo.apiSecret));
      assert.ok(text.includes("openssl dgst -sha256 -hmac"));
      assert.ok(text.includes(`http://127.0.0.1:${port}/api/v1/payments`));

      const merchant = await admin(server, adminToken, "GET", `/merchants/${demo.merchantId}`);
      assert.equal(merchant.status, 200);
      assert.equal(merchant.body.data.name, "Demo Shop");
      assert.equal(merchant.body.data.promptpayId, "0812345678");
      assert.deepEqual(merchant.body.data.collectionAccount, {
        bankCode: "014",
        accountNumber: "1234567890",
        accountName: "Demo Shop Co., Ltd.",
      });

      // The printed example, pasted into a shell as a new user would, creates a payment.
      const snippet = curlExample(config.publicBaseUrl, demo.apiKey, demo.apiSecret);
      for (const line of snippet.split("\n")) assert.ok(text.includes(line), `printed: ${line}`);
      // Asynchronously: the server answering curl runs in this very process.
      // With stand-ins for curl and openssl where the machine has none (test/helpers/shell-stand-ins.ts).
      const standIns = mkdtempSync(join(tmpdir(), "satang-stand-ins-"));
      const PATH = pathWithStandIns(standIns, ["openssl", "curl"]);
      const run = await execFileAsync("bash", ["-c", snippet], {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, PATH },
      }).finally(() => rmSync(standIns, { recursive: true, force: true }));
      const created = JSON.parse(run.stdout);
      assert.notEqual(created.error?.code, "INVALID_CREDENTIALS", "the example signs correctly");
      assert.equal(created.success, true, run.stdout);
      assert.equal(created.data.paymentMethod, "promptpay");
      assert.equal(created.data.amount, "10000.00");

      const kept = await admin(server, adminToken, "POST", "/merchants", { name: "Kept Across Restarts" });
      assert.equal(kept.status, 201);
      keptMerchantId = kept.body.data.id;

      // Shutdown drains: a request in flight when close starts still gets its answer, while
      // nothing new is served.
      const inFlight = fetch(`${server.url}/_test/slow`).then(async (r) => ({
        status: r.status,
        connection: r.headers.get("connection"),
        body: (await r.json()) as Json,
      }));
      await slow.started;
      // A connection opened before close began, whose first request comes after it.
      const early = connect(port, "127.0.0.1");
      await new Promise((resolve) => early.once("connect", resolve));
      const closing = server.close();
      assert.equal(server.close(), closing, "close is idempotent");
      const refused = await exchangeOn(early, "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
      const [head = "", refusedBody = ""] = refused.split("\r\n\r\n");
      assert.match(head, /^HTTP\/1\.1 503 /, refused);
      assert.match(head, /\r\nretry-after: 1\r\n/i, head);
      assert.match(head, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i, head);
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/i, head);
      assert.match(head, /\r\nconnection: close\r\n/i, head);
      const envelope = JSON.parse(refusedBody) as Json;
      assert.equal(envelope.success, false);
      assert.equal(envelope.error.code, "SERVICE_UNAVAILABLE");
      assert.deepEqual(envelope.error.metadata, { retryAfter: 1 });
      const late = await fetch(`${server.url}/admin/v1/merchants/${demo.merchantId}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      }).then(
        (r) => r.status,
        () => "refused",
      );
      assert.ok(late === 503 || late === "refused", `a request after close began got ${late}`);
      slow.release();
      const finished = await inFlight;
      assert.equal(finished.status, 200);
      assert.equal(finished.connection, "close", "the drained connection is closed, not kept alive");
      assert.equal(finished.body.data.finished, true);
      await closing;
      await assert.rejects(
        server.deps.db.selectFrom("merchants").selectAll().execute(),
        "the store is closed",
      );
      assert.ok(!existsSync(join(dataDir, "satang.pid")), "the data directory lock is released");
    } finally {
      await server.close();
    }
  });

  it("keeps its data, token and single demo merchant across two restarts", async () => {
    for (let restart = 1; restart <= 2; restart++) {
      const config = loadConfig({
        ...EMBEDDED_TEMPLATE_ENV,
        DATA_DIR: dataDir,
        PORT: "0",
        LOG_LEVEL: "silent",
      });
      const printed: string[] = [];
      const server = await startServer(config, { logger: false, print: (text) => printed.push(text) });
      try {
        assert.equal(server.bootstrap.adminToken, undefined, `restart ${restart}: no new token`);
        assert.equal(server.bootstrap.demo, undefined, `restart ${restart}: no second demo merchant`);
        const output = printed.join("");
        assert.doesNotMatch(output, /first start|API secret|token/i, "no credentials on a later start");
        assert.match(output, new RegExp(`API +http://127\\.0\\.0\\.1:${server.port}/api/v1`));
        assert.equal(readFileSync(join(dataDir, "admin-token"), "utf8").trim(), token);
        assert.equal(await countMerchants(server.deps.db), 2);
        for (const id of [demoMerchantId, keptMerchantId]) {
          const res = await admin(server, token, "GET", `/merchants/${id}`);
          assert.equal(res.status, 200, `restart ${restart}: merchant ${id} survives`);
        }
      } finally {
        await server.close();
      }
    }
  });

  it("refuses a second server on the same DATA_DIR while the first runs", async () => {
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
    });
    const first = await startServer(config, { logger: false, print: () => {} });
    try {
      await assert.rejects(startServer(config, { logger: false, print: () => {} }), (error: Error) => {
        assert.equal(error.name, "ConfigError");
        assert.match(error.message, /in use by another Satang process/);
        return true;
      });
      const still = await admin(first, token, "GET", `/merchants/${demoMerchantId}`);
      assert.equal(still.status, 200, "the first server is unharmed");
    } finally {
      await first.close();
    }
  });

  it("refuses to start with a SECRET_KEY other than the one that sealed the stored secrets", async () => {
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
      SECRET_KEY: "cd".repeat(32),
    });
    await assert.rejects(startServer(config, { logger: false, print: () => {} }), (error: Error) => {
      assert.equal(error.name, "ConfigError");
      assert.match(error.message, /SECRET_KEY does not match/);
      return true;
    });
    const key = readFileSync(join(dataDir, "secret.key"), "utf8").trim();
    const right = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
      SECRET_KEY: key,
    });
    const server = await startServer(right, { logger: false, print: () => {} });
    await server.close();
  });
});

describe("first start variants", () => {
  it("begins a new store from EMBEDDED_TEMPLATE, a snapshot tarball or a closed store's directory, and leaves a store that exists alone", async () => {
    const snapshot = process.env.SATANG_TEST_SNAPSHOT;
    assert.ok(snapshot && existsSync(snapshot), "the test runner's migrated snapshot");
    const start = (dataDir: string, template: string) =>
      startServer(
        loadConfig({
          EMBEDDED_TEMPLATE: template,
          DATA_DIR: dataDir,
          PORT: "0",
          LOG_LEVEL: "silent",
          SECRET_KEY: "ab".repeat(32),
        }),
        { logger: false, print: () => {} },
      );
    const fromTarball = temporaryDataDir();
    const first = await start(fromTarball, snapshot);
    const demo = first.bootstrap.demo?.merchantId;
    const token = first.bootstrap.adminToken;
    assert.ok(demo && token, "a new store: the demo merchant and the operator token are made");
    await first.close();

    // The first store, closed, is the template of a second: its merchant comes with it.
    const fromDirectory = temporaryDataDir();
    const second = await start(fromDirectory, join(fromTarball, EMBEDDED_DATABASE_DIR));
    try {
      assert.equal(second.bootstrap.demo, undefined, "the copied store has its demo already");
      assert.equal(second.bootstrap.adminToken, undefined, "and its token");
      assert.equal(await countMerchants(second.store.db), 1);
      const res = await admin(second, token, "GET", `/merchants/${demo}`);
      assert.equal(res.status, 200, "the template's merchant is in the new store");
    } finally {
      await second.close();
    }

    // A store that exists ignores the template.
    const again = await start(fromDirectory, snapshot);
    try {
      assert.equal(again.bootstrap.adminToken, undefined);
      assert.equal(await countMerchants(again.store.db), 1);
      assert.equal((await admin(again, token, "GET", `/merchants/${demo}`)).status, 200);
    } finally {
      await again.close();
    }
  });

  it("with ADMIN_TOKEN set generates no token and writes no token file, but still creates the demo", async () => {
    const dataDir = temporaryDataDir();
    const adminToken = "operator-chosen-token-0123456789";
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
      ADMIN_TOKEN: adminToken,
    });
    const printed: string[] = [];
    const server = await startServer(config, { logger: false, print: (text) => printed.push(text) });
    try {
      assert.equal(server.bootstrap.adminToken, undefined);
      assert.ok(!existsSync(join(dataDir, "admin-token")));
      assert.ok(server.bootstrap.demo);
      assert.ok(!printed.join("").includes("Operator (admin API) token"));
      // With no token file for the CLI to find, the banner's CLI line asks for the token, and
      // never prints it.
      assert.match(printed.join(""), /ADMIN_TOKEN=<your ADMIN_TOKEN> npx satang user create --merchant/);
      assert.ok(!printed.join("").includes(adminToken));
      const res = await admin(server, adminToken, "GET", `/merchants/${server.bootstrap.demo.merchantId}`);
      assert.equal(res.status, 200);
    } finally {
      await server.close();
    }
  });

  it("with METRICS_PORT serves /metrics there without a token, and answers anything else in the envelope", async () => {
    const adminToken = "operator-chosen-token-0123456789";
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: temporaryDataDir(),
      PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "silent",
      ADMIN_TOKEN: adminToken,
    });
    const server = await startServer(config, { logger: false, print: () => {} });
    try {
      assert.ok(server.metricsPort && server.metricsPort !== server.port);
      const metricsUrl = `http://127.0.0.1:${server.metricsPort}`;
      const metrics = await fetch(`${metricsUrl}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /^process_cpu_user_seconds_total /m);
      assert.ok(metrics.headers.get("x-request-id"));
      const head = await fetch(`${metricsUrl}/metrics`, { method: "HEAD" });
      assert.equal(head.status, 200);
      for (const [method, path] of [
        ["GET", "/"],
        ["GET", "/api/v1/balance"],
        ["POST", "/metrics"],
      ]) {
        const res = await fetch(`${metricsUrl}${path}`, { method, headers: { "x-request-id": "probe-1" } });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
        assert.equal(res.headers.get("x-request-id"), "probe-1");
        const body = (await res.json()) as Json;
        assert.equal(body.success, false);
        assert.equal(body.error.code, "RESOURCE_NOT_FOUND");
      }
      // The HTTP parser's own errors, as the API port answers them.
      const raw = await rawExchange(
        server.metricsPort,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
      );
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.match(raw, /x-request-id: \S+/i);
      assert.match(raw, /"code":"VALIDATION_ERROR"/);
      // And /metrics is not on the API port, even with the operator token.
      const onApi = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      assert.equal(onApi.status, 404);
    } finally {
      await server.close();
    }
  });

  it("in live creates no demo merchant and keeps the token out of DATA_DIR", async () => {
    const dataDir = temporaryDataDir();
    const config = loadConfig({
      SATANG_ENV: "live",
      SECRET_KEY: "ef".repeat(32),
      ...LIVE_PROVIDER_ENV,
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
    });
    const printed: string[] = [];
    const server = await startServer(config, { logger: false, print: (text) => printed.push(text) });
    try {
      const { adminToken } = server.bootstrap;
      assert.ok(adminToken);
      assert.equal(server.bootstrap.demo, undefined);
      assert.equal(await countMerchants(server.deps.db), 0);
      assert.ok(!existsSync(join(dataDir, "admin-token")), "live never writes the token to disk");
      assert.ok(!existsSync(join(dataDir, "secret.key")), "the key comes from SECRET_KEY");
      assert.ok(printed.join("").includes(adminToken));
      assert.equal((await admin(server, adminToken, "POST", "/merchants", { name: "Live" })).status, 201);
    } finally {
      await server.close();
    }
  });
});

describe("the embedded store's DATA_DIR lock", () => {
  it("lets one holder at a time in, and takes over a lock whose process is gone", () => {
    const dir = temporaryDataDir();
    const lockFile = join(dir, "satang.pid");
    const release = lockDataDir(dir);
    assert.equal(readFileSync(lockFile, "utf8").trim(), String(process.pid));
    assert.throws(() => lockDataDir(dir), /in use by another Satang process/);
    release();
    assert.ok(!existsSync(lockFile));

    // A crashed process's lock, and one left by an earlier run with this very pid (a restarted
    // container's process is pid 1 every time), are both stale.
    for (const stale of ["2147483646", String(process.pid), "garbage"]) {
      writeFileSync(lockFile, `${stale}\n`);
      const again = lockDataDir(dir);
      assert.equal(readFileSync(lockFile, "utf8").trim(), String(process.pid), stale);
      again();
    }
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith(".tmp")),
      [],
      "no temporary files are left",
    );
  });
});

describe("logs", () => {
  it("logs an error given as its message as that text, and an Error object as one", () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions({ logLevel: "info" }), { write: (line: string) => lines.push(line) });
    logger.warn(
      { job: "kept-totals-fold", error: "read ECONNRESET" },
      "background job waits for the database",
    );
    logger.error({ err: new Error("boom"), error: new TypeError("bad") }, "failed");
    const [text, objects] = lines.map((line) => JSON.parse(line));
    assert.equal(text.error, "read ECONNRESET");
    assert.equal(objects.err.message, "boom");
    assert.equal(objects.err.type, "Error");
    assert.equal(objects.error.message, "bad");
    assert.equal(objects.error.type, "TypeError");
  });

  it("redacts secrets, tokens, signatures and account numbers at any of the first levels", () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions({ logLevel: "info" }), { write: (line: string) => lines.push(line) });
    const secrets = [
      "Bearer op-token-123",
      "sha256=abcdef",
      "sk_test_key",
      "sec_secret",
      "hunter2hunter2",
      "9876543210",
      "1111222233",
      "tok_abc",
    ];
    logger.info(
      {
        req: { headers: { authorization: secrets[0], "x-signature": secrets[1], "x-api-key": secrets[2] } },
        body: { apiSecret: secrets[3], password: secrets[4], customerBankAccountNumber: secrets[5] },
        merchant: { collectionAccount: { accountNumber: secrets[6] } },
        token: secrets[7],
        amount: "1000.00",
      },
      "request",
    );
    const text = lines.join("");
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    assert.ok(text.includes("1000.00"), "ordinary fields stay");
    assert.ok(text.includes("[redacted]"));
  });
});

describeOnPostgres("first start on PostgreSQL with several processes at once", () => {
  it("creates one operator token and one demo merchant however many servers start together", async () => {
    const store = await openTestStore();
    const dataDir = temporaryDataDir();
    const servers: RunningServer[] = [];
    try {
      const config = loadConfig({
        DATABASE_URL: store.databaseUrl!,
        ...EMBEDDED_TEMPLATE_ENV,
        DATA_DIR: dataDir,
        PORT: "0",
        LOG_LEVEL: "silent",
      });
      const started = await Promise.allSettled(
        Array.from({ length: 4 }, () => startServer(config, { logger: false, print: () => {} })),
      );
      for (const result of started) {
        assert.equal(result.status, "fulfilled", String((result as PromiseRejectedResult).reason));
        servers.push((result as PromiseFulfilledResult<RunningServer>).value);
      }
      const tokens = servers.map((s) => s.bootstrap.adminToken).filter((t) => t !== undefined);
      const demos = servers.map((s) => s.bootstrap.demo).filter((d) => d !== undefined);
      assert.equal(tokens.length, 1, "one token");
      assert.equal(demos.length, 1, "one demo merchant");
      assert.equal(await countMerchants(store.db), 1);
      const settings = await store.db
        .selectFrom("server_settings")
        .select("key")
        .where("key", "=", "admin_token_sha256")
        .execute();
      assert.equal(settings.length, 1);
      // Every process accepts the one token and opens the secrets the winner sealed, because
      // they share the key file in DATA_DIR.
      for (const server of servers) {
        const res = await admin(server, tokens[0]!, "GET", `/merchants/${demos[0]!.merchantId}`);
        assert.equal(res.status, 200);
      }
      await Promise.all(servers.splice(0).map((s) => s.close()));

      const again = await startServer(config, { logger: false, print: () => {} });
      servers.push(again);
      assert.equal(again.bootstrap.adminToken, undefined);
      assert.equal(again.bootstrap.demo, undefined);
      assert.equal(await countMerchants(store.db), 1);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
      await store.close();
    }
  });
});
