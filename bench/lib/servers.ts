/**
 * Starting and stopping the servers the bench loads, and what they report: the service
 * through its real entrypoint (`startServe`: `satang serve` as `npm start` runs it), and
 * bench/server.ts children (`startServer`: the baseline, and the lab build of the service).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childPids } from "./cpu.ts";
import { BENCH_SECRET_KEY } from "./setup.ts";

const serverScript = fileURLToPath(new URL("../server.ts", import.meta.url));
const buildScript = fileURLToPath(new URL("../../apps/server/scripts/build.mjs", import.meta.url));
const instrumentPreload = fileURLToPath(new URL("../instrument-preload.ts", import.meta.url));
const serveProcessesScript = fileURLToPath(new URL("../serve-processes.ts", import.meta.url));

/** The operator token the bench starts the service with (ADMIN_TOKEN). */
export const BENCH_ADMIN_TOKEN = "bench-admin-token-000000";

/**
 * The V8 and Node flags the service's start script gives node (package.json "start": the build,
 * then `node <flags> apps/server/dist/satang.mjs serve`), or BENCH_NODE_FLAGS's.
 */
export const SERVER_NODE_FLAGS: string[] = (() => {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  // BENCH_NODE_FLAGS replaces them, for both servers alike: to try V8's settings (docs/PERFORMANCE.md).
  if (process.env.BENCH_NODE_FLAGS) return process.env.BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean);
  const run = manifest.scripts.start.split("&&").at(-1)!.trim().split(/\s+/);
  return run.filter((word) => word.startsWith("--"));
})();

/**
 * The bench's preload as JavaScript, bundled once per run beside the bench (its `pg` left to
 * resolve to the service's own), so the service runs without the TypeScript loader, as users
 * run it: the loader would add a thread with a heap of its own to the service's RSS and CPU.
 */
let builtPreload: Promise<string> | undefined;
function preload(): Promise<string> {
  builtPreload ??= (async () => {
    const { build } = await import("esbuild");
    const outfile = fileURLToPath(new URL("../dist/instrument-preload.mjs", import.meta.url));
    await build({
      entryPoints: [instrumentPreload],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "warning",
    });
    return outfile;
  })();
  return builtPreload;
}

/** Builds the service's bundle as `npm start` does first; answers the path of its entry. */
async function builtService(): Promise<string> {
  const { buildSatang } = (await import(buildScript)) as { buildSatang: () => Promise<string> };
  return buildSatang();
}

export interface ServerInfo {
  port: number;
  apiKey: string;
  apiSecret: string;
  merchantId: string;
  rowId: string;
}

export interface Started {
  child: ChildProcess;
  info: ServerInfo;
  url: string;
  /** Removed when the server stops (the data directory of `satang serve`). */
  dataDir?: string;
}

/** BENCH_CPU_PROF=dir: the service writes a V8 CPU profile there when it stops (DevTools). */
function profileFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

/**
 * BENCH_SERVE_PROCESSES=N: the service as N `satang serve` processes sharing one port
 * (bench/serve-processes.ts); one by default, as `npm start` runs it.
 */
export function serveProcesses(): number {
  const count = Number(process.env.BENCH_SERVE_PROCESSES ?? 1);
  if (!Number.isInteger(count) || count < 1)
    throw new Error("BENCH_SERVE_PROCESSES must be a whole number >= 1");
  return count;
}

/** `satang serve`'s arguments; BENCH_NO_WORKERS=1 adds `--no-workers` (the API alone, for a comparison). */
function serveArguments(bundle: string): string[] {
  const count = serveProcesses();
  return count > 1
    ? [serveProcessesScript, bundle, String(count)]
    : [bundle, "serve", ...(process.env.BENCH_NO_WORKERS ? ["--no-workers"] : [])];
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  await once(probe, "close");
  return typeof address === "object" && address ? address.port : 0;
}

