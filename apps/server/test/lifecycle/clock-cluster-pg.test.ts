/**
 * The sandbox test clock across server processes on one PostgreSQL (CONTRACT 1, 10): each process
 * keeps the merchant (its clock offset included) in memory for authentication, so a reset made
 * on one process must reach the others the way an advance does, through the change
 * notification, and the next record made on another process carries wall-clock time again.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { type Cluster, signedFetch, startCluster } from "../helpers/cluster.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { paymentBody } from "../helpers/lifecycle.ts";
import { describeOnPostgres } from "../helpers/store.ts";

/** The business clock of every process of the cluster stands still here. */
const CLOCK_MS = Date.UTC(2026, 5, 1, 8, 0, 0);
/** How long another process may take to hear the change (the auth cache's notification). */
const PROPAGATION_MS = 2000;

describeOnPostgres("the test clock across two server processes", () => {
  let svc: TestService;
  let cluster: Cluster;
  before(async () => {
    svc = await startService();
    cluster = await startCluster(svc.store.databaseUrl!, CLOCK_MS, 2);
  });
  after(async () => {
    await cluster?.close();
    await svc?.close();
  });

  async function createdAtOn(url: string, merchant: Credentials): Promise<number> {
    const res = await signedFetch(url, merchant, "POST", "/api/v1/payments", paymentBody());
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return Date.parse(res.body.data.createdAt);
  }

  /** Creates payments on `url` until one is stamped `expected`, or the propagation bound passes. */
  async function waitForStamp(url: string, merchant: Credentials, expected: number): Promise<number> {
    const deadline = Date.now() + PROPAGATION_MS;
    let stamped = await createdAtOn(url, merchant);
    while (stamped !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stamped = await createdAtOn(url, merchant);
    }
    return stamped;
  }

  it("stamps records with wall-clock time on the other process soon after a reset on one", async () => {
    const merchant = await svc.newMerchant();
    const [first, second] = cluster.urls as [string, string];
    // Both processes have the merchant in memory, at real time.
    for (const url of [first, second]) assert.equal(await createdAtOn(url, merchant), CLOCK_MS);

    const advanced = await signedFetch(first, merchant, "POST", "/api/v1/sandbox/clock/advance", {
      seconds: 3600,
    });
    assert.equal(advanced.status, 200);
    assert.equal(await waitForStamp(second, merchant, CLOCK_MS + 3_600_000), CLOCK_MS + 3_600_000);

    const reset = await signedFetch(first, merchant, "POST", "/api/v1/sandbox/clock/reset");
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.deepEqual(reset.body.data, { now: new Date(CLOCK_MS).toISOString(), offsetSeconds: 0 });
    assert.equal(await createdAtOn(first, merchant), CLOCK_MS, "the process that reset forgets at once");
    assert.equal(
      await waitForStamp(second, merchant, CLOCK_MS),
      CLOCK_MS,
      "the other process still stamped records an hour ahead after the reset",
    );
    const clock = await signedFetch(second, merchant, "GET", "/api/v1/sandbox/clock");
    assert.equal(clock.body.data.offsetSeconds, 0);
  });
});
