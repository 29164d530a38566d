#!/usr/bin/env node
// Runs the test suite: prepares one migrated database (a PGlite snapshot, or a PostgreSQL
// template when TEST_DATABASE_URL is set), then runs every test file with node's test runner.
// Arguments narrow the run to files whose path contains one of them.
//
// Two files run at a time. A test (and a whole file) is cut off after 10 minutes: a bound that
// catches a hang, not a speed goal, so the suite passes on a busy 2-core machine where one file
// that spawns servers can take minutes. Where the time goes is printed at the end, per file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);

function listTests(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listTests(full));
    else if (name.endsWith(".test.ts")) out.push(relative(root, full));
  }
  return out.sort();
}

// Files named *-pg.test.ts prove what only PostgreSQL can show (several processes on one
// database): they run when TEST_DATABASE_URL is set, and are left out (not skipped) otherwise.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
// The files that take longest start first, so that the last minutes of a run are not one long
// file alone on a core while the other idles (longest-first packing). Measured per file with the
// time table this script prints; a file missing here simply runs in alphabetical order.
const LONGEST_FIRST = [
  "test/admin/server.test.ts",
  "test/cli/operator.test.ts",
  "test/cli/first-start.test.ts",
  "test/app/docs.test.ts",
  "test/admin/api.test.ts",
  "test/lib/error-metadata-types.test.ts",
  "test/dashboard/browser.test.ts",
  "test/lifecycle/workers.test.ts",
  "test/dashboard/login.test.ts",
  "test/app/readme.test.ts",
  "test/app/data-dir-permissions.test.ts",
  "test/hosted/page.test.ts",
  "test/cli/dev.test.ts",
  "test/cli/money.test.ts",
];
const rank = (file) => {
  const index = LONGEST_FIRST.indexOf(file);
  return index < 0 ? LONGEST_FIRST.length : index;
};
const files = [...listTests(join(root, "test")), ...listTests(join(root, "../../packages/sdk/test"))]
  .filter((file) => onPostgres || !file.endsWith("-pg.test.ts"))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort((a, b) => rank(a) - rank(b));
// Files run side by side: one more than the cores, since most files spend part of their time
// waiting (for a spawned server, a browser, a timer) rather than computing. TEST_CONCURRENCY
// overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1;
if (files.length === 0) {
  console.error("no test files match");
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), "satang-test-"));
const snapshot = join(work, "snapshot.tar");
const env = {
  ...process.env,
  SATANG_TEST_SNAPSHOT: snapshot,
  // A server a test starts on a new DATA_DIR begins from the snapshot instead of running initdb.
  EMBEDDED_TEMPLATE: snapshot,
  SATANG_TEST_TEMPLATE_READY: "1",
  SATANG_TEST_TEMPLATE: `satang_test_template_${process.pid}`,
};
const store = process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
console.log(`# store: ${store}; ${files.length} test files, ${concurrency} at a time`);

const prepare = spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare-test-db.ts", snapshot], {
  cwd: root,
  env,
  stdio: "inherit",
});
if (prepare.status !== 0) process.exit(prepare.status ?? 1);

const run = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 600000}`,
    "--test-reporter=tap",
    "--test-reporter-destination=stdout",
    "--test-reporter=./scripts/file-times.mjs",
    "--test-reporter-destination=stdout",
    ...files,
  ],
  { cwd: root, env, stdio: "inherit" },
);
rmSync(work, { recursive: true, force: true });
if (process.env.TEST_DATABASE_URL) {
  spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare-test-db.ts", "--drop"], {
    cwd: root,
    env,
    stdio: "inherit",
  });
}
process.exit(run.status ?? 1);