/** The operator API of a running service: the answer's data, or an error. */
async function admin(
  url: string,
  method: string,
  path: string,
  body: unknown,
): Promise<Record<string, string>> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: Record<string, string> };
  if (!response.ok || !json.data)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function ready(url: string, child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    if (child.exitCode !== null) throw new Error(`satang serve exited with code ${child.exitCode}`);
    const answer = await fetch(`${url}/readyz`).catch(() => undefined);
    if (answer?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("satang serve was not ready within 60 s");
}

/**
 * The service as `npm start` runs it: its bundle built, then `node <the start script's flags>
 * apps/server/dist/satang.mjs serve`, on the database `databaseUrl`, with its default settings
 * (sandbox, workers on, logging at info, every hook and limit) but three: the operator token and
 * the secret key (the service needs both), and RATE_LIMIT_PER_MINUTE (the default, 100 a minute
 * per key in sandbox, would refuse the load). Its log lines go to /dev/null. One merchant is
 * made through the operator API with its defaults (PromptPay reuse on), with an integration
 * and a funded wallet. The only addition is the bench's preload, which counts statements (bundled
 * to JavaScript: `preload`).
 */
export async function startServe(databaseUrl: string): Promise<Started> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "satang-bench-"));
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...profileFlags(),
      // Several processes are started by a TypeScript parent, which needs the loader.
      ...(serveProcesses() > 1 ? ["--import", "tsx"] : []),
      "--import",
      await preload(),
      ...serveArguments(await builtService()),
    ],
    {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: dataDir,
        ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        SECRET_KEY: BENCH_SECRET_KEY.toString("hex"),
        RATE_LIMIT_PER_MINUTE: "10000000",
        ...(serveProcesses() > 1 ? { BENCH_SERVE_CLUSTER: "1" } : {}),
      },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await ready(url, child);
  const merchant = await admin(url, "POST", "/admin/v1/merchants", {
    name: "Bench Shop",
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Bench Shop" },
  });
  const integration = await admin(url, "POST", `/admin/v1/merchants/${merchant.id}/integrations`, {});
  await admin(url, "POST", `/admin/v1/merchants/${merchant.id}/wallet/adjustments`, {
    amount: "100000000.00",
    reason: "bench funding",
  });
  const info: ServerInfo = {
    port,
    apiKey: integration.apiKey!,
    apiSecret: integration.apiSecret!,
    merchantId: merchant.id!,
    rowId: "",
  };
  return { child, info, url, dataDir };
}

/** Starts `mode` with `env` added; resolves once it printed its JSON line. */
export async function startServer(
  mode: "baseline" | "satang",
  env: Record<string, string> = {},
): Promise<Started> {
  // The V8 flags `npm start` gives the service (package.json), for both servers alike.
  const profile = mode === "satang" ? profileFlags() : [];
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...profile, "--import", "tsx", serverScript, mode],
    {
      stdio: ["ignore", "pipe", "inherit", "ipc"],
      env: { ...process.env, ...env },
    },
  );
  let buffer = "";
  child.stdout!.setEncoding("utf8");
  for await (const chunk of child.stdout!) {
    buffer += chunk;
    const line = buffer.split("\n").find((l) => l.startsWith("{"));
    if (line) {
      const info = JSON.parse(line) as ServerInfo;
      child.stdout!.resume();
      return { child, info, url: `http://127.0.0.1:${info.port}` };
    }
  }
  throw new Error(`bench server ${mode} exited before it was ready`);
}

export async function stopServer(started: Started): Promise<void> {
  if (started.child.exitCode === null) {
    started.child.kill("SIGTERM");
    await once(started.child, "exit");
  }
  if (started.dataDir) rmSync(started.dataDir, { recursive: true, force: true });
}

/** The peak resident set size of the server so far (Linux VmHWM), in MB. */
export function peakRssMb(started: Started): number {
  const peakKb = (pid: number) =>
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  // Several processes (BENCH_SERVE_PROCESSES): the largest of them, as the goal is per process.
  const pids = serveProcesses() > 1 ? childPids(started.child.pid!) : [started.child.pid!];
  return Math.round(Math.max(...pids.map(peakKb)) / 1024);
}

/** The server's BEGIN-to-COMMIT times (ms) since the last call. */
export async function transactionTimes(started: Started): Promise<number[]> {
  const answer = once(started.child, "message");
  started.child.send("tx-times");
  const [message] = (await answer) as [{ txTimes: number[] }];
  return message.txTimes;
}

/** The statements the server sent to PostgreSQL since the last call (0 on the embedded store). */
export async function statementsSent(started: Started): Promise<number> {
  const answer = once(started.child, "message");
  started.child.send("statements");
  const [message] = (await answer) as [{ statements: number }];
  return message.statements;
}

/**
 * The statements the server sent since the last call, counted by text (their first 120
 * characters), most sent first: what a load's `statements per request` is made of.
 */
export async function statementTexts(started: Started): Promise<[string, number][]> {
  const answer = once(started.child, "message");
  started.child.send("statement-texts");
  const [message] = (await answer) as [{ texts: [string, number][] }];
  return message.texts;
}

/**
 * BENCH_STATEMENTS=1: logs what the statements a load sent were (statementTexts), per answered
 * request, after the load. Call with `answered` undefined before the load to start counting.
 */
export async function logStatementTexts(
  started: Started,
  log: (message: string) => void,
  load?: { label: string; answered: number },
): Promise<void> {
  if (!process.env.BENCH_STATEMENTS) return;
  const texts = await statementTexts(started);
  if (!load) return;
  const lines = texts.map(([text, n]) => `  ${(n / Math.max(1, load.answered)).toFixed(3)}  ${n}  ${text}`);
  log(`${load.label}: statements sent during the load, per answered request\n${lines.join("\n")}`);
}
