/**
 * The `satang` CLI run in this process, as the entry point runs it (`runCli`, the function
 * bin/satang.js hands its argv and environment): what it printed and the exit code it finished
 * with. A spawned process costs about 0.7 s of CPU to start; the launcher itself is tried as a
 * process in test/cli/operator.test.ts.
 */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/program.ts";
import { ADMIN_TOKEN } from "./harness.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `satang <args>` with only PATH, HOME and `env` as its environment, as from a new shell.
 * Only commands that finish (not `serve` or `worker`).
 */
export async function runSatangCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const outcome = await runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  assert.ok("exitCode" in outcome, `\`satang ${args.join(" ")}\` finishes`);
  return { code: outcome.exitCode, stdout, stderr };
}

/** An operator command against the server at `url`, with an operator token. */
export function runOperatorCli(url: string, args: string[], token = ADMIN_TOKEN): Promise<CliRun> {
  return runSatangCli([...args, "--url", url, "--token", token]);
}
