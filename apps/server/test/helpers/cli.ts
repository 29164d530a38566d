/**
 * The operator CLI run in this process, as the `satang` entry point runs it, against a server
 * at `url` with an operator token: what it printed and the exit code it finished with.
 */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/program.ts";
import { ADMIN_TOKEN } from "./harness.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runOperatorCli(url: string, args: string[], token = ADMIN_TOKEN): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const outcome = await runCli([...args, "--url", url, "--token", token], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { PATH: process.env.PATH ?? "" },
  });
  assert.ok("exitCode" in outcome, `\`satang ${args.join(" ")}\` finishes`);
  return { code: outcome.exitCode, stdout, stderr };
}
