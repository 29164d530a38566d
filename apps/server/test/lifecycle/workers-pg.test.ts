/**
 * Two `satang worker` processes splitting the work of one PostgreSQL database without ever
 * doing an item twice (CONTRACT 1), and stopping cleanly on SIGTERM. PostgreSQL only: the
 * embedded store belongs to one process.
 *
 * Nothing here asserts on timing: the test waits (with a generous deadline) until the work is
 * done, then checks what was done and how often.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { TEST_SECRET_KEY } from "../helpers/cluster-config.ts";
import { startService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { createPayment, createWithdraw, simulatePaymentRequest } from "../helpers/lifecycle.ts";
import { spawnWorker, temporaryDir, type Worker, waitFor } from "../helpers/processes.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

const DAY_MS = 86_400_000;

/** Log lines at error level or above (pino: 50 error, 60 fatal). */
function errorLines(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
}

describeOnPostgres("two worker processes on one PostgreSQL database", () => {
  it("process every due item exactly once between them", async () => {
    const svc = await startService();
    const workers: Worker[] = [];
    try {
      // Everything is created three days in the past (business time), so all of it is due for
      // workers running on the real clock.
      svc.clock.set(Date.now() - 3 * DAY_MS);
      const merchant = await fundedMerchant(svc, { settlementDelayHours: 1 }, 100_000_000n);
      const verifying = await fundedMerchant(
        svc,
        { withdrawVerificationThresholdSatang: 1_000n },
        100_000_000n,
      );
      const N = 25;
      const toExpire: string[] = [];
      const toSettle: string[] = [];
      const toPayOut: string[] = [];
      const toLapse: string[] = [];
      for (let i = 0; i < N; i++) {
        toExpire.push((await createPayment(svc, merchant, { expiresInMinutes: 5 })).id);
        const paid = await createPayment(svc, merchant, { amount: `${100 + i}.00` });
        assert.equal((await simulatePaymentRequest(svc, merchant, paid.id, "succeeded")).status, 200);
        toSettle.push(paid.id);
        toPayOut.push((await createWithdraw(svc, merchant, { amount: `${200 + i}.00` })).id);
        if (i % 2 === 0)
          toLapse.push((await createWithdraw(svc, verifying, { amount: `${5000 + i}.00` })).id);
      }

      const env = {
        DATABASE_URL: svc.store.databaseUrl!,
        SATANG_ENV: "sandbox",
        SANDBOX_PAYOUT_PICKUP: "automatic",
        SECRET_KEY: TEST_SECRET_KEY.toString("hex"),
        DATA_DIR: temporaryDir(),
        LOG_LEVEL: "info",
      };
      workers.push(spawnWorker(env), spawnWorker(env));
      const db = svc.deps.db;
      await waitFor("every due item to be processed", async () => {
        const left = await db
          .selectFrom("payments")
          .select((eb) => eb.fn.countAll<bigint>().as("n"))
          .where((eb) =>
            eb.or([
              eb.and([eb("id", "in", toExpire), eb("status", "<>", "expired")]),
              eb.and([eb("id", "in", toSettle), eb("settled_at", "is", null)]),
            ]),
          )
          .executeTakeFirstOrThrow();
        const open = await db
          .selectFrom("withdraws")
          .select((eb) => eb.fn.countAll<bigint>().as("n"))
          .where("status", "in", ["pending", "awaiting_verification"])
          .where("id", "in", [...toPayOut, ...toLapse])
          .executeTakeFirstOrThrow();
        const sending = await db
          .selectFrom("payouts")
          .select((eb) => eb.fn.countAll<bigint>().as("n"))
          .where("withdraw_id", "in", toPayOut)
          .where("state", "=", "accepted")
          .executeTakeFirstOrThrow();
        return left.n === 0n && open.n === 0n && Number(sending.n) === toPayOut.length;
      });
      // A worker still starting up has no signal handler yet; under load one worker can finish
      // all the work before the other has started, so both must be up before they are stopped.
      await waitFor("both workers to start", () =>
        workers.every((worker) => worker.output().includes("worker started")),
      );
      for (const worker of workers) worker.child.kill("SIGTERM");
      const codes = await Promise.all(workers.map((worker) => worker.exited));
      assert.deepEqual(codes, [0, 0], "both workers stop cleanly on SIGTERM");
      for (const worker of workers) {
        assert.match(worker.output(), /worker started/);
        assert.deepEqual(errorLines(worker.output()), [], "no job failed in either worker");
      }

      const eventCounts = async (ids: string[], type: string) => {
        const rows = await db
          .selectFrom("events")
          .select(["object_id", (eb) => eb.fn.countAll<bigint>().as("n")])
          .where("object_id", "in", ids)
          .where("type", "=", type as never)
          .groupBy("object_id")
          .execute();
        return new Map(rows.map((row) => [row.object_id, Number(row.n)]));
      };
      const expired = await eventCounts(toExpire, "payment.expired");
      for (const id of toExpire) assert.equal(expired.get(id), 1, `payment ${id} expired once`);

      const settlements = await db
        .selectFrom("ledger_transactions")
        .select(["subject_id", (eb) => eb.fn.countAll<bigint>().as("n")])
        .where("kind", "=", "settlement")
        .where("subject_id", "in", toSettle)
        .groupBy("subject_id")
        .execute();
      assert.equal(settlements.length, N);
      assert.ok(settlements.every((row) => row.n === 1n));

      const processing = await eventCounts(toPayOut, "withdraw.processing");
      const bank = await db
        .selectFrom("sandbox_payouts")
        .selectAll()
        .where("payout_key", "in", toPayOut)
        .execute();
      assert.equal(bank.length, N, "the bank received every payout");
      for (const id of toPayOut) {
        assert.equal(processing.get(id), 1, `withdraw ${id} went to processing once`);
        assert.equal(bank.find((row) => row.payout_key === id)?.send_count, 1, `payout ${id} was sent once`);
      }
      const attempts = await db
        .selectFrom("payouts")
        .select("send_attempts")
        .where("withdraw_id", "in", toPayOut)
        .execute();
      assert.ok(attempts.every((row) => row.send_attempts === 1));

      const releases = await db
        .selectFrom("ledger_transactions")
        .select("subject_id")
        .where("kind", "=", "withdraw_release")
        .where("subject_id", "in", toLapse)
        .execute();
      assert.equal(releases.length, toLapse.length, "every lapsed verification released its hold once");
      await assertLedgerConsistent(db);
    } finally {
      for (const worker of workers) worker.child.kill("SIGKILL");
      await svc.close();
    }
  });
});
