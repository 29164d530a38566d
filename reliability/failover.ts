/**
 * `npm run chaos -- --failover`: the failover test (docs/RELIABILITY.md). A pg_auto_failover
 * monitor, a primary and its synchronous standby on this machine (failover-cluster.ts), two API
 * processes (`serve --no-workers`) and a worker (`worker`) on the multi-host DATABASE_URL, the
 * chaos harness's mixed workload against both APIs; then round after round the primary is lost
 * (odd rounds: its postmaster SIGKILLed; even rounds: its data directory made unreadable and
 * its postmaster killed), the engine promotes the standby, the old primary rejoins as a
 * standby (made readable again first), and the next round waits for the pair to be healthy and
 * synchronous. A postmaster that its keeper restarts in place before the monitor starts a
 * failover is not a failover: the node is then lost as a machine is (keeper and postmaster
 * killed), and its keeper started again once the standby is promoted.
 * Afterwards every invariant of the chaos harness is checked on the new primary, including
 * that every write acknowledged before or during a switch is there.
 *
 * Per round: the unavailability seen by a probe that writes every 100 ms (first refusal or
 * failure to first success after it), and the time to the promotion and to the rejoin.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../apps/server/src/db/connect.ts";
import { checkInvariants, type InvariantResult } from "./chaos-check.ts";
import { ChaosServer } from "./chaos-server.ts";
import { Client, createMerchants, type Merchant, runWorkload, Tally } from "./chaos-workload.ts";
import { FailoverCluster } from "./failover-cluster.ts";

export interface FailoverOptions {
  rounds: number;
  workers: number;
  basePort: number;
  webhookUrl: string;
}

interface Round {
  round: number;
  fault: "sigkill" | "unreadable";
  /**
   * The keeper restarted the postmaster in place and the monitor started no failover, so the
   * node was then lost as a machine (keeper and postmaster killed); times run from that loss.
   */
  machineLost: boolean;
  /** For such a round, the probe's unavailability while the postmaster restarted in place. */
  inPlaceRestartMs: number | undefined;
  oldPrimary: number;
  newPrimary: number;
  /** From the loss to the monitor's promotion of the standby (ms). */
  promotedMs: number;
  /** First refused or failed probe write to the first successful one after it (ms). */
  unavailableMs: number;
  probeRefusals: number;
  rejoinedMs: number;
}

export interface FailoverRun {
  rounds: Round[];
  requests: number;
  byStatus: Record<string, number>;
  noAnswer: number;
  unexpected5xx: string[];
  acknowledgedWrites: number;
  invariants: InvariantResult[];
  /** API or worker processes that ended by themselves during the run (none expected). */
  processesExited: string[];
  durationS: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes one small payment every 100 ms and keeps when each write failed or succeeded. */
class Probe {
  private readonly outcomes: { at: number; ok: boolean }[] = [];
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly merchant: Merchant,
  ) {}

