/**
 * Preloaded (`node --import`) into the service the bench starts through its real entrypoint
 * (`satang serve`, bench/lib/servers.ts): counts the statements it sends and times its
 * transactions for the bench (bench/lib/instrument.ts). Nothing else of the service changes.
 */
import { countStatements } from "./lib/instrument.ts";

// Not in the parent of several `satang serve` processes (bench/serve-processes.ts): it sums
// what its children count.
if (process.send && !process.env.BENCH_SERVE_CLUSTER) countStatements();

/**
 * BENCH_GC_LOG=<ms>: the service prints each garbage collection pause of at least that many
 * milliseconds to stderr, with its wall time and kind (1 scavenge, 4 mark-compact, 8
 * incremental marking), to set beside BENCH_OPEN_TIMELINE's half seconds.
 */
if (process.env.BENCH_GC_LOG) {
  const { PerformanceObserver, performance } = await import("node:perf_hooks");
  const least = Number(process.env.BENCH_GC_LOG) || 0;
  const origin = Date.now() - performance.now();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < least) continue;
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      const at = new Date(origin + entry.startTime).toISOString();
      process.stderr.write(`gc ${at} ${entry.duration.toFixed(1)} ms kind ${kind}\n`);
    }
  }).observe({ entryTypes: ["gc"] });
}
