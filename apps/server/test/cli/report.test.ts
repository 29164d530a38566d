/**
 * How a failed start is reported: a host name that does not resolve is HOST's when HOST names
 * it (the listen's own lookup; exit 2, naming HOST), and the database's otherwise.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CliIo } from "../../src/cli/io.ts";
import { reportError } from "../../src/cli/report.ts";

function io(env: Record<string, string>) {
  let stderr = "";
  const cli: CliIo = {
    stdout: () => {},
    stderr: (text) => {
      stderr += text;
    },
    env,
  };
  return { cli, stderr: () => stderr };
}

const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: "ENOTFOUND",
    syscall: "getaddrinfo",
    hostname,
  });

describe("a start that fails on a host name", () => {
  it("names HOST when HOST is the name that does not resolve, with exit code 2", () => {
    const run = io({ HOST: "nonexistent.invalid", DATABASE_URL: "postgres://postgres@127.0.0.1:5432/x" });
    assert.equal(reportError(notFound("nonexistent.invalid"), run.cli, false), 2);
    assert.match(run.stderr(), /^satang: HOST names nonexistent\.invalid, which does not resolve/);
    assert.doesNotMatch(run.stderr(), /DATABASE_URL/);
  });

  it("names DATABASE_URL when the database's host does not resolve", () => {
    const run = io({ HOST: "127.0.0.1", DATABASE_URL: "postgres://postgres@db.invalid:5432/x" });
    assert.equal(reportError(notFound("db.invalid"), run.cli, false), 1);
    assert.match(run.stderr(), /cannot connect to the database named by DATABASE_URL/);
  });
});
