/**
 * db/statement-group.ts without a database: which writes go together, how many groups are in flight,
 * and what one write's failure does to the others of its group.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPerItemFailure, StatementGroup } from "../../src/db/statement-group.ts";

function failure(code?: string): Error {
  return Object.assign(new Error(`failed with ${code ?? "no code"}`), { code });
}

/** A group commit whose statements are recorded and held until released. */
function recorded(options: {
  maxItems?: number;
  maxInFlight?: number;
  maxQueueWaitMs?: number;
  failGroup?: (items: number[]) => Error;
  keyOf?: (item: number) => string;
  busyHoldMs?: number;
}) {
  const groups: number[][] = [];
  const alone: number[] = [];
  const pending: (() => void)[] = [];
  let held = false;
  const wait = () => (held ? new Promise<void>((resolve) => pending.push(resolve)) : Promise.resolve());
  const commit = new StatementGroup<number, string>({
    runGroup: async (items) => {
      groups.push([...items]);
      await wait();
      const error = options.failGroup?.([...items]);
      if (error) throw error;
      return items.map((item) => `group:${item}`);
    },
    runOne: async (item) => {
      alone.push(item);
      await wait();
      if (item < 0) throw failure("23505");
      return `alone:${item}`;
    },
    maxItems: options.maxItems ?? 10,
    maxInFlight: options.maxInFlight ?? 2,
    maxQueueWaitMs: options.maxQueueWaitMs ?? 60_000,
    queueTimeout: () => new Error("waited too long"),
    ...(options.keyOf ? { keyOf: options.keyOf } : {}),
    ...(options.busyHoldMs === undefined ? {} : { busyHoldMs: options.busyHoldMs }),
  });
  return {
    commit,
    groups,
    alone,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const resolve of pending.splice(0)) resolve();
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("group commit", () => {
  it("sends no item of a key that a group in flight holds, until that group has ended", async () => {
    const { commit, groups, alone, hold, release } = recorded({
      maxInFlight: 3,
      keyOf: (item) => String(item % 10),
    });
    hold();
    const first = commit.submit(1);
    await turn();
    const second = commit.submit(11);
    const other = commit.submit(2);
    await turn();
    // 2 went in a group of its own beside 1; 11 waits, though a slot was free for it.
    assert.deepEqual(alone, [1, 2]);
    release();
    assert.deepEqual(await Promise.all([first, second, other]), ["alone:1", "alone:11", "alone:2"]);
    assert.deepEqual(alone, [1, 2, 11]);
    assert.deepEqual(groups, []);
  });

  it("holds at most one item of a key: a later item of the key waits, in its place, for a later group", async () => {
    const { commit, groups, alone } = recorded({ maxInFlight: 1, keyOf: (item) => String(item % 10) });
    const outcomes = await Promise.all([1, 11, 2, 21, 3, 12].map((item) => commit.submit(item)));
    assert.deepEqual(groups, [
      [1, 2, 3],
      [11, 12],
    ]);
    assert.deepEqual(alone, [21]);
    assert.deepEqual(outcomes, ["group:1", "group:11", "group:2", "alone:21", "group:3", "group:12"]);
  });

  it("sends the writes of one turn together, and a write alone on its own", async () => {
    const { commit, groups, alone } = recorded({});
    const together = await Promise.all([1, 2, 3].map((item) => commit.submit(item)));
    assert.deepEqual(together, ["group:1", "group:2", "group:3"]);
    assert.deepEqual(groups, [[1, 2, 3]]);
    assert.equal(await commit.submit(4), "alone:4");
    assert.deepEqual(alone, [4]);
  });

  it("puts at most maxItems in a group", async () => {
    const { commit, groups } = recorded({ maxItems: 4, maxInFlight: 5 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => commit.submit(i)));
    assert.deepEqual(
      groups.map((group) => group.length),
      [4, 4, 2],
    );
  });

  it("keeps at most maxInFlight groups in flight; writes that come meanwhile go in one next group", async () => {
    const { commit, groups, alone, hold, release } = recorded({ maxItems: 100, maxInFlight: 2 });
    hold();
    const first = commit.submit(1);
    await turn();
    const second = commit.submit(2);
    await turn();
    const later = [3, 4, 5, 6].map((item) => commit.submit(item));
    await turn();
    await turn();
    assert.deepEqual(alone, [1, 2], "two writes in flight, each alone");
    assert.deepEqual(groups, [], "the other four wait");
    release();
    assert.deepEqual(await Promise.all([first, second, ...later]), [
      "alone:1",
      "alone:2",
      "group:3",
      "group:4",
      "group:5",
      "group:6",
    ]);
    assert.deepEqual(groups, [[3, 4, 5, 6]]);
  });

  it("with a busy hold, writes that come while a group is in flight wait for it to end and then go together", async () => {
    const { commit, groups, alone, hold, release } = recorded({ maxInFlight: 4, busyHoldMs: 60_000 });
    hold();
    const first = commit.submit(1);
    await turn();
    assert.deepEqual(alone, [1], "with no group in flight a write is sent at once");
    const second = commit.submit(2);
    await turn();
    const third = commit.submit(3);
    await turn();
    await turn();
    assert.deepEqual(alone, [1], "slots are free, but the writes wait for the group in flight");
    assert.deepEqual(groups, []);
    release();
    assert.deepEqual(await Promise.all([first, second, third]), ["alone:1", "group:2", "group:3"]);
    assert.deepEqual(groups, [[2, 3]]);
  });

  it("with a busy hold, a group slow to answer lets the next go beside it once the first waiting write's hold is over", async () => {
    const { commit, groups, alone, hold, release } = recorded({ maxInFlight: 2, busyHoldMs: 30 });
    hold();
    const first = commit.submit(1);
    await turn();
    const waited = performance.now();
    const second = commit.submit(2);
    const third = commit.submit(3);
    await turn();
    assert.deepEqual(groups, [], "held while the first group is in flight");
    while (groups.length === 0 && performance.now() - waited < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.ok(performance.now() - waited >= 29, "not before the hold is over");
    assert.deepEqual(groups, [[2, 3]], "sent beside the slow group, which still has not answered");
    assert.deepEqual(alone, [1]);
    const fourth = commit.submit(4);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(alone, [1], "at most maxInFlight groups, hold or not");
    release();
    assert.deepEqual(await Promise.all([first, second, third, fourth]), [
      "alone:1",
      "group:2",
      "group:3",
      "alone:4",
    ]);
  });

  it("with a busy hold, a whole group's worth of writes goes at once beside a group in flight", async () => {
    const { commit, groups, alone, hold, release } = recorded({
      maxItems: 3,
      maxInFlight: 2,
      busyHoldMs: 60_000,
    });
    hold();
    const first = commit.submit(1);
    await turn();
    const full = [2, 3, 4].map((item) => commit.submit(item));
    const extra = commit.submit(5);
    await turn();
    assert.deepEqual(alone, [1]);
    assert.deepEqual(groups, [[2, 3, 4]], "three queued (maxItems): sent without waiting for the hold");
    release();
    assert.deepEqual(await Promise.all([first, ...full, extra]), [
      "alone:1",
      "group:2",
      "group:3",
      "group:4",
      "alone:5",
    ]);
  });

  it("runs each write of a group alone when the group fails on a write's own data", async () => {
    const { commit, groups, alone } = recorded({
      failGroup: (items) => (items.some((item) => item < 0) ? failure("23505") : failure()),
    });
    const answers = await Promise.allSettled([1, -2, 3].map((item) => commit.submit(item)));
    assert.deepEqual(groups, [[1, -2, 3]]);
    assert.deepEqual([...alone].sort(), [-2, 1, 3]);
    assert.deepEqual(
      answers.map((answer) =>
        answer.status === "fulfilled" ? answer.value : (answer.reason as Error).message,
      ),
      ["alone:1", "failed with 23505", "alone:3"],
    );
  });

  it("fails every write of a group with a failure that is not a write's own, and runs none again", async () => {
    const { commit, alone } = recorded({ failGroup: () => failure("08006") });
    const answers = await Promise.allSettled([1, 2, 3].map((item) => commit.submit(item)));
    assert.deepEqual(
      answers.map((answer) => answer.status === "rejected" && (answer.reason as Error).message),
      ["failed with 08006", "failed with 08006", "failed with 08006"],
    );
    assert.deepEqual(alone, []);
  });

  it("goes on sending after a failed group", async () => {
    let fail = true;
    const commit = new StatementGroup<number, number>({
      runGroup: async (items) => {
        if (fail) throw failure("57P01");
        return [...items];
      },
      runOne: async (item) => item,
      maxItems: 10,
      maxInFlight: 1,
      maxQueueWaitMs: 60_000,
      queueTimeout: () => new Error("waited too long"),
    });
    await assert.rejects(Promise.all([commit.submit(1), commit.submit(2)]));
    fail = false;
    assert.deepEqual(await Promise.all([commit.submit(3), commit.submit(4)]), [3, 4]);
  });

  it("tells a write's own failure (data, constraint, deadlock) from the database's", () => {
    for (const code of ["22001", "22P02", "23505", "23503", "23514", "40001", "40P01", "55P03"]) {
      assert.equal(isPerItemFailure(failure(code)), true, code);
    }
    for (const code of [undefined, "08006", "53300", "55000", "57014", "57P01", "XX000", "2350"]) {
      assert.equal(isPerItemFailure(failure(code)), false, String(code));
    }
    assert.equal(isPerItemFailure(null), false);
    assert.equal(isPerItemFailure("23505"), false);
  });

  it("fails what waited in the queue past its bound, without sending it, and sends what came later", async () => {
    const { commit, groups, alone, hold, release } = recorded({ maxInFlight: 1, maxQueueWaitMs: 60 });
    hold();
    const first = commit.submit(1);
    await turn();
    // Taken before the two are queued: their bound runs from their submit, and a pause (a
    // collection on a loaded machine) between the submits and this line would shorten the wait seen.
    const started = performance.now();
    const waiting = [commit.submit(2), commit.submit(3)].map((answer) =>
      answer.then(
        () => "answered",
        (error: Error) => error.message,
      ),
    );
    assert.deepEqual(await Promise.all(waiting), ["waited too long", "waited too long"]);
    const waited = performance.now() - started;
    assert.ok(waited >= 59 && waited < 5_000, `failed after ${Math.round(waited)} ms`);
    const later = commit.submit(4);
    release();
    assert.deepEqual(await Promise.all([first, later]), ["alone:1", "alone:4"]);
    assert.deepEqual(groups, []);
    assert.deepEqual(alone, [1, 4], "the expired writes were never sent");
  });
});
