import { prepareTestDatabases } from "../test/helpers/store.ts";

const target = process.argv[2];
if (!target) throw new Error("usage: prepare-test-db.ts SNAPSHOT_PATH");
await prepareTestDatabases(target);