  start(): void {
    this.loop = (async () => {
      let n = 0;
      while (this.running) {
        n += 1;
        const answer = await this.client.send(
          "POST",
          "/api/v1/payments",
          {
            amount: "100.00",
            referenceId: `probe-${process.pid}-${n}`,
            paymentMethod: "promptpay",
            customerBankAccountName: "Somchai Jaidee",
            customerBankAccountNumber: String(5_000_000_000 + n),
            customerBankCode: "014",
          },
          this.merchant,
        );
        this.outcomes.push({ at: Date.now(), ok: answer?.status === 201 });
        await sleep(100);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Unavailability after `since` (and before `until`): first failure to the first success after it. */
  gapAfter(since: number, until = Number.POSITIVE_INFINITY): { ms: number; refusals: number } {
    const after = this.outcomes.filter((o) => o.at >= since && o.at < until);
    const first = after.findIndex((o) => !o.ok);
    if (first < 0) return { ms: 0, refusals: 0 };
    const back = after.slice(first).find((o) => o.ok);
    const refusals = after.slice(first).filter((o) => !o.ok && (!back || o.at < back.at)).length;
    return { ms: back ? back.at - after[first]!.at : Number.NaN, refusals };
  }
}

/**
 * How long after its postmaster's SIGKILL the monitor is given to start a failover. The
 * monitor's checks notice a dead PostgreSQL within about 2 s (1 s period, 2 s unhealthy); a
 * keeper that restarts the postmaster in place first (within a second on a quiet machine)
 * leaves it nothing to notice, and the node is then lost as a machine is.
 */
const FAILOVER_START_WINDOW_MS = 6_000;

async function oneRound(cluster: FailoverCluster, probe: Probe, round: number): Promise<Round> {
  const fault = round % 2 === 1 ? "sigkill" : "unreadable";
  const oldPrimary = await cluster.primaryPort();
  if (oldPrimary === undefined) throw new Error("no primary before the round");
  await sleep(1_000 + Math.random() * 1_000);
  const faultAt = Date.now();
  if (fault === "sigkill") cluster.killPostmaster(oldPrimary);
  else cluster.breakDataDir(oldPrimary);
  let lostAt = faultAt;
  let machineLost = false;
  const started = await cluster.until(() => cluster.failoverStarted(oldPrimary), FAILOVER_START_WINDOW_MS);
  if (started === undefined) {
    // Restarted in place by its keeper (or still being restarted): no failover. The node's
    // loss is made real: its keeper and postmaster stop, as when its machine goes.
    machineLost = true;
    lostAt = Date.now();
    cluster.killNode(oldPrimary);
  }
  let newPrimary = oldPrimary;
  await cluster.waitFor(
    "the standby's promotion",
    async () => {
      newPrimary = (await cluster.primaryPort()) ?? oldPrimary;
      return newPrimary !== oldPrimary;
    },
    120_000,
  );
  const promotedMs = Date.now() - lostAt;
  // The directory readable again as soon as the standby is promoted: its keeper, still running,
  // then rewinds it to follow the new primary. A rewind tried while it was still unreadable
  // fails, and the keeper clones the new primary afresh (pg_basebackup: slower, as slow as the
  // new primary's next checkpoint).
  if (fault === "unreadable") cluster.repairDataDir(oldPrimary);
  // Let the probe see the service on the new primary.
  await sleep(3_000);
  if (machineLost) cluster.restartNode(oldPrimary);
  const rejoinedMs = await cluster.waitFor(
    "the old primary to rejoin as a synchronous standby",
    () => cluster.ready(),
    180_000,
  );
  const inPlace = machineLost ? probe.gapAfter(faultAt, lostAt) : undefined;
  const gap = probe.gapAfter(lostAt);
  return {
    round,
    fault,
    machineLost,
    inPlaceRestartMs: inPlace?.ms,
    oldPrimary,
    newPrimary,
    promotedMs,
    unavailableMs: gap.ms,
    probeRefusals: gap.refusals,
    rejoinedMs,
  };
}

export async function runFailover(options: FailoverOptions): Promise<FailoverRun> {
  const started = Date.now();
  const temp = mkdtempSync(join(tmpdir(), "satang-failover-"));
  // The cluster runs as the postgres user (when the harness is root): it must reach its directory.
  chmodSync(temp, 0o711);
  const cluster = new FailoverCluster(join(temp, "cluster"), options.basePort + 100);
  const servers = [0, 1].map(
    (i) =>
      new ChaosServer({
        port: options.basePort + i,
        databaseUrl: cluster.databaseUrl,
        dataDir: join(temp, `data-${i}`),
        logFile: join(temp, `api-${i}.log`),
        args: ["serve", "--no-workers"],
      }),
  );
  const worker = new ChaosServer({
    port: options.basePort + 2,
    databaseUrl: cluster.databaseUrl,
    dataDir: join(temp, "data-worker"),
    logFile: join(temp, "worker.log"),
    args: ["worker"],
  });
  const tally = new Tally();
  let turn = 0;
  const client = new Client(() => servers[turn++ % 2]!.url, tally);
  let store: Store | undefined;
  const rounds: Round[] = [];
  try {
    console.log(`failover: cluster in ${cluster.dir}, logs in ${temp}`);
    await cluster.create();
    console.log("failover: monitor, primary and synchronous standby up");
    // The first API process applies the migrations; the second and the worker then start.
    await servers[0]!.start();
    await servers[1]!.start();
    await worker.start();
    const merchants = await createMerchants(client, 4, options.webhookUrl);
    const probe = new Probe(client, merchants[0]!);
    let done = false;
    const workload = runWorkload(client, merchants, options.workers, () => done);
    probe.start();
    try {
      for (let round = 1; round <= options.rounds; round++) {
        const result = await oneRound(cluster, probe, round);
        rounds.push(result);
        console.log(`  round ${round} (${describeFault(result)}): ${describeRound(result)}`);
      }
      await sleep(2_000);
    } finally {
      done = true;
      await probe.stop();
      await workload;
    }
    await sleep(3_000);
    const processesExited = [
      ...servers.map((server, i) => ({ name: `API ${i + 1}`, exited: server.exited })),
      { name: "worker", exited: worker.exited },
    ]
      .filter((p) => p.exited !== undefined)
      .map((p) => `${p.name} ended by itself (${p.exited})`);
    for (const server of [...servers, worker]) await server.stop();
    store = await openStore({ databaseUrl: cluster.databaseUrl });
    const invariants = await checkInvariants(store.db, merchants, tally);
    return {
      rounds,
      requests: tally.requests,
      byStatus: tally.byStatus,
      noAnswer: tally.noAnswer,
      unexpected5xx: tally.serverErrors,
      acknowledgedWrites: tally.acknowledged.length,
      invariants,
      processesExited,
      durationS: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    for (const server of [...servers, worker]) {
      await server.kill().catch(() => {});
      server.close();
    }
    await store?.close().catch(() => {});
    await cluster.destroy();
    if (!process.env.FAILOVER_KEEP_LOGS) rmSync(temp, { recursive: true, force: true });
  }
}

function describeFault(round: Round): string {
  if (!round.machineLost) return round.fault;
  return `${round.fault}, restarted in place by its keeper (writes unavailable ${round.inPlaceRestartMs} ms), then the machine lost`;
}

function describeRound(round: Round): string {
  return (
    `promoted in ${round.promotedMs} ms, writes unavailable ${round.unavailableMs} ms, ` +
    `rejoined as a synchronous standby in ${round.rejoinedMs} ms`
  );
}

export function reportFailover(run: FailoverRun): boolean {
  const gaps = run.rounds.map((r) => r.unavailableMs).filter((ms) => Number.isFinite(ms));
  const max = Math.max(0, ...gaps);
  const mean = Math.round(gaps.reduce((s, x) => s + x, 0) / Math.max(1, gaps.length));
  const lost = run.invariants.find((i) => i.name.startsWith("every acknowledged"));
  console.log(`\n== failover: ${run.rounds.length} failovers in ${run.durationS} s`);
  for (const round of run.rounds)
    console.log(`  round ${round.round} (${describeFault(round)}): ${describeRound(round)}`);
  const lostMachines = run.rounds.filter((r) => r.machineLost).length;
  console.log(
    `  rounds whose keeper restarted the postmaster in place, then lost as a machine: ${lostMachines}`,
  );
  console.log(`  writes unavailable per failover: mean ${mean} ms, max ${max} ms`);
  console.log(
    `  promotion: max ${Math.max(0, ...run.rounds.map((r) => r.promotedMs))} ms; ` +
      `rejoin as standby: max ${Math.max(0, ...run.rounds.map((r) => r.rejoinedMs))} ms`,
  );
  console.log(
    `  requests answered ${run.requests}, unanswered ${run.noAnswer}; by status ${JSON.stringify(run.byStatus)}`,
  );
  console.log(
    `  acknowledged writes checked ${run.acknowledgedWrites}; lost ${lost ? lost.problems.length : "?"}`,
  );
  for (const inv of run.invariants) {
    console.log(`  ${inv.ok ? "ok  " : "FAIL"} ${inv.name} (${inv.checked} checked)`);
    for (const problem of inv.problems) console.log(`       ${problem}`);
  }
  for (const line of run.unexpected5xx.slice(0, 10)) console.log(`  unexpected: ${line}`);
  for (const line of run.processesExited) console.log(`  FAIL ${line}`);
  const everyRoundBack = run.rounds.every((r) => Number.isFinite(r.unavailableMs));
  return (
    run.invariants.every((i) => i.ok) &&
    run.unexpected5xx.length === 0 &&
    run.processesExited.length === 0 &&
    everyRoundBack
  );
}
