/**
 * Connection limits over real sockets (CONTRACT 14): a client that sends nothing, sends a body
 * a byte at a time, or keeps an idle keep-alive connection is cut off; one address cannot hold
 * more connections than the setting allows; and errors of the HTTP parser, and the requests
 * Node's server would answer itself (no Host, an unknown Expect, CONNECT), answer in the
 * envelope with X-Request-Id. The bounds are set low here (settings), so each case is quick.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";

/** Fails a case that would otherwise hang: the server must close long before this. */
const DEADLINE_MS = 30_000;

interface Conversation {
  socket: Socket;
  /** Everything received, once the server has closed the connection. */
  closed: Promise<string>;
}

function open(port: number): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1" }, () => {
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk.toString("latin1");
      });
      const closed = new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`still open after ${DEADLINE_MS} ms`)), DEADLINE_MS);
        socket.on("close", () => {
          clearTimeout(timer);
          done(received);
        });
      });
      socket.on("error", () => {});
      resolve({ socket, closed });
    });
    socket.once("error", reject);
  });
}

function parse(raw: string): { status: number; headers: string; body: any } {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  return { status, headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined };
}

/** Every answer carries the security headers (docs/operations.md), those written outside Fastify too. */
function assertSecurityHeaders(headers: string): void {
  assert.match(headers, /\r\nx-content-type-options: nosniff\r\n/);
  assert.match(headers, /\r\ncache-control: no-store\r\n/);
}

describe("connection limits", () => {
  let svc: TestService;
  let port: number;
  before(async () => {
    svc = await startService({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: "400",
        HTTP_BODY_TIMEOUT_MS: "800",
        HTTP_KEEP_ALIVE_TIMEOUT_MS: "400",
        HTTP_CONNECTIONS_PER_ADDRESS_MAX: "4",
      },
    });
    await svc.app.listen({ port: 0, host: "127.0.0.1" });
    port = (svc.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await svc.close();
  });

  it("closes a connection that sends nothing", async () => {
    const { closed } = await open(port);
    await closed;
  });

  it("answers 408 REQUEST_TIMEOUT in the envelope to headers that stop arriving", async () => {
    const { socket, closed } = await open(port);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const answer = parse(await closed);
    assert.equal(answer.status, 408);
    assert.match(answer.headers, /\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    assertSecurityHeaders(answer.headers);
    assert.deepEqual(answer.body, {
      success: false,
      error: { code: "REQUEST_TIMEOUT", message: "The request was not received in time" },
    });
  });

  it("closes a connection whose body arrives a byte at a time", async () => {
    const { socket, closed } = await open(port);
    socket.write(
      "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n",
    );
    const drip = setInterval(() => socket.writable && socket.write("a"), 100);
    try {
      const raw = await closed;
      if (raw !== "") {
        const answer = parse(raw);
        assert.equal(answer.status, 408, raw);
        assert.equal(answer.body.success, false);
        // Each code keeps one status (CONTRACT 4): a timeout has its own.
        assert.equal(answer.body.error.code, "REQUEST_TIMEOUT");
      }
    } finally {
      clearInterval(drip);
    }
  });

  it("closes an idle keep-alive connection after a request", async () => {
    const { socket, closed } = await open(port);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
    const raw = await closed;
    assert.match(raw, /^HTTP\/1\.1 200/);
  });

  for (const [name, request, status] of [
    ["a raw space in the URL", "GET /api/v1/pay ments HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["a NUL in a header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n", 400],
    ["a 16 KB URL", `GET /${"a".repeat(16 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ["16 KB of headers", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(16 * 1024)}\r\n\r\n`, 400],
    ["a bad request line", "HELLO\r\n\r\n", 400],
  ] as const) {
    it(`answers ${name} in the envelope with a request id`, async () => {
      const { socket, closed } = await open(port);
      socket.write(request);
      const answer = parse(await closed);
      assert.equal(answer.status, status);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.error.code, "VALIDATION_ERROR");
      assert.match(answer.headers, /x-request-id: [0-9a-f-]{36}/);
      assertSecurityHeaders(answer.headers);
    });
  }

  for (const [name, request, status, message] of [
    ["an HTTP/1.1 request without Host", "GET /api/v1/balance HTTP/1.1\r\n\r\n", 400, /Host/],
    [
      "an Expect other than 100-continue",
      "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n",
      400,
      /Expect/,
    ],
    ["a CONNECT", "CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", 400, /CONNECT/],
  ] as const) {
    it(`answers ${name} in the envelope with a request id, then closes`, async () => {
      const { socket, closed } = await open(port);
      socket.write(request);
      const raw = await closed;
      const answer = parse(raw);
      assert.equal(answer.status, status, raw);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.error.code, "VALIDATION_ERROR");
      assert.match(answer.body.error.message, message);
      assert.match(answer.headers, /x-request-id: [0-9a-f-]{36}/);
      assert.match(answer.headers, /connection: close/);
      assertSecurityHeaders(answer.headers);
    });
  }

  it("names the Host header in the refusal and echoes the caller's request id", async () => {
    const { socket, closed } = await open(port);
    socket.write("GET /healthz HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n");
    const answer = parse(await closed);
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body.error.metadata, { field: "Host" });
    assert.match(answer.headers, /x-request-id: no-host-1\r\n/);
    assertSecurityHeaders(answer.headers);
  });

  it("serves an HTTP/1.0 request without Host, which needs none", async () => {
    const { socket, closed } = await open(port);
    socket.write("GET /healthz HTTP/1.0\r\n\r\n");
    assert.match(await closed, /^HTTP\/1\.1 200/);
  });

  it("still answers 100-continue and takes the body", async () => {
    const { socket, closed } = await open(port);
    socket.write(
      "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n" +
        "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n",
    );
    socket.once("data", () => socket.write("{}"));
    const raw = await closed;
    assert.match(raw, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /);
  });

  it("refuses connections beyond the per-address cap and accepts again once one closes", async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => open(port)));
    // Each holds its connection with a request whose headers are not finished yet.
    for (const { socket } of held) socket.write("GET /healthz HTTP/1.1\r\n");
    const extra = await open(port);
    extra.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal(await extra.closed, "", "the fifth connection is closed without an answer");
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map(({ closed }) => closed));
    const again = await open(port);
    again.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(await again.closed, /^HTTP\/1\.1 200/);
  });
});
