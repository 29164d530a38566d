#!/usr/bin/env node
// Runs the test suite: prepares one migrated database (a PGlite snapshot, or a PostgreSQL
// template when TEST_DATABASE_URL is set), compiles the `satang` command (scripts/build.mjs) for
// the server and CLI processes that tests start, then runs every test file on a few long-lived
// worker processes (scripts/test-worker.mjs), each running file after file, so that loading the
// application is paid per worker rather than per file. Arguments narrow the run to files whose
// path contains one of them.
//
// A test is cut off after 10 minutes: a bound that catches a hang, not a speed goal. One line is
// printed per file as it ends, every failure in full, and at the end each file's time and the
// counts.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
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
  "test/cli/operator.test.ts",
  "test/dashboard/browser.test.ts",
  "test/cli/backup.test.ts",
  "test/app/readme.test.ts",
  "test/admin/server.test.ts",
  "test/hosted/browser.test.ts",
  "test/cli/dev.test.ts",
  "test/dashboard/browser-roles.test.ts",
  "test/providers/scb/e2e-payouts.test.ts",
  "test/refunds/live-payouts.test.ts",
  "test/cli/first-start.test.ts",
  "test/dashboard/browser-manage.test.ts",
  "test/db/list-pages.test.ts",
  "test/dashboard/browser-dx.test.ts",
  "test/providers/scb/payout-safety.test.ts",
  "test/lifecycle/workers.test.ts",
  "test/app/docs.test.ts",
  "test/dashboard/login.test.ts",
  "test/reliability/fuzz-sample.test.ts",
];
// Files that need a process of their own: they count what a module-level cache has built since
// the process started, which other files in a shared worker would have added to.
const OWN_PROCESS = ["test/db/list-pages.test.ts"];
const rank = (file) => {
  const index = LONGEST_FIRST.indexOf(file);
  return index < 0 ? LONGEST_FIRST.length : index;
};

// Files named *-redis.test.ts prove what needs a Redis (the rate limit's shared budget). With
// TEST_REDIS_URL set (CI sets it) they run, and an unreachable Redis fails them. Without it they
// run when a Redis answers PING at the default address, and are left out (not skipped, and
// said so below) otherwise: `npm test` passes on a machine with nothing but Node.js.
const DEFAULT_REDIS = { host: "127.0.0.1", port: 6379 };
function redisAnswers({ host, port }) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let answer = "";
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}
const allFiles = [...listTests(join(root, "test")), ...listTests(join(root, "../../packages/sdk/test"))]
  .filter((file) => onPostgres || !file.endsWith("-pg.test.ts"))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
const redisFiles = allFiles.filter((file) => file.endsWith("-redis.test.ts"));
// Asked only when the run holds such a file.
const onRedis =
  redisFiles.length === 0 || Boolean(process.env.TEST_REDIS_URL) || (await redisAnswers(DEFAULT_REDIS));
const leftOutForRedis = onRedis ? [] : redisFiles;
const files = allFiles.filter((file) => !leftOutForRedis.includes(file)).sort((a, b) => rank(a) - rank(b));
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
  // A server a test starts on a new DATA_DIR copies the migrated template (the snapshot as a
  // closed store's directory, test/helpers/store.ts) instead of running initdb.
  EMBEDDED_TEMPLATE: `${snapshot}.d`,
  SATANG_TEST_TEMPLATE_READY: "1",
  SATANG_TEST_TEMPLATE: `satang_test_template_${process.pid}`,
};
const store = process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite";
console.log(`# store: ${store}; ${files.length} test files, ${concurrency} at a time`);
const redisNote = leftOutForRedis.length
  ? `# left out (no Redis answers at redis://${DEFAULT_REDIS.host}:${DEFAULT_REDIS.port}; start one, or set TEST_REDIS_URL to require one): ${leftOutForRedis.join(", ")}`
  : undefined;
if (redisNote) console.log(redisNote);

// Server and CLI processes that tests start run the compiled command (scripts/build.mjs).
const built = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, encoding: "utf8" });
if (built.status !== 0) {
  process.stderr.write(built.stderr);
  process.exit(built.status ?? 1);
}
env.SATANG_BUNDLE = built.stdout.trim();

const prepare = spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare-test-db.ts", snapshot], {
  cwd: root,
  env,
  stdio: "inherit",
});
if (prepare.status !== 0) process.exit(prepare.status ?? 1);

