/**
 * R9: webhook delivery to one endpoint whose receiver answers in 5 ms (bench/webhooks.ts, run as
 * a child process with real `satang worker` processes): a backlog drains at >= 200
 * deliveries/s, a steady stream keeps up, and after a SIGKILL of the delivering worker its
 * leased deliveries arrive within 5 s, none missing.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Context } from "../lib/context.ts";
import { goalRow } from "../lib/report.ts";

interface Drain {
  events: number;
  deliveriesPerSecond: number;
  drainSeconds: number;
  workerCpuMsPerDelivery: number;
}
interface Stream {
  offeredPerSecond: number;
  deliveriesPerSecond: number;
  lagP50Ms: number;
  lagP99Ms: number;
}
interface Resume {
  leasedAtKill: number;
  resumeSeconds: number;
  repeatedDeliveries: number;
  missingEvents: number;
}

/** Runs bench/webhooks.ts and answers its three JSON lines by phase. */
async function runWebhookBench(ctx: Context, serverUrl: string): Promise<Record<string, unknown>> {
  const script = fileURLToPath(new URL("../webhooks.ts", import.meta.url));
  const events = ctx.settings.quick ? "3000" : (process.env.BENCH_WEBHOOK_EVENTS ?? "10000");
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, BENCH_DATABASE_URL: serverUrl, BENCH_WEBHOOK_EVENTS: events },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const phases: Record<string, unknown> = {};
  for await (const line of createInterface({ input: child.stdout! })) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as { r9?: string };
    if (parsed.r9) phases[parsed.r9] = parsed;
  }
  const code = child.exitCode ?? (await new Promise<number | null>((resolve) => child.on("exit", resolve)));
  if (code !== 0) throw new Error(`bench/webhooks.ts exited with ${code}`);
  return phases;
}

export async function runWebhooks(ctx: Context, serverUrl: string): Promise<void> {
  ctx.log("R9: webhook backlog, stream and a worker's SIGKILL (bench/webhooks.ts)");
  const phases = await runWebhookBench(ctx, serverUrl);
  const drain = phases.drain as Drain;
  const stream = phases.stream as Stream;
  const resume = phases.resume as Resume;
  ctx.rows.push(
    goalRow(
      "R9",
      `webhook backlog of ${drain.events}: deliveries/s`,
      drain.deliveriesPerSecond,
      { atLeast: 200 },
      `drained in ${drain.drainSeconds} s; worker CPU ${drain.workerCpuMsPerDelivery} ms per delivery`,
    ),
    goalRow(
      "R9",
      `webhook stream of ${stream.offeredPerSecond}/s: deliveries/s`,
      stream.deliveriesPerSecond,
      {},
      `lag from commit to arrival p50 ${stream.lagP50Ms} ms, p99 ${stream.lagP99Ms} ms`,
    ),
    goalRow(
      "R9",
      "webhook delivery resumed after SIGKILL (s)",
      resume.resumeSeconds,
      { atMost: 5 },
      `${resume.leasedAtKill} leased at the kill; ${resume.repeatedDeliveries} delivered twice, ` +
        `${resume.missingEvents} missing`,
    ),
    goalRow("R9", "webhook events missing", resume.missingEvents, { atMost: 0 }, "every event arrived"),
  );
}
