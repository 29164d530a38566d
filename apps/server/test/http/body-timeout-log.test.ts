/**
 * A client that does not send the body it announced is logged as what it is: one info line,
 * "request body not received in time" when the body timeout cut it off (the client got 408 with
 * the same request id) or "...: the client closed the connection" when it hung up. Node fails
 * such a request's stream with ECONNRESET, the code of a lost database connection, and it once
 * logged "database unavailable", the line operators fail the database over on
 * (docs/operations.md). A database error with that code still is one.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { startService, type TestService } from "../helpers/harness.ts";

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  reason?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
}

/** Fails a case that would otherwise hang: the server must close long before this. */
const DEADLINE_MS = 20_000;

let svc: TestService;
let app: FastifyInstance;
let port: number;
const lines: LogLine[] = [];

before(async () => {
  svc = await startService({ env: { HTTP_BODY_TIMEOUT_MS: "800" } });
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as LogLine) };
  app = await buildApp(svc.deps, { logger: { level: "info", stream } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = (app.server.address() as AddressInfo).port;
});
after(async () => {
  await app?.close();
  await svc?.close();
});

/** Sends headers announcing 100 bytes and 5 of them; `hangUp` closes the socket after that. */
function partialBody(requestId: string, hangUp: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const timer = setTimeout(() => reject(new Error(`still open after ${DEADLINE_MS} ms`)), DEADLINE_MS);
    const socket = connect({ port, host: "127.0.0.1" }, () => {
      socket.write(
        "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          `X-Request-Id: ${requestId}\r\nContent-Length: 100\r\n\r\n{"nam`,
      );
      if (hangUp) setTimeout(() => socket.destroy(), 100);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

async function linesOf(requestId: string, msg: string): Promise<LogLine[]> {
  for (let waited = 0; waited < DEADLINE_MS; waited += 20) {
    const found = lines.filter((line) => line.reqId === requestId);
    if (found.some((line) => line.msg === msg)) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`no "${msg}" line for ${requestId}: ${JSON.stringify(lines)}`);
}

describe("a request body that never arrives", () => {
  it("is logged as not received in time when the body timeout cuts it off, never as a database fault", async () => {
    const raw = await partialBody("body-timeout-1", false);
    assert.match(raw, /^HTTP\/1\.1 408 /);
    assert.match(raw, /"code":"REQUEST_TIMEOUT"/, "the code of 408, not VALIDATION_ERROR's");
    assert.match(raw, /\r\nX-Request-Id: body-timeout-1\r\n/i, "the 408 names the request the log names");
    const own = await linesOf("body-timeout-1", "request body not received in time");
    assert.equal(own.length, 1, JSON.stringify(own));
    assert.equal(own[0]!.level, 30, "info");
    assert.equal(own[0]!.reason, "timed_out");
    assert.equal(own[0]!.req?.url, "/api/v1/payments");
    assert.equal(own[0]!.res?.statusCode, 408);
    assert.deepEqual(
      lines.filter((line) => line.msg === "database unavailable"),
      [],
    );
  });

  it("is logged as closed by the client when the client hangs up, never as a database fault", async () => {
    assert.equal(await partialBody("body-aborted-1", true), "");
    const own = await linesOf(
      "body-aborted-1",
      "request body not received: the client closed the connection",
    );
    assert.equal(own.length, 1, JSON.stringify(own));
    assert.equal(own[0]!.reason, "aborted");
    assert.deepEqual(
      lines.filter((line) => line.msg === "database unavailable"),
      [],
    );
  });

  it("still answers a database error with the same code as the database being unavailable", async () => {
    const probe = await buildApp(svc.deps, {
      logger: { level: "info", stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    try {
      // The driver's lost connection: ECONNRESET from the database socket, not the request's.
      probe.get("/probe-lost-connection", async () => {
        throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
      });
      const res = await probe.inject({
        method: "GET",
        url: "/probe-lost-connection",
        headers: { "x-request-id": "db-reset-1" },
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, "SERVICE_UNAVAILABLE");
      const own = lines.filter((line) => line.reqId === "db-reset-1");
      assert.ok(
        own.some((line) => line.msg === "database unavailable" && line.level === 40),
        JSON.stringify(own),
      );
    } finally {
      await probe.close();
    }
  });
});
