/**
 * Child processes of the `satang` CLI for tests: temporary directories that are removed after
 * the file, a spawned `satang worker` whose output is collected, and a polling wait with a
 * generous deadline (tests wait until work is done, then check what was done; nothing asserts
 * on timing).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";

export const SERVER_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DEADLINE_MS = 240_000;

const directories: string[] = [];

/** A fresh directory, removed when the test file ends. */
export function temporaryDir(prefix = "satang-worker-"): string {
  if (directories.length === 0) {
    after(() => {
      for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  directories.push(dir);
  return dir;
}

export interface Worker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The node arguments that run `satang <args>`: the compiled command when the test runner built
 * one (SATANG_BUNDLE, scripts/build.mjs: a third of the CPU to start), else src/main.ts through
 * the TypeScript loader. Both run the same source.
 */
export function satangArgv(args: string[]): string[] {
  const bundle = process.env.SATANG_BUNDLE;
  return bundle ? [bundle, ...args] : ["--import", "tsx", "src/main.ts", ...args];
}

/** Runs `satang worker` with only the given environment (plus PATH and HOME). */
export function spawnWorker(env: Record<string, string>): Worker {
  return spawnSatang(["worker"], env);
}

/** Runs `satang <args>` with only the given environment (plus PATH and HOME). */
export function spawnSatang(args: string[], env: Record<string, string>): Worker {
  const child = spawn(process.execPath, satangArgv(args), {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Polls until `done` is true, failing with `what` after `deadlineMs` (DEADLINE_MS by default). */
export async function waitFor(
  what: string,
  done: () => Promise<boolean> | boolean,
  deadlineMs = DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
