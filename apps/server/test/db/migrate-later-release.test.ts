/**
 * A database a later release has migrated (a rollback after an upgrade): this release refuses to
 * run on it, says which migration it does not know and what to do, and changes nothing.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { sql } from "kysely";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { openTestStore, type TestStore } from "../helpers/store.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(async () => {
  await store?.close();
});

it("refuses a database with a migration of a later release, naming it, and changes nothing", async () => {
  assert.deepEqual((await migrateToLatest(store.db)).applied, [], "the test store starts migrated");
  const later = "9999_a_later_release";
  await sql`insert into kysely_migration (name, timestamp) values (${later}, ${new Date().toISOString()})`.execute(
    store.db,
  );
  const count = async () =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(store.db)).rows[0]!.n,
    );
  const before = await count();
  await assert.rejects(migrateToLatest(store.db), (error: Error) => {
    assert.match(error.message, /migrated by a later release of Satang/);
    assert.match(error.message, new RegExp(`its migration ${later} is not one this release has`));
    assert.match(error.message, /restore the backup taken before the upgrade/);
    return true;
  });
  assert.equal(await count(), before);
});
