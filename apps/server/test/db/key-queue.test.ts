/**
 * The per-key queue in front of the wallet lock (db/key-queue.ts): at most `slots` at a time per
 * key, started in arrival order, keys independent, waits bounded like a lock wait.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { databaseFault } from "../../src/db/faults.ts";
import { KeyQueue, LockWaitTimeoutError } from "../../src/db/key-queue.ts";

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
