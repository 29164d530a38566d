/**
 * Preloaded (`node --import`) into the service the bench starts through its real entrypoint
 * (`satang serve`, bench/lib/servers.ts): counts the statements it sends and times its
 * transactions for the bench (bench/lib/instrument.ts). Nothing else of the service changes.
 */
import { countStatements } from "./lib/instrument.ts";

// Not in the parent of several `satang serve` processes (bench/serve-processes.ts): it sums
// what its children count.
if (process.send && !process.env.BENCH_SERVE_CLUSTER) countStatements();
