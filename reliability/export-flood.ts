/**
 * The export flood probe (CONTRACT 11 and 14 isolation): merchant A with 6,000 payments sends
 * 300 signed `GET /api/v1/reports/payments.csv` for a year at once, from three client addresses
 * (127.0.0.1-3), while merchant B reads its balance and anyone reads /healthz every 100 ms.
 *
 *   npm run probe:exports -- [--exports 300] [--rows 6000] [--store postgres|embedded] [--retry]
 *                            [--seconds 5]
 *
 * PostgreSQL is FLOOD_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). Without
 * --retry each export is sent once and a refusal (429/503) is counted; with --retry a refused
 * export waits its Retry-After and tries again until it is delivered. B is probed until every
 * export is done and at least --seconds (`--exports 0` is the control: B under the machine's
 * load alone). Prints B's latency before
 * and during the flood, the answers A got, and the server's CPU time and memory (docs/RELIABILITY.md).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { nextTimestamp, signRequest } from "@satang/sdk";

interface Merchant {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** A probe without an answer within this is counted as unanswered, as the outside probe did. */
const PROBE_TIMEOUT_MS = 3_000;
const ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3"];

const { values: options } = parseArgs({
  options: {
    exports: { type: "string", default: "300" },
    rows: { type: "string", default: "6000" },
    store: { type: "string", default: "postgres" },
    retry: { type: "boolean", default: false },
    seconds: { type: "string", default: "5" },
  },
});

interface Answer {
  status: number;
  retryAfterS: number;
  bytes: number;
  ms: number;
  /** A refusal's `code` and `metadata.reason` from its envelope ("" for a 200). */
  refusal: string;
}

/** "CODE reason" of an error envelope, or "" when `text` is not one. */
function refusalOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: { code: string; metadata?: { reason?: string } } };
    return error ? `${error.code} ${error.metadata?.reason ?? ""}`.trim() : "";
  } catch {
    return "";
  }
}

/** One GET over its own connection from `localAddress`, body read to the end (or timed out: status 0). */
function get(
  port: number,
  path: string,
  localAddress: string,
  headers: Record<string, string>,
  timeoutMs = 0,
) {
  const started = performance.now();
  return new Promise<Answer>((resolve) => {
    const done = (status: number, retryAfterS: number, bytes: number, refusal = "") =>
      resolve({ status, retryAfterS, bytes, ms: performance.now() - started, refusal });
    const req = httpRequest({ host: "127.0.0.1", port, path, headers, localAddress, agent: false }, (res) => {
      let bytes = 0;
      let head = "";
      res.on("data", (chunk: Buffer) => {
        if (res.statusCode !== 200 && head.length < 2000) head += chunk.toString("utf8");
        bytes += chunk.length;
      });
      res.on("end", () =>
        done(res.statusCode ?? 0, Number(res.headers["retry-after"] ?? 0), bytes, refusalOf(head)),
      );
      res.on("error", () => done(0, 0, bytes));
    });
    if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy());
    req.on("error", () => done(0, 0, 0));
    req.end();
  });
}

function signed(merchant: Merchant, path: string): Record<string, string> {
  return signRequest({
    ...merchant,
    body: "",
    method: "GET",
    path,
    version: "v2",
    timestamp: nextTimestamp(),
  });
}

const EXPORT_PATH = "/api/v1/reports/payments.csv?dateFrom=2025-01-01&dateTo=2026-01-01";

/** One export of A: sent once, or (with --retry) until delivered. Returns its answers in order. */
async function exportOnce(port: number, a: Merchant, index: number, retry: boolean): Promise<Answer[]> {
  const address = ADDRESSES[index % ADDRESSES.length] ?? "127.0.0.1";
  const answers: Answer[] = [];
  for (;;) {
    const answer = await get(port, EXPORT_PATH, address, signed(a, EXPORT_PATH));
    answers.push(answer);
    if (answer.status === 200 || !retry || answers.length > 200) return answers;
    await new Promise((resolve) => setTimeout(resolve, Math.max(answer.retryAfterS, 1) * 1000));
  }
}

