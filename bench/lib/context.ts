/** What every scenario gets: the run's settings, the started servers and where rows go. */
import type { Row } from "./report.ts";
import type { Started } from "./servers.ts";
import type { Bench } from "./setup.ts";

export interface Settings {
  quick: boolean;
  /** BENCH_SECONDS: each closed-loop and open-loop measurement. */
  seconds: number;
  /** BENCH_CONNECTIONS: closed-loop clients. */
  connections: number;
  /** BENCH_WALLETS: wallets the spread withdraws go over (R4). */
  wallets: number;
  /** BENCH_WITHDRAWS_SEED: withdraws already in the hot month (R6). */
  withdrawsSeed: number;
  /** BENCH_PAYMENTS_SEED: payments of the large merchant (R7). */
  paymentsSeed: number;
}

export interface Context {
  settings: Settings;
  bench: Bench;
  baseline: Started;
  satang: Started;
  rows: Row[];
  log(message: string): void;
}

export function settingsOf(argv: string[], env: NodeJS.ProcessEnv): Settings {
  const quick = argv.includes("--quick");
  const number = (name: string, full: number, short: number) => Number(env[name] ?? (quick ? short : full));
  return {
    quick,
    seconds: number("BENCH_SECONDS", 10, 3),
    connections: number("BENCH_CONNECTIONS", 32, 32),
    wallets: number("BENCH_WALLETS", 1_000, 100),
    withdrawsSeed: number("BENCH_WITHDRAWS_SEED", 100_000, 10_000),
    paymentsSeed: number("BENCH_PAYMENTS_SEED", 1_000_000, 100_000),
  };
}
