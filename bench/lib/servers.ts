/** Starting and stopping bench/server.ts children, and what they report. */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const serverScript = fileURLToPath(new URL("../server.ts", import.meta.url));

/** The V8 and Node flags the service's start script gives node (package.json "start"). */
export const SERVER_NODE_FLAGS: string[] = (() => {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  return words.slice(1, words.indexOf("--import"));
})();

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
}

/** Starts `mode` with `env` added; resolves once it printed its JSON line. */
export async function startServer(
  mode: "baseline" | "satang",
  env: Record<string, string> = {},
): Promise<Started> {
  // The V8 flags `npm start` gives the service (package.json), for both servers alike.
  // BENCH_CPU_PROF=dir: the service writes a V8 CPU profile there when it stops (DevTools).
  const profile =
    mode === "satang" && process.env.BENCH_CPU_PROF
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
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
  if (started.child.exitCode !== null) return;
  started.child.kill("SIGTERM");
  await once(started.child, "exit");
}

/** The peak resident set size of the server so far (Linux VmHWM), in MB. */
export function peakRssMb(started: Started): number {
  const status = readFileSync(`/proc/${started.child.pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
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
