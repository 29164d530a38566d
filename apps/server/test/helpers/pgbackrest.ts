/**
 * A PostgreSQL cluster of its own with continuous WAL archiving and base backups by pgBackRest
 * (Debian `pgbackrest`), for the point-in-time restore test: its data directory, port, socket
 * directory and backup repository all live under one temporary directory, and `restore` brings a
 * backup back into a fresh data directory, replayed up to a moment, as a second cluster on
 * another port. The settings are docs/operations.md's, with the repository on local disk.
 *
 * PostgreSQL refuses to run as root, and pgBackRest must run as the owner of the data directory:
 * when the test runs as root every command runs as the `postgres` user (runuser), as the failover
 * harness does. Everything started here is stopped by `destroy()`.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const STANZA = "satang";

/** Where pgBackRest is: a missing one fails the suite (CI installs it, .ci/run), never skips it. */
export function pgbackrestPath(): string {
  const path = process.env.PGBACKREST_PATH ?? "/usr/bin/pgbackrest";
  if (!existsSync(path))
    throw new Error(`pgBackRest not found at ${path}: apt-get install pgbackrest (or set PGBACKREST_PATH)`);
  return path;
}

export interface Cluster {
  port: number;
  dataDir: string;
  /** A URL of `database` on this cluster. */
  url(database?: string): string;
}

export class BackedUpCluster implements Cluster {
  readonly dataDir: string;
  private readonly config: string;
  private readonly running = new Set<string>();
  private readonly asRoot = process.getuid?.() === 0;
  private readonly pgbackrest = pgbackrestPath();

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.dataDir = join(dir, "primary");
    this.config = join(dir, "pgbackrest.conf");
  }

  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  private run(file: string, args: string[]): string {
    const [command, argv] = this.asRoot
      ? ["/usr/sbin/runuser", ["-u", "postgres", "--", file, ...args]]
      : [file, args];
    try {
      return execFileSync(command, argv, {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        cwd: this.dir,
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `${file} ${args.join(" ")} failed: ${failed.message}\n${failed.stdout ?? ""}${failed.stderr ?? ""}`,
      );
    }
  }

  /** pgBackRest with this cluster's configuration and stanza. */
  backrest(command: string, ...options: string[]): string {
    return this.run(this.pgbackrest, [`--config=${this.config}`, `--stanza=${STANZA}`, ...options, command]);
  }

  private owned(path: string): void {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.giveToPostgres(path);
  }

  /** Under root, the clusters' user owns it (whatever umask an earlier test left). */
  private giveToPostgres(path: string): void {
    if (!this.asRoot) return;
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(path, uid, gid);
  }

  /** initdb, archiving on, started, and the stanza created and checked (archiving works). */
  create(): void {
    this.owned(this.dir);
    writeFileSync(
      this.config,
      [
        "[global]",
        `repo1-path=${join(this.dir, "repo")}`,
        "repo1-retention-full=2",
        `log-path=${join(this.dir, "log")}`,
        `lock-path=${join(this.dir, "lock")}`,
        "log-level-console=warn",
        "log-level-file=info",
        "start-fast=y",
        "compress-type=lz4",
        "",
        `[${STANZA}]`,
        `pg1-path=${this.dataDir}`,
        `pg1-port=${this.port}`,
        `pg1-socket-path=${this.dir}`,
        "pg1-user=postgres",
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    this.giveToPostgres(this.config);
    this.run(join(PG_BIN, "initdb"), ["-D", this.dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    writeFileSync(
      join(this.dataDir, "postgresql.conf"),
      [
        "",
        `port = ${this.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.dir}'`,
        "wal_level = replica",
        "archive_mode = on",
        `archive_command = '${this.pgbackrest} --config=${this.config} --stanza=${STANZA} archive-push %p'`,
        "archive_timeout = 60",
        "",
      ].join("\n"),
      { flag: "a" },
    );
    this.start(this.dataDir, this.port, []);
    this.backrest("stanza-create");
    this.backrest("check");
  }

  /** A full base backup (a checkpoint at once, not spread). */
  backup(): void {
    this.backrest("backup", "--type=full");
  }

  /**
   * Switches to a new WAL segment and waits until it is archived, so everything committed so
   * far is in the repository (what `pgbackrest check` does). Answers how long that took.
   */
  archiveNow(): number {
    const started = Date.now();
    this.backrest("check");
    return Date.now() - started;
  }

  private start(dataDir: string, port: number, settings: string[]): void {
    this.run(join(PG_BIN, "pg_ctl"), [
      "-D",
      dataDir,
      "-l",
      join(this.dir, `postgres-${port}.log`),
      "-o",
      [`-p ${port}`, ...settings.map((setting) => `-c ${setting}`)].join(" "),
      "-w",
      "-t",
      "120",
      "start",
    ]);
    this.running.add(dataDir);
  }

  /**
   * Restores the latest backup into a fresh data directory, replays the archived WAL up to
   * `targetTime` (commits after it are left out) and promotes it; resolves once it accepts writes.
   * The restored cluster does not archive (it would write a new timeline into this repository).
   */
  async restore(targetTime: string, port: number): Promise<Cluster> {
    const dataDir = join(this.dir, `restored-${port}`);
    this.owned(dataDir);
    this.backrest(
      "restore",
      `--pg1-path=${dataDir}`,
      "--type=time",
      `--target=${targetTime}`,
      "--target-action=promote",
    );
    this.start(dataDir, port, ["archive_mode=off", `unix_socket_directories=${this.dir}`]);
    const restored: Cluster = {
      port,
      dataDir,
      url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    };
    const deadline = Date.now() + 120_000;
    while ((await query<{ r: boolean }>(restored.url(), "select pg_is_in_recovery() as r"))[0]?.r !== false) {
      if (Date.now() > deadline) throw new Error("the restored cluster was not promoted within 120 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return restored;
  }

  /** Stops every cluster started here, at once (nothing of them is kept). */
  destroy(): void {
    for (const dataDir of this.running) {
      try {
        this.run(join(PG_BIN, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Already stopped.
      }
    }
    this.running.clear();
  }
}

/** One query on its own connection. */
export async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}
