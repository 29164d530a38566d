import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  currentTransactionWatcher,
  type TransactionWatcher,
  unwatched,
  watchTransactions,
} from "../../src/db/transaction-scope.ts";

const watcher = (): TransactionWatcher => ({ beforeCommit: async () => undefined });

test("a watched unit of work sees its watcher across awaits, and nothing outside it does", async () => {
  const mine = watcher();
  const seen = await watchTransactions(mine, async () => {
    await sleep(1);
    const afterAwait = currentTransactionWatcher();
    const inside = unwatched(() => currentTransactionWatcher());
    return { afterAwait, inside };
  });
  assert.equal(seen.afterAwait, mine);
  assert.equal(seen.inside, undefined);
  assert.equal(currentTransactionWatcher(), undefined);
});

test("one unit of work ending does not end the watch of another still running", async () => {
  const first = watcher();
  const second = watcher();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const long = watchTransactions(second, async () => {
    await gate;
    await sleep(1);
    return currentTransactionWatcher();
  });
  const short = await watchTransactions(first, async () => {
    await sleep(1);
    return currentTransactionWatcher();
  });
  assert.equal(short, first);
  release();
  assert.equal(await long, second);
  // Watching again after every unit ended turns the tracking back on.
  const again = await watchTransactions(first, async () => {
    await sleep(1);
    return currentTransactionWatcher();
  });
  assert.equal(again, first);
});

test("a unit of work that throws, at once or later, ends its watch", async () => {
  assert.throws(() =>
    watchTransactions(watcher(), () => {
      throw new Error("at once");
    }),
  );
  await assert.rejects(
    watchTransactions(watcher(), async () => {
      await sleep(1);
      throw new Error("later");
    }),
  );
  const mine = watcher();
  assert.equal(
    watchTransactions(mine, () => currentTransactionWatcher()),
    mine,
  );
  assert.equal(currentTransactionWatcher(), undefined);
});
