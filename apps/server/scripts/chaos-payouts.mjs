#!/usr/bin/env node
/**
 * The long run of the payout money-safety property (docs/RELIABILITY.md):
 * `npm run chaos:payouts -- --runs 10000 [--seed N]` runs that many generated schedules of
 * test/reliability/payout-property.test.ts on the embedded store (or on PostgreSQL with
 * TEST_DATABASE_URL), and prints how many ran and how long they took.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const option = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const runs = option("--runs", "10000");
const seed = option("--seed", "20261126");
const here = dirname(fileURLToPath(import.meta.url));
const started = Date.now();
const result = spawnSync(process.execPath, [join(here, "test.mjs"), "test/reliability/payout-property"], {
  cwd: join(here, ".."),
  stdio: "inherit",
  env: {
    ...process.env,
    PAYOUT_PROPERTY_RUNS: runs,
    PAYOUT_PROPERTY_SEED: seed,
    TEST_TIMEOUT_MS: "86400000",
  },
});
console.log(
  `chaos:payouts: ${runs} schedules, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${result.status}`,
);
process.exit(result.status ?? 1);
