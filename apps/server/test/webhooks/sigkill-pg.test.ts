/**
 * Two `satang worker` processes deliver one backlog; one is killed with SIGKILL in the middle.
 * The survivor takes over the dead worker's leased deliveries once their short leases run out
 * (nobody renews them any more), so every event reaches the receiver at least once and no
 * delivery is left pending. PostgreSQL only: the embedded store belongs to one process.
 *
 * Nothing here asserts on timing (the benchmark measures how soon delivery resumes).
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { recordEvent } from "../../src/events/outbox.ts";
import { newId } from "../../src/lib/ids.ts";
import { TEST_SECRET_KEY } from "../helpers/cluster-config.ts";
import { startService } from "../helpers/harness.ts";
import { spawnWorker, temporaryDir, type Worker, waitFor } from "../helpers/processes.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { startReceiver } from "../helpers/webhooks.ts";

const EVENTS = 400;

describeOnPostgres("a worker killed in the middle of a webhook backlog", () => {
  it("leaves nothing undelivered: the other worker sends what the dead one held", async () => {
    const svc = await startService();
    const target = await startReceiver();
    target.handle((_request, response) => {
      setTimeout(() => response.end("ok"), 20);
    });
    const workers: Worker[] = [];
    try {
      const credentials = await svc.newMerchant();
      const res = await svc.request(
        "POST",
        "/api/v1/webhook-endpoints",
        { url: target.url, events: ["*"] },
        { credentials },
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      target.secrets.push(res.body.data.secret);

      const env = {
        DATABASE_URL: svc.store.databaseUrl!,
        SATANG_ENV: "sandbox",
        SECRET_KEY: TEST_SECRET_KEY.toString("hex"),
        DATA_DIR: temporaryDir(),
        LOG_LEVEL: "info",
      };
      workers.push(spawnWorker(env), spawnWorker(env));
      await waitFor("both workers to start", () =>
        workers.every((worker) => worker.output().includes("worker started")),
      );

      // One commit: the whole backlog is due at once.
      const at = svc.clock.now();
      const written = await svc.deps.db.transaction().execute(async (trx) => {
        const ids: string[] = [];
        for (let i = 0; i < EVENTS; i++) {
          const event = await recordEvent(trx, {
            merchantId: credentials.merchantId,
            type: "payment.received",
            objectType: "payment",
            object: { id: newId(), status: "succeeded", updatedAt: at.toISOString() },
            occurredAt: at,
          });
          ids.push(event.id);
        }
        return ids;
      });

      const leased = () =>
        svc.deps.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("merchant_id", "=", credentials.merchantId)
          .where("status", "=", "pending")
          .where("lease_id", "is not", null)
          .execute();
      // The kill lands while deliveries are leased: between two claims a worker holds none, so
      // one look at the leases could find that moment.
      let leasedBeforeKill: { id: string }[] = [];
      await waitFor("the backlog to start arriving, with deliveries leased", async () => {
        if (target.received.length < EVENTS / 8) return false;
        leasedBeforeKill = await leased();
        return leasedBeforeKill.length > 0;
      });
      workers[0]!.child.kill("SIGKILL");
      assert.equal(await workers[0]!.exited, null, "the first worker died of the signal");
      const receivedAtKill = target.received.length;
      assert.ok(receivedAtKill < EVENTS, "killed before the backlog was done");
      assert.ok(leasedBeforeKill.length > 0, "deliveries were in flight");

      await waitFor("every delivery to be recorded", async () => {
        const pending = await svc.deps.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("merchant_id", "=", credentials.merchantId)
          .where("status", "<>", "succeeded")
          .execute();
        return pending.length === 0;
      });
      const received = new Set(target.received.map((d) => d.headers["webhook-id"]));
      for (const id of written) assert.ok(received.has(id), `event ${id} arrived`);
      assert.ok(target.received.length > receivedAtKill, "the survivor delivered after the kill");
      assert.ok(target.received.every((d) => d.verifyError === undefined));
      assert.equal(workers[1]!.child.exitCode, null, "the survivor is still running");

      workers[1]!.child.kill("SIGTERM");
      assert.equal(await workers[1]!.exited, 0, "the survivor stops cleanly");
    } finally {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      await target.close();
      await svc.close();
    }
  });
});
