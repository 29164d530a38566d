/**
 * What every command writes to and reads from, and what it leaves behind. Kept apart from the
 * program so that command files and the program both depend on it, never on each other.
 *
 * Exit codes: 0 success, 1 the API refused the request (its code and message are printed),
 * 2 usage or configuration error, 3 the server could not be reached.
 */
import type { RunningServer, RunningWorker } from "../server.ts";

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** Either the command finished with an exit code, or it started a server or worker that keeps running. */
export type CliOutcome = { exitCode: number } | { server: RunningServer } | { worker: RunningWorker };

/** What a command group's registration receives. */
export interface CommandContext {
  io: CliIo;
  /**
   * Records how the invocation ends when the command does not simply succeed: a running server
   * or worker, or the exit code of a command that reports its own errors.
   */
  finish(outcome: CliOutcome): void;
}
