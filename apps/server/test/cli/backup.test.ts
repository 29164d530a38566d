/**
 * `satang backup <file>` / `satang restore <file>` on the embedded store (docs/operations.md):
 * a copy taken while the server runs and takes payments is consistent (the ledger balances once
 * restored), holds every payment acknowledged before the copy was asked for and none
 * acknowledged after it was written; restore refuses while a server holds DATA_DIR, keeps the
 * database it replaces, and the server starts on the restored one. Both refuse PostgreSQL.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import { EMBEDDED_DATABASE_DIR } from "../../src/data-dir.ts";
import { openStore } from "../../src/db/connect.ts";
import { type CliRun, runSatangCli } from "../helpers/cli.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { paymentBody } from "../helpers/lifecycle.ts";
import { spawnSatang, temporaryDir, type Worker, waitFor } from "../helpers/processes.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

const ADMIN_TOKEN = "backup-test-operator-token-0123456789abcdef";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function satang(args: string[], env: Record<string, string>): Promise<CliRun> {
  return runSatangCli(args, env);
}

class Server {
  process: Worker | undefined;
  constructor(
    readonly env: Record<string, string>,
    public url: string,
  ) {}

  /**
   * Starts `satang serve` and waits until it answers. Another test's server may take the port
   * this one was given (it was free when drawn): this one then exits, and whatever answers there
   * is not it, so it starts again on a new port (the shared `env` and `url` follow).
   */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const started = spawnSatang(["serve"], this.env);
      this.process = started;
      let exited = false;
      await waitFor("the server to answer /readyz or exit", async () => {
        exited = started.child.exitCode !== null;
        if (exited) return true;
        const res = await fetch(`${this.url}/readyz`).catch(() => undefined);
        return res?.status === 200 && (res.headers.get("content-type") ?? "").includes("application/json");
      });
      if (!exited) return;
      if (attempt === 3) throw new Error(`satang serve exited: ${started.output()}`);
      const port = await freePort();
      Object.assign(this.env, { PORT: String(port), SATANG_URL: `http://127.0.0.1:${port}` });
      this.url = `http://127.0.0.1:${port}`;
    }
  }

  async stop(): Promise<void> {
    if (!this.process) return;
    this.process.child.kill("SIGTERM");
    await this.process.exited;
    this.process = undefined;
  }

  async admin(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status}`);
    return ((await res.json()) as { data: unknown }).data;
  }

  async signed(key: { apiKey: string; apiSecret: string }, method: string, path: string, body?: unknown) {
    const text = body === undefined ? "" : JSON.stringify(body);
    const headers = signRequest({ ...key, body: text, method, path, version: "v2" });
    return fetch(`${this.url}${path}`, {
      method,
      headers: { ...headers, ...(text ? { "content-type": "application/json" } : {}) },
      ...(text ? { body: text } : {}),
    });
  }
}

describe("backup and restore of the embedded store", () => {
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) await server.stop().catch(() => {});
  });

  it("a copy taken under load holds every payment acknowledged before it and restores to a consistent ledger", async () => {
    const dataDir = temporaryDir("satang-backup-");
    const port = await freePort();
    const env = {
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "warn",
      SATANG_URL: `http://127.0.0.1:${port}`,
    };
    const server = new Server(env, `http://127.0.0.1:${port}`);
    servers.push(server);
    await server.start();
    const merchant = await server.admin("POST", "/merchants", {
      name: "Backup Test Co",
      promptpayId: "0812345678",
    });
    const integration = await server.admin("POST", `/merchants/${merchant.id}/integrations`, {});
    const key = { apiKey: integration.apiKey as string, apiSecret: integration.apiSecret as string };

    // Payments keep arriving while the copy is taken; each is recorded with when it was acknowledged.
    const acknowledged: { id: string; at: number }[] = [];
    const first = await server.signed(key, "POST", "/api/v1/payments", paymentBody());
    assert.equal(first.status, 201, await first.text());
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const res = await server.signed(key, "POST", "/api/v1/payments", paymentBody());
        if (res.status === 201) {
          const { data } = (await res.json()) as { data: { id: string } };
          acknowledged.push({ id: data.id, at: Date.now() });
        }
      }
    })();
    await waitFor("some payments", () => acknowledged.length >= 5, 30_000);
    const asked = Date.now();
    const copies = temporaryDir("satang-backup-copies-");
    const file = join(copies, "copy.tar.gz");
    const backup = await satang(["backup", file], env);
    const written = Date.now();
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /from the running server/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    await waitFor("payments after the copy", () => acknowledged.some((p) => p.at > written + 200), 30_000);
    writing = false;
    await writer;

    // Restore refuses while the server holds DATA_DIR, and leaves the database alone.
    const refused = await satang(["restore", file], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /in use by another Satang process/);

    await server.stop();
    const restored = await satang(["restore", file], env);
    assert.equal(restored.code, 0, restored.stderr);
    const kept = readdirSync(dataDir).filter((name) =>
      name.startsWith(`${EMBEDDED_DATABASE_DIR}.before-restore-`),
    );
    assert.equal(kept.length, 1, "the database it replaced is kept");
    // The restored database is private like every store: directories 0700, files 0600.
    const open: string[] = [];
    const walk = (path: string) => {
      const stat = statSync(path);
      if ((stat.mode & 0o077) !== 0) open.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(join(dataDir, EMBEDDED_DATABASE_DIR));
    assert.deepEqual(open.slice(0, 5), [], `${open.length} restored paths open to other users`);

    // The ledger of the restored database balances.
    const store = await openStore({ dataDir: join(dataDir, EMBEDDED_DATABASE_DIR) });
    try {
      await assertLedgerConsistent(store.db);
    } finally {
      await store.close();
    }
    await server.start();
    const before = acknowledged.filter((p) => p.at < asked);
    const later = acknowledged.filter((p) => p.at > written + 100);
    assert.ok(before.length >= 5 && later.length >= 1);
    for (const payment of before) {
      const res = await server.signed(key, "GET", `/api/v1/payments/${payment.id}`);
      assert.equal(res.status, 200, `payment ${payment.id} acknowledged before the copy is in it`);
    }
    for (const payment of later) {
      const res = await server.signed(key, "GET", `/api/v1/payments/${payment.id}`);
      assert.equal(res.status, 404, `payment ${payment.id} acknowledged after the copy is not in it`);
    }
    // With no server running the command takes the copy itself.
    await server.stop();
    const offline = join(copies, "offline.tar.gz");
    const direct = await satang(["backup", offline], env);
    assert.equal(direct.code, 0, direct.stderr);
    assert.doesNotMatch(direct.stdout, /running server/);
    assert.ok(statSync(offline).size > 1000);
  });

  it("refuses a file that is not a backup, and PostgreSQL, without touching the database", async () => {
    const dataDir = temporaryDir("satang-backup-");
    const junk = join(temporaryDir("satang-backup-junk-"), "junk.tar.gz");
    writeFileSync(junk, "not a backup");
    const env = { DATA_DIR: dataDir };
    const bad = await satang(["restore", junk], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /is not a Satang backup that opens/);
    assert.equal(existsSync(join(dataDir, EMBEDDED_DATABASE_DIR)), false);
    const missing = await satang(["restore", join(dataDir, "nowhere.tar.gz")], env);
    assert.equal(missing.code, 2);
    // No embedded database under DATA_DIR (a server on PostgreSQL keeps only its key and token
    // there): nothing to copy, and none is made.
    const nothing = await satang(["backup", join(dataDir, "copy.tar.gz")], env);
    assert.equal(nothing.code, 2, nothing.stdout);
    assert.match(nothing.stderr, /No embedded database under DATA_DIR/);
    assert.equal(existsSync(join(dataDir, EMBEDDED_DATABASE_DIR)), false);
    assert.equal(existsSync(join(dataDir, "copy.tar.gz")), false);
    // A copy to a directory that does not exist is a usage mistake, found before any copy is taken.
    const nowhere = await satang(["backup", join(dataDir, "no-such-dir", "copy.tar.gz")], env);
    assert.equal(nowhere.code, 2, nowhere.stderr);
    assert.match(nowhere.stderr, /no-such-dir is not a directory, so the copy cannot be written/);
    // --url asks that server for its copy, whatever DATA_DIR holds.
    const port = await freePort();
    const asked = await satang(
      ["backup", join(dataDir, "copy.tar.gz"), "--url", `http://127.0.0.1:${port}`, "--token", ADMIN_TOKEN],
      env,
    );
    assert.equal(asked.code, 3, asked.stderr);
    assert.match(asked.stderr, new RegExp(`Cannot reach the Satang server at http://127.0.0.1:${port}`));
    // A server of an earlier release, without the backup route, is named as such.
    const earlier = createHttpServer((_request, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          success: false,
          error: { code: "RESOURCE_NOT_FOUND", message: "Route GET /admin/v1/backup not found" },
        }),
      );
    });
    await new Promise<void>((resolve) => earlier.listen(0, "127.0.0.1", resolve));
    try {
      const old = await satang(
        [
          "backup",
          join(dataDir, "copy.tar.gz"),
          "--url",
          `http://127.0.0.1:${(earlier.address() as AddressInfo).port}`,
          "--token",
          ADMIN_TOKEN,
        ],
        env,
      );
      assert.equal(old.code, 2, old.stderr);
      assert.match(old.stderr, /has no backup route \(it runs an earlier release of Satang\): stop it/);
      assert.equal(existsSync(join(dataDir, "copy.tar.gz")), false);
    } finally {
      await new Promise<void>((resolve) => earlier.close(() => resolve()));
    }
    assert.equal(existsSync(join(dataDir, EMBEDDED_DATABASE_DIR)), false);
    const pgEnv = { DATA_DIR: dataDir, DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" };
    for (const args of [
      ["backup", junk],
      ["restore", junk],
    ]) {
      const run = await satang(args, pgEnv);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /backed up with its own tools/);
    }
  });
});
