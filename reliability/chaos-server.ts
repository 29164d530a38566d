/**
 * The chaos harness's server process: `satang serve` spawned with its own port and store,
 * killed with SIGKILL and started again. Its output goes to a log file per store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const ADMIN_TOKEN = "chaos-admin-token-0123456789abcdef";
export const SECRET_KEY = "7".repeat(64);

export interface ServerSpec {
  port: number;
  /** DATABASE_URL (PostgreSQL) or undefined for the embedded store in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  logFile: string;
  /** The satang command (default `serve`); `worker` has no HTTP port: its "worker started" line is waited for. */
  args?: string[];
}

export class ChaosServer {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;
  readonly url: string;
  kills = 0;

  constructor(private readonly spec: ServerSpec) {
    this.url = `http://127.0.0.1:${spec.port}`;
    this.log = createWriteStream(spec.logFile, { flags: "a" });
  }

  /** Starts the process and waits until /readyz answers 200; returns how long that took (ms). */
  async start(): Promise<number> {
    const started = Date.now();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(this.spec.port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      SECRET_KEY,
      DATA_DIR: this.spec.dataDir,
      RATE_LIMIT_PER_MINUTE: "10000000",
      SANDBOX_PAYOUT_PICKUP: "automatic",
      LOG_LEVEL: "info",
    };
    if (this.spec.databaseUrl) env.DATABASE_URL = this.spec.databaseUrl;
    else delete env.DATABASE_URL;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "apps/server/src/main.ts"), ...(this.spec.args ?? ["serve"])],
      {
        cwd: ROOT,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.child = child;
    if (this.spec.args?.[0] === "worker") return this.workerStarted(child, started);
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`server exited with ${child.exitCode} (see ${this.spec.logFile})`);
      if (Date.now() - started > 300_000) throw new Error("server did not become ready within 300 s");
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
        if (res.status === 200) return Date.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A worker is up once it says so (after its store is open and its jobs run). */
  private workerStarted(child: ChildProcess, started: number): Promise<number> {
    return new Promise((resolve, reject) => {
      let seen = "";
      const timer = setTimeout(() => {
        done();
        reject(new Error("worker did not start within 300 s"));
      }, 300_000);
      const onData = (chunk: Buffer) => {
        seen = (seen + chunk.toString("utf8")).slice(-4096);
        if (!seen.includes('"msg":"worker started"')) return;
        done();
        resolve(Date.now() - started);
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`worker exited with ${code} (see ${this.spec.logFile})`));
      };
      const done = () => {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.off("exit", onExit);
      };
      child.stdout?.on("data", onData);
      child.once("exit", onExit);
    });
  }

  /** How the process ended if it ended by itself (not by kill() or stop()); undefined while it runs. */
  get exited(): string | undefined {
    const child = this.child;
    if (!child) return undefined;
    if (child.exitCode !== null) return `exit code ${child.exitCode}`;
    if (child.signalCode !== null) return `signal ${child.signalCode}`;
    return undefined;
  }

  /** SIGKILL: no drain, no shutdown hook; whatever was in flight is cut. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    this.kills += 1;
    this.child = undefined;
  }

  /** SIGTERM and wait: the orderly end of a run. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    this.child = undefined;
  }

  close(): void {
    this.log.end();
  }
}
