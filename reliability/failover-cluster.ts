/**
 * A pg_auto_failover formation on this machine for the failover test (docs/RELIABILITY.md): a
 * monitor and two PostgreSQL nodes (a primary and its synchronous standby), each with its own
 * data directory and port under a temporary directory, each run by its own `pg_autoctl run`
 * (the keeper). PostgreSQL refuses to run as root, so when the harness runs as root every
 * command runs as the `postgres` user (runuser). Everything started here is stopped by
 * `destroy()`, which the harness calls whatever happened.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import pg from "pg";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function kill(pid: number | undefined): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

/**
 * The monitor's health checks, tightened from their defaults (5 s period, 20 s before a node
 * is unhealthy) so a run of many failovers fits in minutes; docs/DEPLOYMENT.md gives the values
 * for production. `primary_demote_timeout` is how long the monitor waits for a primary whose
 * keeper no longer reports (the machine is gone) to have demoted itself before it promotes the
 * standby (default 30 s); it is kept above the keepers' own network partition timeout
 * (KEEPER_SETTINGS, default 20 s), after which a primary that reaches neither the monitor nor
 * its standby stops serving.
 */
const MONITOR_SETTINGS: Record<string, number> = {
  "pgautofailover.health_check_period": 1000,
  "pgautofailover.health_check_timeout": 1000,
  "pgautofailover.health_check_retry_delay": 500,
  "pgautofailover.health_check_max_retries": 1,
  "pgautofailover.node_considered_unhealthy_timeout": 2000,
  "pgautofailover.primary_demote_timeout": 5000,
};

/** Each keeper's settings (seconds), tightened with the monitor's. */
const KEEPER_SETTINGS: Record<string, number> = {
  "timeout.network_partition_timeout": 3,
};

/** States in which a node serves writes (or is about to, alone). */
const PRIMARY_STATES = ["primary", "wait_primary", "single"];
/** Goals the monitor gives the standby once it has decided to fail over. */
const PROMOTION_GOALS = [
  "report_lsn",
  "prepare_promotion",
  "stop_replication",
  "fast_forward",
  "wait_primary",
  "primary",
  "single",
];

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
  /** The monitor's health check: 1 good, 0 bad, -1 not yet known. */
  health: number;
  /** Whether the keeper last reported its PostgreSQL running. */
  running: boolean;
}

interface Keeper {
  child: ChildProcess;
  pgdata: string;
}

export class FailoverCluster {
  readonly monitorPort: number;
  readonly nodePorts: [number, number];
  private readonly keepers: Keeper[] = [];
  private readonly asRoot = process.getuid?.() === 0;

  constructor(
    readonly dir: string,
    basePort: number,
    readonly database = "satang",
  ) {
    this.monitorPort = basePort;
    this.nodePorts = [basePort + 1, basePort + 2];
  }

  get monitorUrl(): string {
    return `postgres://autoctl_node@127.0.0.1:${this.monitorPort}/pg_auto_failover?sslmode=disable`;
  }

  /** The service's DATABASE_URL: both nodes, the primary wanted. */
  get databaseUrl(): string {
    const hosts = this.nodePorts.map((port) => `127.0.0.1:${port}`).join(",");
    return `postgres://postgres@${hosts}/${this.database}?target_session_attrs=read-write`;
  }

  nodeUrl(port: number, database = this.database): string {
    return `postgres://postgres@127.0.0.1:${port}/${database}`;
  }

