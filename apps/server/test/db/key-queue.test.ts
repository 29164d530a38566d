/**
 * The per-key queue in front of the wallet lock (db/key-queue.ts): at most `slots` at a time per
 * key, started in arrival order, keys independent, waits bounded like a lock wait; the wait in
 * the queue and the wait at the lock share one bound (`boundLockWait`).
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { databaseFault } from "../../src/db/faults.ts";
import {
  boundLockWait,
  KeyQueue,
  LockWaitTimeoutError,
  TURN_WAIT_SLACK_MS,
  type Turn,
} from "../../src/db/key-queue.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { statementsOf } from "../helpers/statements.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("key queue", () => {
  it("runs the work of one key one at a time with one slot, in arrival order", async () => {
    const queue = new KeyQueue(1);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.run("a", 5_000, async () => {
          running += 1;
          most = Math.max(most, running);
          await sleep(Math.random() * 3);
          order.push(i);
          running -= 1;
        }),
      ),
    );
    assert.equal(most, 1);
    assert.deepEqual(
      order,
      Array.from({ length: 20 }, (_, i) => i),
    );
    assert.equal(queue.size, 0, "an idle queue keeps no key");
  });

  it("runs at most its slots of one key at once, starting them in arrival order", async () => {
    const queue = new KeyQueue(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        queue.run("a", 5_000, async () => {
          started.push(i);
          running += 1;
          most = Math.max(most, running);
          await sleep(2 + Math.random() * 3);
          running -= 1;
        }),
      ),
    );
    assert.equal(most, 2);
    assert.deepEqual(
      started,
      Array.from({ length: 12 }, (_, i) => i),
    );
    assert.equal(queue.size, 0);
  });

  it("lets different keys run at the same time", async () => {
    const queue = new KeyQueue(1);
    let running = 0;
    let most = 0;
    await Promise.all(
      ["a", "b", "c"].map((key) =>
        queue.run(key, 5_000, async () => {
          running += 1;
          most = Math.max(most, running);
          await sleep(20);
          running -= 1;
        }),
      ),
    );
    assert.equal(most, 3);
  });

  it("gives up a wait past the bound with a lock-timeout fault (503); the waits behind it keep their turn", async () => {
    const queue = new KeyQueue(1);
    let firstDone = false;
    const first = queue.run("a", 5_000, async () => {
      await sleep(150);
      firstDone = true;
    });
    const impatient = queue.run("a", 30, async () => "never");
    const patient = queue.run("a", 5_000, async () => firstDone);
    await assert.rejects(impatient, (error: unknown) => {
      assert.ok(error instanceof LockWaitTimeoutError);
      assert.equal(databaseFault(error), "busy");
      return true;
    });
    assert.equal(
      await patient,
      true,
      "the work behind the one that gave up started after the first finished",
    );
    await first;
    assert.equal(queue.size, 0);
  });

  it("passes a failure of the work to its caller and frees the key", async () => {
    const queue = new KeyQueue(1);
    await assert.rejects(
      queue.run("a", 1_000, async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(await queue.run("a", 1_000, async () => "next"), "next");
    assert.equal(queue.size, 0);
  });
});

describe("one bound for the wait in the queue and at the lock", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  // The bound goes as a statement of its own, or (PostgreSQL) in the BEGIN after its own bounds.
  const lockTimeoutSet = (statements: string[]) =>
    statements.filter((s) => s.includes("set_config") || s.split("set local lock_timeout").length > 2);

  it("hands each work the time it was queued and the bound", async () => {
    const queue = new KeyQueue(1);
    const turns: Turn[] = [];
    const before = performance.now();
    await Promise.all(
      [0, 1].map(() =>
        queue.run("a", 1_000, async (turn) => {
          turns.push(turn);
          await sleep(60);
        }),
      ),
    );
    for (const turn of turns) {
      assert.equal(turn.boundMs, 1_000);
      assert.ok(turn.since >= before && turn.since < before + 30, "queued when it was called");
    }
  });

  it("sends nothing for a turn that came at once, or for work outside a turn", async () => {
    const turn: Turn = { since: 1_000, boundMs: 2_000 };
    for (const [given, now] of [
      [turn, 1_000 + TURN_WAIT_SLACK_MS],
      [undefined, 99_999],
    ] as const) {
      const { statements } = await statementsOf(() =>
        svc.deps.db.transaction().execute((trx) => boundLockWait(trx, given, now)),
      );
      assert.deepEqual(lockTimeoutSet(statements), []);
    }
  });

  it("lowers the transaction's lock_timeout to what is left of the bound", async () => {
    const turn: Turn = { since: 1_000, boundMs: 2_000 };
    const { result } = await statementsOf(() =>
      svc.deps.db.transaction().execute(async (trx) => {
        await boundLockWait(trx, turn, 1_000 + 1_250);
        return (await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx)).rows[0]!.lock_timeout;
      }),
    );
    assert.equal(result, "750ms");
    const after = (await sql<{ lock_timeout: string }>`show lock_timeout`.execute(svc.deps.db)).rows[0]!;
    assert.notEqual(after.lock_timeout, "750ms", "the setting ends with its transaction");
  });

  it("bounds only the turn's first transaction: one run again after a conflict keeps its own bound", async () => {
    const turn: Turn = { since: 1_000, boundMs: 2_000 };
    const first = await statementsOf(() =>
      svc.deps.db.transaction().execute((trx) => boundLockWait(trx, turn, 1_000 + 1_250)),
    );
    assert.equal(lockTimeoutSet(first.statements).length, 1);
    // Past the bound: the first transaction would have been refused, the retry is not.
    const retry = await statementsOf(() =>
      svc.deps.db.transaction().execute((trx) => boundLockWait(trx, turn, 1_000 + 5_000)),
    );
    assert.deepEqual(lockTimeoutSet(retry.statements), []);
  });

  it("fails at once with a lock-timeout fault (busy: 503) when nothing is left", async () => {
    const turn: Turn = { since: 1_000, boundMs: 2_000 };
    await assert.rejects(
      svc.deps.db.transaction().execute((trx) => boundLockWait(trx, turn, 3_000)),
      (error: unknown) => error instanceof LockWaitTimeoutError && databaseFault(error) === "busy",
    );
  });
});
