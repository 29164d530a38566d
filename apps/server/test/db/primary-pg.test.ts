/**
 * Following the primary on PostgreSQL (db/primary.ts, CONTRACT 14): with a multi-host
 * DATABASE_URL the service connects to the first host that answers as a primary, stays there,
 * and when that host goes away (a failover) answers 503 with Retry-After, never 500, until a
 * new connection finds the host that is the primary now, without a restart; the LISTEN
 * connection follows too. A node that answers as a standby is never used.
 *
 * Each "host" is a TCP proxy to the shared PostgreSQL, cut to play a primary that died. A
 * standby is played by a schema on the search path whose `pg_is_in_recovery()` answers what
 * the test says (the check runs unqualified, as libpq's does).
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, before, it } from "node:test";
import { Kysely, sql } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.ts";
import { DEFAULT_DATABASE_BOUNDS as BOUNDS } from "../../src/db/bounds.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { databaseFault, NoPrimaryError } from "../../src/db/faults.ts";
import { BoundedPostgresDialect } from "../../src/db/pg-driver.ts";
import { PrimaryLocator, parseMultiHostUrl, primaryClientClass } from "../../src/db/primary.ts";
import { buildDeps } from "../../src/deps.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { paymentBody } from "../helpers/lifecycle.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { TcpProxy } from "../helpers/tcp-proxy.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

/** A port where nothing listens (opened, then closed at once): a host that is down. */
async function deadPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function multiHost(url: string, ports: number[], query = "target_session_attrs=read-write"): string {
  const parsed = new URL(url);
  const auth = parsed.username ? `${parsed.username}${parsed.password ? `:${parsed.password}` : ""}@` : "";
  const hosts = ports.map((port) => `127.0.0.1:${port}`).join(",");
  return `${parsed.protocol}//${auth}${hosts}${parsed.pathname}?${query}`;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeOnPostgres("following the primary among several hosts", () => {
  let svc: TestService;
  let merchant: Credentials;
  let url: string;
  let backend: { host: string; port: number };

  before(async () => {
    svc = await startService({ poolSize: 4 });
    merchant = await fundedMerchant(svc);
    url = svc.store.databaseUrl!;
    const target = new URL(url);
    backend = { host: target.hostname, port: Number(target.port || 5432) };
  });

  after(async () => {
    await svc?.close();
  });

  it("connects to the first host that answers, past one that is down, and stays there", async () => {
    const down = await deadPort();
    const proxy = await TcpProxy.open(backend);
    let store: Store | undefined;
    try {
      store = await openStore({ databaseUrl: multiHost(url, [down, proxy.port]), poolSize: 2 });
      for (let i = 0; i < 5; i++) {
        const port = await sql<{ n: number }>`select 1 as n`.execute(store.db);
        assert.equal(port.rows[0]!.n, 1);
      }
      assert.equal(await store.reachable(2_000), true);
    } finally {
      await store?.close().catch(() => {});
      await proxy.close();
    }
  });

  it("answers 503 with Retry-After when the primary goes away, then reaches the new one without a restart", async () => {
    const first = await TcpProxy.open(backend);
    const second = await TcpProxy.open(backend);
    second.stop(); // the standby-to-be refuses until it is "promoted"
    let store: Store | undefined;
    try {
      store = await openStore({
        databaseUrl: multiHost(url, [first.port, second.port]),
        poolSize: 4,
        bounds: { poolAcquireTimeoutMs: 1_000 },
      });
      const opened = store;
      const deps = buildDeps({
        config: svc.deps.config,
        db: opened.db,
        storeKind: opened.kind,
        clock: svc.clock,
        secrets: svc.deps.secrets,
        databaseReachable: (ms) => opened.reachable(ms),
      });
      const app = await buildApp(deps);
      const send = (method: string, path: string, body?: unknown) =>
        svc.request(method, path, body, { credentials: merchant, app });
      try {
        /** A create, asked again while it answers 503, for up to `ms`. */
        const createWithin = async (ms: number) => {
          const started = Date.now();
          let created = await send("POST", "/api/v1/payments", paymentBody());
          while (created.status === 503 && Date.now() - started < ms) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            created = await send("POST", "/api/v1/payments", paymentBody());
          }
          return created;
        };
        // The first connections are made through the proxy on a machine the other test files
        // load too: the pool's 1 s bound (kept short for the outage below) can pass while they
        // are opened, so the first create may be asked again.
        const warm = await createWithin(10_000);
        assert.equal(warm.status, 201, JSON.stringify(warm.body));
        await until(async () => opened.changes.live, 5_000);
        first.stop(); // the primary dies: both "hosts" refuse for a moment
        const during = await Promise.all([
          send("POST", "/api/v1/payments", paymentBody()),
          send("GET", "/api/v1/balance"),
        ]);
        for (const res of during) {
          assert.equal(res.status, 503, JSON.stringify(res.body));
          assert.equal(res.body?.error?.code, "SERVICE_UNAVAILABLE");
          assert.ok(Number(res.headers["retry-after"]) >= 1);
        }
        second.start(); // the standby is promoted
        const created = await createWithin(5_000);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal((await send("GET", "/api/v1/balance")).status, 200);
        assert.equal((await app.inject({ method: "GET", url: "/readyz" })).statusCode, 200);
        // The LISTEN connection found the new primary too.
        await until(async () => opened.changes.live, 5_000);
      } finally {
        await app.close();
      }
    } finally {
      await store?.close().catch(() => {});
      await first.close();
      await second.close();
    }
  });

  it("never uses a host that answers as a standby, and forgets a primary that became one", async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const proxy = await TcpProxy.open(backend);
    try {
      await admin.query("create schema if not exists ha_sim");
      await admin.query("create table if not exists ha_sim.state (standby boolean not null)");
      await admin.query("delete from ha_sim.state");
      await admin.query("insert into ha_sim.state values (true)");
      await admin.query(
        "create or replace function ha_sim.pg_is_in_recovery() returns boolean language sql as 'select standby from ha_sim.state'",
      );
      const multi = parseMultiHostUrl(
        multiHost(url, [proxy.port, proxy.port], "options=-c%20search_path%3Dha_sim%2Cpg_catalog"),
      );
      assert.ok(multi);
      const locator = new PrimaryLocator(multi, 2_000);
      const Client = primaryClientClass(locator);
      const pool = new pg.Pool({ connectionString: multi.urlFor(multi.hosts[0]!), Client, max: 2 });
      pool.on("error", () => {});
      try {
        // Every host a standby: no primary, an unavailable database.
        const refused = await pool.query("select 1").then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(refused instanceof NoPrimaryError, String(refused));
        assert.equal(databaseFault(refused), "unavailable");
        assert.equal(locator.current, undefined);
        // Promoted: found.
        await admin.query("update ha_sim.state set standby = false");
        await new Promise((resolve) => setTimeout(resolve, 300)); // past the spacing of searches
        assert.equal((await pool.query("select 1 as n")).rows[0].n, 1);
        assert.deepEqual(locator.current, multi.hosts[0]);
        // Demoted again (a switchover): a new connection checks, refuses, and forgets it.
        await admin.query("update ha_sim.state set standby = true");
        const fresh = new Client({ connectionString: multi.urlFor(multi.hosts[0]!) });
        fresh.on("error", () => {});
        await assert.rejects(fresh.connect(), NoPrimaryError);
        assert.equal(locator.current, undefined);
      } finally {
        await pool.end();
      }
    } finally {
      await admin.query("drop schema if exists ha_sim cascade").catch(() => {});
      await admin.end();
      await proxy.close();
    }
  });

  it("closes a pooled connection whose write a read-only node refused, and searches for the primary again", async () => {
    const proxy = await TcpProxy.open(backend);
    const multi = parseMultiHostUrl(multiHost(url, [proxy.port, proxy.port]));
    assert.ok(multi);
    const locator = new PrimaryLocator(multi, 2_000);
    const pool = new pg.Pool({
      connectionString: multi.urlFor(multi.hosts[0]!),
      Client: primaryClientClass(locator),
      max: 1,
    });
    pool.on("error", () => {});
    const db = new Kysely<Record<string, never>>({ dialect: new BoundedPostgresDialect({ pool }, BOUNDS) });
    const backendPid = async () =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
    try {
      await sql`create temporary table if not exists drained (n int)`.execute(db);
      const first = await backendPid();
      assert.deepEqual(locator.current, multi.hosts[0]);
      const searches = locator.searches;
      // The node turns read-only under the pooled connection (an HA engine draining it, or a
      // demotion): its next write is refused with 25006, an unavailable database (503).
      await sql`set session default_transaction_read_only = on`.execute(db);
      const refused = await db
        .transaction()
        .execute((trx) => sql`create temporary table refused_here (n int)`.execute(trx))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.equal((refused as { code?: string } | undefined)?.code, "25006");
      assert.equal(databaseFault(refused), "unavailable");
      assert.equal(locator.current, undefined, "the host is no longer taken for the primary");
      // The next request gets a new connection, found by a new search, that takes writes.
      const next = await backendPid();
      assert.notEqual(next, first);
      assert.equal(locator.searches, searches + 1);
      await db.transaction().execute((trx) => sql`create temporary table written (n int)`.execute(trx));
    } finally {
      await db.destroy();
      await proxy.close();
    }
  });

  it("never uses a primary whose sessions are read-only (one the failover engine is draining), as libpq's read-write", async () => {
    const proxy = await TcpProxy.open(backend);
    const poolOn = (readOnly: "on" | "off") => {
      const multi = parseMultiHostUrl(
        multiHost(
          url,
          [proxy.port, proxy.port],
          `target_session_attrs=read-write&options=-c%20default_transaction_read_only%3D${readOnly}`,
        ),
      );
      assert.ok(multi);
      const locator = new PrimaryLocator(multi, 2_000);
      const Client = primaryClientClass(locator);
      const pool = new pg.Pool({ connectionString: multi.urlFor(multi.hosts[0]!), Client, max: 2 });
      pool.on("error", () => {});
      return { multi, locator, pool };
    };
    try {
      // Not in recovery, but its sessions refuse writes (pg_auto_failover's draining primary).
      const draining = poolOn("on");
      try {
        const refused = await draining.pool.query("select 1").then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(refused instanceof NoPrimaryError, String(refused));
        assert.equal(databaseFault(refused), "unavailable");
        assert.equal(draining.locator.current, undefined);
      } finally {
        await draining.pool.end();
      }
      // The same host taking writes is the primary.
      const serving = poolOn("off");
      try {
        assert.equal((await serving.pool.query("select 1 as n")).rows[0].n, 1);
        assert.deepEqual(serving.locator.current, serving.multi.hosts[0]);
      } finally {
        await serving.pool.end();
      }
    } finally {
      await proxy.close();
    }
  });
});
