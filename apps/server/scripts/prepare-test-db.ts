import { dropTemplateDatabase, prepareTestDatabases } from "../test/helpers/store.ts";

const target = process.argv[2];
if (target === "--drop") {
  await dropTemplateDatabase();
} else {
  if (!target) throw new Error("usage: prepare-test-db.ts SNAPSHOT_PATH | --drop");
  await prepareTestDatabases(target);
}
