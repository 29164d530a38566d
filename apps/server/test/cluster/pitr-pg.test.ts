/**
 * Backups of PostgreSQL with a tested restore (docs/operations.md, "PostgreSQL: backups and
 * restore to a point in time"): a cluster of its own with WAL archiving by pgBackRest, a full
 * base backup taken before the service ever ran, then the service (`satang serve`, workers
 * included) under the chaos harness's mixed workload (payments, withdraws, refunds). A point in
 * time is taken once every write of the first part was acknowledged; more writes follow. The
 * backup is restored into a fresh data directory, replayed up to that point and promoted, the
 * service is started on it, and then: the ledger invariants hold, every payment, withdraw and
 * refund acknowledged before the point is there with its amount, and none acknowledged after.
 *
 * It starts its own PostgreSQL, so it needs no TEST_DATABASE_URL server of its own; like the
 * other cluster tests it runs in the suite's PostgreSQL run, and a missing pgBackRest fails it.
 * It prints the restore's measured RTO and how long archiving the last WAL segment took.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { checkInvariants } from "../../../../reliability/chaos-check.ts";
import { ADMIN_TOKEN, SECRET_KEY } from "../../../../reliability/chaos-server.ts";
import {
  Client,
  createMerchants,
  type Merchant,
  runWorkload,
  Tally,
} from "../../../../reliability/chaos-workload.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { BackedUpCluster, type Cluster, query } from "../helpers/pgbackrest.ts";
import { freePort } from "../helpers/pgbouncer.ts";
import { spawnSatang, type Worker, waitFor } from "../helpers/processes.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

const DATABASE = "satang";
/** Requests of the workload before the point in time, and after it. */
const REQUESTS_BEFORE = 250;
const REQUESTS_AFTER = 120;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Service {
  url: string;
  process: Worker;
}

async function startService(cluster: Cluster, dataDir: string): Promise<Service> {
  const port = await freePort();
  mkdirSync(dataDir, { recursive: true });
  const process = spawnSatang(["serve"], {
    SATANG_ENV: "sandbox",
    DATABASE_URL: cluster.url(DATABASE),
    ADMIN_TOKEN,
    SECRET_KEY,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    SANDBOX_PAYOUT_PICKUP: "automatic",
    RATE_LIMIT_PER_MINUTE: "100000",
    HTTP_CONNECTIONS_PER_ADDRESS_MAX: "100000",
    LOG_LEVEL: "warn",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor("the service to answer /readyz", async () => {
    if (process.child.exitCode !== null) throw new Error(`satang exited: ${process.output()}`);
    return fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
  });
  return { url, process };
}

async function stopService(service: Service | undefined): Promise<void> {
  if (!service || service.process.child.exitCode !== null) return;
  service.process.child.kill("SIGTERM");
  await service.process.exited;
}

/** Runs the workload until `requests` were answered and each kind of write was acknowledged once. */
async function workload(url: string, merchants: Merchant[], tally: Tally, requests: number): Promise<void> {
  const client = new Client(() => url, tally);
  const stopAt = tally.requests + requests;
  const cap = stopAt + 10 * requests;
  const everyKind = () =>
    ["payment", "withdraw", "refund"].every((kind) => tally.acknowledged.some((ack) => ack.kind === kind));
  await runWorkload(
    client,
    merchants,
    3,
    () => tally.requests >= cap || (tally.requests >= stopAt && everyKind()),
  );
}

describeOnPostgres("PostgreSQL backups: a point-in-time restore with pgBackRest", () => {
  let cluster: BackedUpCluster;
  let receiver: Receiver;
  const services: Service[] = [];
  let store: Store | undefined;
  // Removed by this file's own `after` (the clusters run as another user inside it).
  const dir = mkdtempSync(join(tmpdir(), "satang-pitr-"));
  // The clusters' user passes through it to their own directories.
  chmodSync(dir, 0o711);

  before(async () => {
    cluster = new BackedUpCluster(join(dir, "clusters"), await freePort());
    cluster.create();
    receiver = await startReceiver();
  });
  after(async () => {
    for (const service of services) await stopService(service);
    await store?.close().catch(() => {});
    cluster?.destroy();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("restores to a point in time every write acknowledged before it, none after, with a balanced ledger", async (t) => {
    // The base backup comes first: the schema, the merchants and every payment come back by
    // replaying the archived WAL over it.
    cluster.backup();
    await query(cluster.url(), `CREATE DATABASE ${DATABASE}`);
    const primary = await startService(cluster, join(dir, "service-primary"));
    services.push(primary);

    const before = new Tally();
    const merchants = await createMerchants(new Client(() => primary.url, before), 3, receiver.url);
    await workload(primary.url, merchants, before, REQUESTS_BEFORE);

    // Every write of `before` was acknowledged, so committed, before this moment of the
    // database's own clock; every write of `after` is sent after it.
    const [{ point } = { point: "" }] = await query<{ point: string }>(
      cluster.url(DATABASE),
      "select clock_timestamp()::text as point",
    );
    await sleep(50);
    const later = new Tally();
    await workload(primary.url, merchants, later, REQUESTS_AFTER);
    const archiveMs = cluster.archiveNow();
    await stopService(primary);

    const restoreStarted = Date.now();
    const restored = await cluster.restore(point, await freePort());
    const recoveredMs = Date.now() - restoreStarted;
    const service = await startService(restored, join(dir, "service-restored"));
    services.push(service);
    const rtoMs = Date.now() - restoreStarted;

    store = await openStore({ databaseUrl: restored.url(DATABASE), poolSize: 2 });
    const results = await checkInvariants(store.db, merchants, before);
    for (const result of results) assert.ok(result.ok, `${result.name}: ${result.problems.join("; ")}`);

    const afterPoint = later.acknowledged.filter((ack) => ack.kind === "payment");
    assert.ok(afterPoint.length > 0, "payments were acknowledged after the point");
    for (const table of ["payments", "withdraws", "refunds"] as const) {
      const ids = later.acknowledged.map((ack) => ack.id);
      const present = await store.db.selectFrom(table).select("id").where("id", "in", ids).execute();
      assert.deepEqual(present, [], `${table} acknowledged after the point are not restored`);
    }

    // The service on the restored cluster answers for what was there before the point.
    const merchant = merchants[0] as Merchant;
    const client = new Client(() => service.url, new Tally());
    const payment = before.acknowledged.find(
      (ack) => ack.kind === "payment" && ack.merchantId === merchant.id,
    );
    assert.ok(payment, "a payment of the first merchant was acknowledged before the point");
    const answer = await client.send("GET", `/api/v1/payments/${payment.id}`, undefined, merchant);
    assert.equal(answer?.status, 200, answer?.text);
    const missing = later.acknowledged.find(
      (ack) => ack.kind === "payment" && ack.merchantId === merchant.id,
    );
    if (missing) {
      const gone = await client.send("GET", `/api/v1/payments/${missing.id}`, undefined, merchant);
      assert.equal(gone?.status, 404, gone?.text);
    }

    t.diagnostic(
      `${before.acknowledged.length} writes acknowledged before the point, all restored; ` +
        `${later.acknowledged.length} after it, none restored. Restore and WAL replay ${recoveredMs} ms, ` +
        `service answering on it ${rtoMs} ms after the restore began (RTO); the last WAL segment ` +
        `archived ${archiveMs} ms after its switch`,
    );
  });
});