/** B's balance and /healthz every 100 ms until `stop` says so; each probe's latency (ms), or null unanswered. */
async function probeB(port: number, b: Merchant, stop: () => boolean) {
  const balance: (number | null)[] = [];
  const health: (number | null)[] = [];
  const pending: Promise<void>[] = [];
  const timed = (answer: Answer) => (answer.status === 200 ? answer.ms : null);
  while (!stop()) {
    pending.push(
      get(port, "/api/v1/balance", "127.0.0.9", signed(b, "/api/v1/balance"), PROBE_TIMEOUT_MS).then((x) => {
        balance.push(timed(x));
      }),
      get(port, "/healthz", "127.0.0.9", {}, PROBE_TIMEOUT_MS).then((x) => {
        health.push(timed(x));
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(pending);
  return { balance, health };
}

/** The server's event loop delays since the last ask (the first ask starts the count). */
function eventLoopOf(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve) => {
    child.once("message", (message) => resolve((message as { loop: unknown }).loop));
    child.send("loop");
  });
}

/** CPU seconds (user + system) and resident memory (MB, now and peak) of a process. */
function usageOf(pid: number): { cpuS: number; rssMb: number; peakRssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(stat[11]) + Number(stat[12]);
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuS: ticks / 100, rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 };
}

async function startServer(store: string, rows: number): Promise<{ child: ChildProcess; ready: any }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FLOOD_ROWS: String(rows) };
  if (store === "postgres") {
    env.FLOOD_DATABASE_URL = process.env.FLOOD_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  } else delete env.FLOOD_DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "reliability/export-flood-server.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (line.startsWith("{")) return { child, ready: JSON.parse(line) };
  }
  throw new Error("the flood server exited before it was ready");
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
};

function latencySummary(samples: (number | null)[]) {
  const answered = samples.filter((x): x is number => x !== null);
  return {
    probes: samples.length,
    unanswered: samples.length - answered.length,
    p50Ms: Math.round(percentile(answered, 0.5)),
    p99Ms: Math.round(percentile(answered, 0.99)),
    maxMs: Math.round(Math.max(0, ...answered)),
  };
}

async function baseline(port: number, b: Merchant) {
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    samples.push((await get(port, "/api/v1/balance", "127.0.0.9", signed(b, "/api/v1/balance"))).ms);
  }
  return Math.round(percentile(samples, 0.5));
}

function exportSummary(all: Answer[][], seconds: number) {
  const flat = all.flat();
  const count = (status: number) => flat.filter((x) => x.status === status).length;
  const delivered = all.filter((answers) => answers.at(-1)?.status === 200);
  const bytes = new Set(delivered.map((answers) => answers.at(-1)?.bytes));
  return {
    requests: flat.length,
    ok200: count(200),
    refused429: count(429),
    refused503: count(503),
    failed: flat.filter((x) => ![200, 429, 503].includes(x.status)).length,
    refusals: Object.fromEntries(
      [...new Set(flat.map((x) => x.refusal).filter(Boolean))].map((r) => [
        r,
        flat.filter((x) => x.refusal === r).length,
      ]),
    ),
    delivered: delivered.length,
    sameBytes: bytes.size <= 1,
    floodSeconds: Math.round(seconds * 10) / 10,
  };
}

async function main(): Promise<void> {
  const exports = Number(options.exports);
  const { child, ready } = await startServer(String(options.store), Number(options.rows));
  const { port, a, b } = ready as { port: number; a: Merchant; b: Merchant };
  try {
    const quietMs = await baseline(port, b);
    const before = usageOf(child.pid!);
    await eventLoopOf(child);
    let finished = false;
    const started = performance.now();
    const probes = probeB(port, b, () => finished);
    const minimum = new Promise((resolve) => setTimeout(resolve, Number(options.seconds) * 1000));
    const all = await Promise.all(
      Array.from({ length: exports }, (_, i) => exportOnce(port, a, i, options.retry === true)),
    );
    // With few or no exports (a control run), B is still probed for the minimum time.
    await minimum;
    const seconds = (performance.now() - started) / 1000;
    finished = true;
    const { balance, health } = await probes;
    const after = usageOf(child.pid!);
    const serverEventLoopDelay = await eventLoopOf(child);
    const report = {
      store: options.store,
      exports,
      rows: Number(options.rows),
      retry: options.retry,
      answers: exportSummary(all, seconds),
      bBalanceQuietP50Ms: quietMs,
      bBalanceDuringFlood: latencySummary(balance),
      healthzDuringFlood: latencySummary(health),
      serverEventLoopDelay,
      serverCpuSeconds: Math.round((after.cpuS - before.cpuS) * 10) / 10,
      serverRssMb: {
        before: Math.round(before.rssMb),
        after: Math.round(after.rssMb),
        peak: Math.round(after.peakRssMb),
      },
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    child.kill("SIGTERM");
  }
}

await main();
