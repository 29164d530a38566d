/**
 * Load benchmarks. Each prints absolute numbers and, because this machine is noisy, the ratio
 * against a baseline measured in the same run: a bare Fastify endpoint doing one INSERT on the
 * same store.
 *
 *   npm run bench                      # embedded store (PGlite)
 *   BENCH_DATABASE_URL=postgres://... npm run bench
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=20 npm run bench
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { signRequest } from "@satang/sdk";
import autocannon from "autocannon";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const here = fileURLToPath(new URL(".", import.meta.url));

interface Started {
  child: ChildProcess;
  info: { port: number; apiKey?: string; apiSecret?: string };
}

async function startServer(mode: string): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", `${here}server.ts`, mode], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  let buffer = "";
  child.stdout!.setEncoding("utf8");
  for await (const chunk of child.stdout!) {
    buffer += chunk;
    const line = buffer.split("\n").find((l) => l.startsWith("{"));
    if (line) return { child, info: JSON.parse(line) };
  }
  throw new Error(`bench server ${mode} exited before it was ready`);
}

async function stop(started: Started): Promise<void> {
  started.child.kill("SIGTERM");
  await once(started.child, "exit");
}

async function load(options: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ connections, duration: seconds, ...options });
}

function summary(name: string, result: autocannon.Result) {
  const ok = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => code.startsWith("2"))
    .reduce((n, [, v]) => n + Number((v as { count: number }).count), 0);
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

let counter = 0;

const baseline = await startServer("baseline");
const baselineResult = await load({
  url: `http://127.0.0.1:${baseline.info.port}/rows`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ amount: "1000.00", referenceId: "x" }),
});
await stop(baseline);

const satang = await startServer("satang");
const { apiKey, apiSecret } = satang.info as { apiKey: string; apiSecret: string };
const createResult = await load({
  url: `http://127.0.0.1:${satang.info.port}`,
  requests: [
    {
      method: "POST",
      path: "/api/v1/payments",
      setupRequest: (request) => {
        counter += 1;
        const body = JSON.stringify({
          amount: "10000.00",
          referenceId: `bench-${process.pid}-${counter}`,
          paymentMethod: "promptpay",
          customerBankAccountName: "Somchai Jaidee",
          customerBankAccountNumber: "1234567890",
          customerBankCode: "004",
        });
        return {
          ...request,
          body,
          headers: {
            "content-type": "application/json",
            ...signRequest({ apiKey, apiSecret, body, method: "POST", path: "/api/v1/payments" }),
          },
        };
      },
    },
  ],
});
const listResult = await load({
  url: `http://127.0.0.1:${satang.info.port}`,
  requests: [
    {
      method: "GET",
      path: "/api/v1/payments?limit=10",
      setupRequest: (request) => ({
        ...request,
        // v2, as the SDK client signs: a v1 read also records its signature (one insert).
        headers: {
          ...signRequest({ apiKey, apiSecret, body: "", method: "GET", path: "/api/v1/payments?limit=10" }),
        },
      }),
    },
  ],
});
await stop(satang);

const rows = [
  summary("baseline: bare Fastify + one INSERT", baselineResult),
  summary("create payment", createResult),
  summary("list payments (10)", listResult),
];
const base = rows[0]!.requestsPerSecond || 1;
console.log(
  `store: ${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "PGlite (embedded)"}; ${connections} connections, ${seconds} s each`,
);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(38)} ${String(row.requestsPerSecond).padStart(6)} req/s  p50 ${row.latencyP50Ms} ms  p99 ${row.latencyP99Ms} ms  ratio ${(row.requestsPerSecond / base).toFixed(2)}  2xx ${row.ok}  non-2xx ${row.non2xx}  errors ${row.errors}`,
  );
}