const started = Date.now();
const outcome = await runWorkers(files, concurrency);
rmSync(work, { recursive: true, force: true });
if (process.env.TEST_DATABASE_URL) {
  spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare-test-db.ts", "--drop"], {
    cwd: root,
    env,
    stdio: "inherit",
  });
}
printSummary(outcome, (Date.now() - started) / 1000);
process.exit(outcome.ok ? 0 : 1);

// Runs the files on `count` worker processes (scripts/test-worker.mjs), handing each worker the
// next file in the list when it asks, so that the longest files start first and no core idles
// while files remain. A file of OWN_PROCESS runs alone in a fresh worker. Resolves with each
// file's time and the workers' added-up counts.
async function runWorkers(queue, count) {
  const pending = [...queue];
  const outcome = { ok: true, perFile: [], summaries: [], unrun: pending };
  let started = 0;
  const worker = () =>
    new Promise((done) => {
      const summary = join(work, `worker-${started++}.json`);
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 600000}`,
          "--test-reporter=./scripts/test-progress.mjs",
          "--test-reporter-destination=stdout",
          "scripts/test-worker.mjs",
        ],
        {
          cwd: root,
          env: { ...env, SATANG_TEST_SUMMARY: summary },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        },
      );
      let ran = 0;
      let alone = false;
      let finished = false;
      child.on("message", (message) => {
        if (message.type === "done") outcome.perFile.push(message);
        if (message.type === "finished") {
          finished = true;
          endWhenReported(child, summary, message.files);
        }
        if (message.type !== "next") return;
        const next = pending[0];
        const own = next !== undefined && OWN_PROCESS.includes(next);
        if (next === undefined || alone || (own && ran > 0)) {
          child.send({ file: null });
          return;
        }
        pending.shift();
        ran += 1;
        alone = own;
        child.send({ file: next });
      });
      child.on("exit", (code, signal) => {
        if (code !== 0 && !(finished && signal === "SIGKILL")) {
          outcome.ok = false;
          console.log(`# a test worker ended with ${signal ?? `exit code ${code}`}`);
        }
        if (existsSync(summary)) outcome.summaries.push(JSON.parse(readFileSync(summary, "utf8")));
        else outcome.ok = false;
        done(code === 0 || finished);
      });
    });
  const slot = async () => {
    while (pending.length > 0) if (!(await worker())) return;
  };
  await Promise.all(Array.from({ length: Math.min(count, queue.length) }, slot));
  outcome.ok &&= outcome.summaries.every((s) => s.counts.fail === 0 && s.counts.cancelled === 0);
  return outcome;
}

// A worker that has run its last file ends by itself once its test runner is done; one that a
// test's leftover handle (a timer, a socket) keeps alive is ended once its reporter has written
// the counts of every file it ran.
function endWhenReported(child, summary, files) {
  const deadline = Date.now() + 60_000;
  const check = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    let reported = 0;
    try {
      reported = JSON.parse(readFileSync(summary, "utf8")).files;
    } catch {}
    if (reported >= files || Date.now() > deadline) {
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }, 2_000);
      return;
    }
    setTimeout(check, 200);
  };
  check();
}

function printSummary(outcome, seconds) {
  const counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  for (const summary of outcome.summaries) {
    for (const key of Object.keys(counts)) counts[key] += summary.counts[key];
  }
  const rows = [...outcome.perFile].sort((a, b) => b.ms - a.ms);
  const cpu = rows.reduce((sum, row) => sum + row.cpuMs, 0);
  console.log(`# time per test file (wall, and the worker's CPU while it ran), ${rows.length} files`);
  for (const row of rows) {
    console.log(
      `# ${(row.ms / 1000).toFixed(1).padStart(7)} s ${(row.cpuMs / 1000).toFixed(1).padStart(7)} s cpu  ${row.file}`,
    );
  }
  for (const file of outcome.unrun) console.log(`# not run: ${file}`);
  if (redisNote) console.log(redisNote);
  const failed = outcome.summaries.flatMap((summary) => summary.failures);
  for (const name of failed) console.log(`# failed: ${name}`);
  console.log(
    `# tests ${counts.tests}, pass ${counts.pass}, fail ${counts.fail}, cancelled ${counts.cancelled}, ` +
      `skipped ${counts.skipped}, todo ${counts.todo}; files ${rows.length}; ` +
      `${seconds.toFixed(0)} s wall, ${(cpu / 1000).toFixed(0)} s CPU in the workers`,
  );
}