  private command(args: string[]): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
    const env = {
      HOME: this.dir,
      XDG_CONFIG_HOME: join(this.dir, "config"),
      XDG_DATA_HOME: join(this.dir, "share"),
      XDG_RUNTIME_DIR: join(this.dir, "run"),
      PATH: `${PG_BIN}:/usr/bin:/bin:/usr/sbin:/sbin`,
      PG_AUTOCTL_DEBUG: "",
    };
    if (!this.asRoot) return { file: "pg_autoctl", args, env: { ...process.env, ...env } };
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return {
      file: "/usr/sbin/runuser",
      args: ["-u", "postgres", "--", "env", ...assignments, "pg_autoctl", ...args],
      env: {},
    };
  }

  /**
   * `pg_autoctl config set` on a running keeper. The keeper rewrites its configuration file in
   * place as its state moves, and a `config set` that reads it mid-write finds it empty ("Failed
   * to find section pg_autoctl"): read again after a moment, a few times.
   */
  private async setKeeperConfig(pgdata: string, name: string, value: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        this.run(["config", "set", "--pgdata", pgdata, name, value]);
        return;
      } catch (error) {
        const text = String((error as { stderr?: unknown }).stderr ?? error);
        if (attempt >= 10 || !/Failed to (find section|parse configuration file)/.test(text)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  private run(args: string[]): string {
    const { file, args: argv, env } = this.command(args);
    return execFileSync(file, argv, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  }

  private keep(pgdata: string, args: string[], log: string): void {
    const { file, args: argv, env } = this.command(args);
    const out = createWriteStream(join(this.dir, log), { flags: "a" });
    // Its own process group, so the keeper and the PostgreSQL it starts stop together.
    const child = spawn(file, argv, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.keepers.push({ child, pgdata });
  }

  /** Creates and starts the monitor and both nodes; resolves once primary and secondary. */
  async create(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    if (this.asRoot) {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
      chownSync(this.dir, uid, gid);
    }
    const monitor = join(this.dir, "monitor");
    this.run([
      "create",
      "monitor",
      "--pgdata",
      monitor,
      "--pgport",
      String(this.monitorPort),
      "--hostname",
      "127.0.0.1",
      "--auth",
      "trust",
      "--no-ssl",
    ]);
    this.keep(monitor, ["run", "--pgdata", monitor], "monitor.log");
    await this.waitFor(
      "the monitor",
      async () => (await this.monitorQuery("select 1")) !== undefined,
      60_000,
    );
    for (const [name, value] of Object.entries(MONITOR_SETTINGS))
      await this.monitorQuery(`alter system set ${name} = ${value}`, "postgres");
    await this.monitorQuery("select pg_reload_conf()", "postgres");
    for (const [i, port] of this.nodePorts.entries()) {
      const pgdata = join(this.dir, `node${i + 1}`);
      this.keep(
        pgdata,
        [
          "create",
          "postgres",
          "--pgdata",
          pgdata,
          "--pgport",
          String(port),
          "--name",
          `node${i + 1}`,
          "--hostname",
          "127.0.0.1",
          "--auth",
          "trust",
          "--no-ssl",
          "--dbname",
          this.database,
          "--monitor",
          this.monitorUrl,
          "--run",
        ],
        `node${i + 1}.log`,
      );
      // The first node initialises alone; the second then clones it as its standby. Its
      // pg_basebackup waits for a checkpoint, spread over minutes by default: ask for it now.
      await this.waitFor(
        `node${i + 1}`,
        async () => {
          if (i > 0) await this.nodeQuery(this.nodePorts[0], "checkpoint");
          const states = await this.states();
          return i === 0 ? states.some((s) => s.reported === "single") : this.healthy(states);
        },
        180_000,
      );
      for (const [name, value] of Object.entries(KEEPER_SETTINGS))
        await this.setKeeperConfig(pgdata, name, String(value));
      this.run(["reload", "--pgdata", pgdata]);
    }
  }

  /** A query on the monitor's database; undefined when it cannot be reached. */
  async monitorQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    user = "autoctl_node",
  ): Promise<R[] | undefined> {
    const client = new pg.Client({
      connectionString: `postgres://${user}@127.0.0.1:${this.monitorPort}/pg_auto_failover`,
      connectionTimeoutMillis: 2_000,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      return (await client.query<R>(text)).rows;
    } catch {
      return undefined;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** A statement on a node as postgres; false when it could not be run. */
  async nodeQuery(port: number, text: string): Promise<boolean> {
    return (await this.nodeRows(port, text)) !== undefined;
  }

  /** A query on a node as postgres; undefined when it could not be run. */
  async nodeRows<R extends pg.QueryResultRow = pg.QueryResultRow>(
    port: number,
    text: string,
  ): Promise<R[] | undefined> {
    const client = new pg.Client({
      connectionString: this.nodeUrl(port, "postgres"),
      connectionTimeoutMillis: 2_000,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      return (await client.query<R>(text)).rows;
    } catch {
      return undefined;
    } finally {
      await client.end().catch(() => {});
    }
  }

  async states(): Promise<NodeState[]> {
    const rows = await this.monitorQuery<{
      nodename: string;
      nodeport: number;
      r: string;
      a: string;
      health: number;
      running: boolean;
    }>(
      "select nodename, nodeport, reportedstate::text as r, goalstate::text as a, health, " +
        "reportedpgisrunning as running from pgautofailover.node order by nodeid",
    );
    return (rows ?? []).map((row) => ({
      name: row.nodename,
      port: row.nodeport,
      reported: row.r,
      assigned: row.a,
      health: row.health,
      running: row.running,
    }));
  }

  /** One primary and one secondary, both where the monitor wants them. */
  healthy(states: NodeState[]): boolean {
    const settled = states.filter((s) => s.reported === s.assigned);
    return (
      states.length === 2 &&
      settled.length === 2 &&
      states.some((s) => s.reported === "primary") &&
      states.some((s) => s.reported === "secondary")
    );
  }

  /**
   * The node the monitor has as the primary: reported and assigned a primary's state. A node
   * whose keeper is gone keeps its last reported state ("primary") while the monitor has
   * already assigned it `demote_timeout` or `demoted`: it is not the primary any more.
   */
  async primaryPort(): Promise<number | undefined> {
    const states = await this.states();
    return states.find((s) => PRIMARY_STATES.includes(s.reported) && PRIMARY_STATES.includes(s.assigned))
      ?.port;
  }

  /** Whether the monitor has decided to promote a node other than `oldPrimary`. */
  async failoverStarted(oldPrimary: number): Promise<boolean> {
    const states = await this.states();
    return states.some((s) => s.port !== oldPrimary && PROMOTION_GOALS.includes(s.assigned));
  }

  /**
   * Ready for the next loss: a primary and a secondary where the monitor wants them, both
   * running and healthy to the monitor (so the secondary is a candidate for promotion), and
   * the primary's commits waiting for that standby (synchronous replication streaming).
   */
  async ready(): Promise<boolean> {
    const states = await this.states();
    if (!this.healthy(states) || !states.every((s) => s.health === 1 && s.running)) return false;
    const primary = states.find((s) => s.reported === "primary");
    if (!primary) return false;
    const rows = await this.nodeRows<{ n: number }>(
      primary.port,
      "select count(*)::int as n from pg_stat_replication " +
        "where state = 'streaming' and sync_state in ('sync', 'quorum') " +
        "and current_setting('synchronous_standby_names') <> ''",
    );
    return (rows?.[0]?.n ?? 0) > 0;
  }

  async waitFor(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const waited = await this.until(done, timeoutMs);
    if (waited === undefined) throw new Error(`failover cluster: gave up waiting for ${what}`);
    return waited;
  }

  /** Milliseconds until `done`, or undefined when it did not happen within `timeoutMs`. */
  async until(done: () => Promise<boolean>, timeoutMs: number): Promise<number | undefined> {
    const started = Date.now();
    while (!(await done())) {
      if (Date.now() - started > timeoutMs) return undefined;
      await sleep(250);
    }
    return Date.now() - started;
  }

  private dataDirOf(port: number): string {
    const index = this.nodePorts.indexOf(port);
    if (index < 0) throw new Error(`no node on port ${port}`);
    return join(this.dir, `node${index + 1}`);
  }

  /**
   * The node's machine is lost: SIGKILL to its keeper (its whole process group: the keeper's
   * services and the PostgreSQL it started) and to its postmaster. Nothing restarts it; the
   * monitor, with no report from the keeper, promotes the standby once the node is unhealthy
   * and the demote timeout has passed. `restartNode` brings the keeper back, which rejoins.
   */
  killNode(port: number): void {
    const pgdata = this.dataDirOf(port);
    // Read before the kills, so a pid left in a stale file is never signalled.
    const postmaster = this.postmasterPid(port);
    for (const keeper of this.keepers) if (keeper.pgdata === pgdata) this.signal(keeper, "SIGKILL");
    kill(postmaster);
  }

  /** A new keeper for the node (`pg_autoctl run`): it rejoins as the standby. */
  restartNode(port: number): void {
    const pgdata = this.dataDirOf(port);
    this.keep(pgdata, ["run", "--pgdata", pgdata], `${pgdata.split("/").pop()}.log`);
  }

  /** SIGKILL to the node's postmaster (its keeper then restarts it, as a standby if demoted). */
  killPostmaster(port: number): void {
    kill(this.postmasterPid(port));
  }

  private postmasterPid(port: number): number | undefined {
    const pidFile = join(this.dataDirOf(port), "postmaster.pid");
    if (!existsSync(pidFile)) return undefined;
    return Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  }

  /** The node's data directory made unreadable, then its postmaster killed: it cannot come back. */
  breakDataDir(port: number): void {
    const pid = this.postmasterPid(port);
    // Unreadable first, so the keeper cannot restart PostgreSQL in the meantime.
    chmodSync(this.dataDirOf(port), 0o000);
    kill(pid);
  }

  /** The data directory readable again: the keeper restarts the node, which rejoins as a standby. */
  repairDataDir(port: number): void {
    chmodSync(this.dataDirOf(port), 0o700);
  }

  /** Stops every keeper (and so its PostgreSQL), then makes sure no postmaster is left. */
  async destroy(): Promise<void> {
    for (const keeper of [...this.keepers].reverse()) {
      if (keeper.pgdata.endsWith("monitor")) continue;
      this.signal(keeper, "SIGTERM");
    }
    await sleep(3_000);
    const monitor = this.keepers.find((k) => k.pgdata.endsWith("monitor"));
    if (monitor) this.signal(monitor, "SIGTERM");
    await sleep(2_000);
    for (const keeper of this.keepers) {
      this.signal(keeper, "SIGKILL");
      if (existsSync(keeper.pgdata)) chmodSync(keeper.pgdata, 0o700);
      const pidFile = join(keeper.pgdata, "postmaster.pid");
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
    await sleep(500);
    if (!process.env.FAILOVER_KEEP_LOGS) rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  private signal(keeper: Keeper, signal: NodeJS.Signals): void {
    const pid = keeper.child.pid;
    // A keeper already gone is not signalled: its process group id may belong to another now.
    if (pid === undefined || keeper.child.exitCode !== null || keeper.child.signalCode !== null) return;
    try {
      process.kill(-pid, signal);
    } catch {}
  }
}
