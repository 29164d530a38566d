/**
 * A background job's failed run is logged by what it was (jobs/runner.ts `logJobFailure`): an
 * expected database condition (the database unreachable, a failover under way, a bound hit) as
 * a warning without a stack, as requests answer it with 503; anything else as an error with
 * its stack. The runner keeps running the job after either.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NoPrimaryError, PoolAcquireTimeoutError } from "../../src/db/faults.ts";
import { logJobFailure, startWorkers } from "../../src/jobs/runner.ts";

interface Line {
  level: "warn" | "error";
  details: Record<string, unknown>;
  message: string;
}

function recorder() {
  const lines: Line[] = [];
  return {
    lines,
    log: {
      error: (details: object, message: string) =>
        lines.push({ level: "error", details: details as Record<string, unknown>, message }),
      warn: (details: object, message: string) =>
        lines.push({ level: "warn", details: details as Record<string, unknown>, message }),
    },
  };
}

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("background job failures in the log", () => {
  it("logs expected database conditions as warnings, without the error's stack", () => {
    const { lines, log } = recorder();
    logJobFailure(log, "expiry", new NoPrimaryError(["127.0.0.1:5432 is a standby"]));
    logJobFailure(log, "settlement", pgError("57P01", "terminating connection due to administrator command"));
    logJobFailure(log, "webhooks", new PoolAcquireTimeoutError(2000));
    assert.deepEqual(
      lines.map((line) => [line.level, line.details.job, line.details.fault, line.details.code]),
      [
        ["warn", "expiry", "unavailable", "NO_PRIMARY"],
        ["warn", "settlement", "unavailable", "57P01"],
        ["warn", "webhooks", "busy", "POOL_ACQUIRE_TIMEOUT"],
      ],
    );
    assert.ok(lines.every((line) => !("err" in line.details)));
  });

  it("names the code of a wrapped error, and says so when there is none, with the message always", () => {
    const { lines, log } = recorder();
    const wrapped = new Error("query failed", { cause: pgError("57P01", "terminating connection") });
    logJobFailure(log, "settlement", wrapped);
    logJobFailure(
      log,
      "settlement",
      new AggregateError([new Error("x"), pgError("ECONNREFUSED", "refused")]),
    );
    logJobFailure(log, "settlement", new Error("Connection terminated unexpectedly"));
    assert.deepEqual(
      lines.map((line) => [line.level, line.details.fault, line.details.code, line.details.error]),
      [
        ["warn", "unavailable", "57P01", "query failed"],
        ["warn", "unavailable", "ECONNREFUSED", ""],
        ["warn", "unavailable", null, "Connection terminated unexpectedly"],
      ],
    );
  });

  it("logs anything else as an error with the error itself", () => {
    const { lines, log } = recorder();
    const bug = new TypeError("cannot read properties of undefined");
    logJobFailure(log, "expiry", bug);
    logJobFailure(log, "expiry", pgError("23505", "duplicate key value violates unique constraint"));
    assert.deepEqual(
      lines.map((line) => [line.level, line.message]),
      [
        ["error", "background job failed"],
        ["error", "background job failed"],
      ],
    );
    assert.equal(lines[0]!.details.err, bug);
  });

  it("a logger without warn gets the error", () => {
    const errors: object[] = [];
    logJobFailure({ error: (details) => errors.push(details) }, "expiry", new NoPrimaryError([]));
    assert.equal(errors.length, 1);
  });

  it("the runner logs each failed run and keeps running the job", async () => {
    const { lines, log } = recorder();
    let runs = 0;
    const job = {
      name: "flaky",
      intervalMs: 10,
      async runOnce() {
        runs += 1;
        if (runs === 1) throw new NoPrimaryError(["failover"]);
        if (runs === 2) throw new Error("boom");
        return 0;
      },
    };
    const workers = startWorkers(undefined as never, [job], log);
    while (runs < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await workers.stop();
    assert.deepEqual(
      lines.map((line) => line.level),
      ["warn", "error"],
    );
  });
});
