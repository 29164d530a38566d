/**
 * The background workers as processes on the embedded store (CONTRACT 1): `satang serve` runs
 * the jobs in-process, a worker beside it is refused, and `satang worker` stops cleanly on
 * SIGTERM. The multi-process PostgreSQL test is lifecycle-workers-pg.test.ts.
 *
 * Nothing here asserts on timing: the tests wait (with a generous deadline) until the work is
 * done, then check what was done and how often.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import { loadConfig } from "../../src/config.ts";
import { startServer } from "../../src/server.ts";
import { spawnWorker, temporaryDir, waitFor } from "../helpers/processes.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("satang serve and satang worker on the embedded store", () => {
  // One data directory for the three tests, used one after another: creating an embedded
  // database runs initdb (seconds, more under a loaded test run), reopening one is quick.
  const dataDir = temporaryDir();

  it("runs the jobs in the serving process: a due payment expires without a separate worker", async () => {
    const port = await freePort();
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: "silent",
    });
    const server = await startServer(config, { logger: false, print: () => {} });
    try {
      assert.equal(server.workers, true);
      const demo = server.bootstrap.demo!;
      const body = JSON.stringify({
        amount: "1000.00",
        referenceId: "worker-expiry-1",
        paymentMethod: "promptpay",
        customerBankAccountName: "Somchai Jaidee",
        customerBankAccountNumber: "1234567890",
        customerBankCode: "014",
      });
      const response = await fetch(`${server.url}/api/v1/payments`, {
        method: "POST",
        headers: {
          ...signRequest({
            apiKey: demo.apiKey,
            apiSecret: demo.apiSecret,
            body,
            method: "POST",
            path: "/api/v1/payments",
          }),
          "content-type": "application/json",
        },
        body,
      });
      assert.equal(response.status, 201);
      const payment = ((await response.json()) as { data: { id: string } }).data;
      // Make it due now rather than in 15 minutes.
      await server.deps.db
        .updateTable("payments")
        .set({ expires_at: new Date(Date.now() - 1_000) })
        .where("id", "=", payment.id)
        .execute();
      await waitFor("the in-process expiry job", async () => {
        const row = await server.deps.db
          .selectFrom("payments")
          .select("status")
          .where("id", "=", payment.id)
          .executeTakeFirstOrThrow();
        return row.status === "expired";
      });

      // The embedded store belongs to this process: a worker beside it is refused.
      const beside = spawnWorker({ ...EMBEDDED_TEMPLATE_ENV, DATA_DIR: dataDir, LOG_LEVEL: "silent" });
      assert.equal(await beside.exited, 2, beside.output());
      assert.match(beside.output(), /in use by another Satang process/);
    } finally {
      await server.close();
    }
  });

  it("serves without jobs with --no-workers", async () => {
    const config = loadConfig({
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: "silent",
    });
    const server = await startServer(config, { logger: false, print: () => {}, workers: false });
    try {
      assert.equal(server.workers, false);
    } finally {
      await server.close();
    }
  });

  it("starts `satang worker` alone and stops it cleanly on SIGTERM", async () => {
    const worker = spawnWorker({ ...EMBEDDED_TEMPLATE_ENV, DATA_DIR: dataDir, LOG_LEVEL: "info" });
    try {
      await waitFor("the worker to start", () => worker.output().includes("worker started"));
      worker.child.kill("SIGTERM");
      assert.equal(await worker.exited, 0, worker.output());
      assert.match(worker.output(), /shutting down/);
    } finally {
      worker.child.kill("SIGKILL");
    }
  });
});
