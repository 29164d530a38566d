/**
 * The grouping of replay records (db/replay-records.ts `REPLAY_RECORD_GROUPING`) without a
 * database, on a clock the test moves: a record alone is sent at once; records that come while
 * a group is in flight wait for it and go together when it ends; a group slow to answer lets the
 * next go beside it once the hold is over, never more than the groups allowed in flight.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  REPLAY_RECORD_GROUP_BUSY_HOLD_MS,
  REPLAY_RECORD_GROUPING,
  REPLAY_RECORD_GROUPS_IN_FLIGHT_MAX,
} from "../../src/db/replay-records.ts";
import { StatementGroup } from "../../src/db/statement-group.ts";

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** Real time, for the hold's timer, which the moved clock makes due. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("replay record groups", () => {
  const realNow = performance.now;
  let now = 0;
  beforeEach(() => {
    now = 1_000;
    performance.now = () => now;
  });
  afterEach(() => {
    performance.now = realNow;
  });

  /** Groups over the real grouping, each held in flight until released. */
  function recorded() {
    const sent: string[][] = [];
    const releases: (() => void)[] = [];
    const run = (items: readonly string[]) => {
      sent.push([...items]);
      return new Promise<boolean[]>((resolve) => releases.push(() => resolve(items.map(() => true))));
    };
    const group = new StatementGroup<string, boolean>({
      runGroup: run,
      runOne: async (item) => (await run([item]))[0]!,
      ...REPLAY_RECORD_GROUPING,
      maxQueueWaitMs: 60_000,
      queueTimeout: () => new Error("waited too long"),
    });
    return { group, sent, release: (index: number) => releases[index]!() };
  }

  it("holds records for a group in flight at least a moment, and a slow group at most the hold", () => {
    assert.ok(REPLAY_RECORD_GROUP_BUSY_HOLD_MS > 0);
    assert.ok(REPLAY_RECORD_GROUP_BUSY_HOLD_MS <= 5, "a v1 read waits for its record: the hold adds to it");
    assert.ok(REPLAY_RECORD_GROUPS_IN_FLIGHT_MAX >= 2, "one slow group must not stop every record");
  });

  it("sends a record alone at once, and those that come while it is in flight together once it ends", async () => {
    const { group, sent, release } = recorded();
    const first = group.submit("a");
    await turn();
    assert.deepEqual(sent, [["a"]]);
    const later = ["b", "c", "d"].map(async (item) => {
      await turn();
      return group.submit(item);
    });
    await turn();
    await turn();
    await turn();
    assert.deepEqual(sent, [["a"]], "records that came during the group were sent beside it");
    release(0);
    assert.equal(await first, true);
    await turn();
    assert.deepEqual(sent, [["a"], ["b", "c", "d"]]);
    release(1);
    assert.deepEqual(await Promise.all(later), [true, true, true]);
  });

  it("sends held records beside a group that is slow to answer once the hold is over", async () => {
    const { group, sent, release } = recorded();
    const first = group.submit("a");
    await turn();
    const second = group.submit("b");
    await turn();
    assert.deepEqual(sent, [["a"]]);
    now += REPLAY_RECORD_GROUP_BUSY_HOLD_MS;
    await sleep(REPLAY_RECORD_GROUP_BUSY_HOLD_MS + 5);
    assert.deepEqual(sent, [["a"], ["b"]]);
    // Both groups allowed in flight are taken: a third waits for one to end, hold or not.
    const third = group.submit("c");
    now += 10 * REPLAY_RECORD_GROUP_BUSY_HOLD_MS;
    await sleep(REPLAY_RECORD_GROUP_BUSY_HOLD_MS + 5);
    assert.equal(sent.length, REPLAY_RECORD_GROUPS_IN_FLIGHT_MAX);
    release(1);
    assert.equal(await second, true);
    await turn();
    assert.deepEqual(sent, [["a"], ["b"], ["c"]]);
    release(0);
    release(2);
    assert.deepEqual(await Promise.all([first, third]), [true, true]);
  });
});
