/**
 * What a log line's redaction by shape costs (lib/redaction.ts `redactText`, run on every line
 * the service writes), against writing the line itself (`JSON.stringify` of the same object, as
 * pino's serialization does), both timed in one process on the same lines in alternating
 * blocks so both see the same machine. The lines are a request's "request completed" line with
 * an id whose digits pass between its dashes (`7c9e6679-7425-40de-...`), one with an id whose do
 * not, and one with a query string. Prints the median µs a line of each and their ratio.
 *
 *   node --import tsx bench/redaction.ts          # REDACTION_ROUNDS=30 REDACTION_BLOCK=20000
 */
import { performance } from "node:perf_hooks";
import { redactText } from "../apps/server/src/lib/redaction.ts";

const rounds = Number(process.env.REDACTION_ROUNDS ?? 30);
const block = Number(process.env.REDACTION_BLOCK ?? 20000);
/** The operator and metrics tokens a served process redacts by value (server.ts loggerOptions). */
const literals = ["adm_3bq9V0xkE2mY7pLr4sTn8uWc1dHf6gJz", "met_5Kp2Rw8Ny4Tq"];

function requestLine(url: string): Record<string, unknown> {
  return {
    level: 30,
    time: 1764700000123,
    pid: 41234,
    hostname: "node-svc",
    reqId: "3f0e4a2c-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
    req: { method: "GET", url, host: "127.0.0.1:3000", remoteAddress: "127.0.0.1", remotePort: 54321 },
    res: { statusCode: 200 },
    responseTime: 1.2345678,
    msg: "request completed",
  };
}

const lines: [string, Record<string, unknown>][] = [
  ["id with ten digits between dashes", requestLine("/api/v1/payments/7c9e6679-7425-40de-944b-e07fc1f90ae7")],
  ["id without", requestLine("/api/v1/payments/0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a")],
  ["list with a query", requestLine("/api/v1/payments?status=succeeded&limit=50&sortBy=createdAt")],
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function timeBlock(work: () => unknown): number {
  const start = performance.now();
  for (let i = 0; i < block; i += 1) work();
  return ((performance.now() - start) * 1000) / block;
}

for (const [name, object] of lines) {
  const text = `${JSON.stringify(object)}\n`;
  const redaction: number[] = [];
  const serialization: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    redaction.push(timeBlock(() => redactText(text, literals)));
    serialization.push(timeBlock(() => JSON.stringify(object)));
  }
  // The first rounds warm both up; the median leaves them out.
  const redact = median(redaction);
  const serialize = median(serialization);
  console.log(
    `${name} (${text.length} characters): redaction ${redact.toFixed(2)} µs, ` +
      `serialization ${serialize.toFixed(2)} µs, ratio ${(redact / serialize).toFixed(2)}`,
  );
}
