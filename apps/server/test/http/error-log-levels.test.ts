/**
 * How refused requests are logged: a 503 (an expected condition with its Retry-After, such as a
 * full password-check queue) is a warning without a stack; an unexpected failure is an error
 * with its stack.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import Fastify, { type FastifyBaseLogger } from "fastify";
import pino from "pino";
import { installErrorHandling } from "../../src/http/errors.ts";
import { AppError } from "../../src/lib/errors.ts";

async function logsOf(thrown: () => Error): Promise<{ status: number; lines: any[] }> {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level: "info" }, stream) as FastifyBaseLogger });
  installErrorHandling(app);
  app.get("/", async () => {
    throw thrown();
  });
  const response = await app.inject({ method: "GET", url: "/" });
  await app.close();
  return { status: response.statusCode, lines: lines.filter((line) => line.level >= 40) };
}

describe("log levels of refused requests", () => {
  it("logs a 503 of a full queue as a warning without a stack", async () => {
    const { status, lines } = await logsOf(
      () =>
        new AppError("SERVICE_UNAVAILABLE", "Too many logins are being checked; retry shortly", {
          reason: "busy",
          retryAfter: 1,
        }),
    );
    assert.equal(status, 503);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0].level, 40, "warn");
    assert.equal(JSON.stringify(lines[0]).includes("stack"), false, "no stack");
    assert.equal(lines[0].metadata.reason, "busy");
  });

  it("logs an unexpected failure as an error with its stack", async () => {
    const { status, lines } = await logsOf(() => new Error("boom"));
    assert.equal(status, 500);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 50, "error");
    assert.match(lines[0].err.stack, /boom/);
  });
});
