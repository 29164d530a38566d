/**
 * Why a signed request was refused: in sandbox the 401 carries `metadata.reason` from a closed
 * list (and, for a skewed timestamp, the server's time; for a wrong signature, what was signed);
 * live answers the one generic body; both log the reason at info with the request id.
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { buildDeps } from "../../src/deps.ts";
import { AUTH_FAILURE_REASONS } from "../../src/http/auth.ts";
import { revokeIntegration } from "../../src/integrations/service.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

const GENERIC = { code: "INVALID_CREDENTIALS", message: "Invalid API credentials or signature" };

interface Sent {
  path?: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string | undefined>;
  credentials?: Credentials;
  version?: "v1" | "v2";
  timestamp?: number;
}

describe("authentication failure reasons", () => {
  let svc: TestService;
  let sandbox: FastifyInstance;
  let live: FastifyInstance;
  let revoked: Credentials;
  const lines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });

  before(async () => {
    svc = await startService();
    sandbox = await buildApp(svc.deps, { logger: { level: "info", stream: logStream } });
    const liveConfig = { ...svc.deps.config, env: "live" as const };
    live = await buildApp(
      buildDeps({
        config: liveConfig,
        db: svc.deps.db,
        storeKind: svc.deps.storeKind,
        secrets: svc.deps.secrets,
        clock: svc.deps.clock,
      }),
      { logger: { level: "info", stream: logStream } },
    );
    revoked = await svc.newMerchant({ name: "Revoked Shop" });
    await revokeIntegration(svc.deps, revoked.integrationId);
  });
  after(async () => {
    await sandbox?.close();
    await live?.close();
    await svc?.close();
  });

  const send = (app: FastifyInstance, options: Sent = {}) => {
    const method = options.method ?? "GET";
    const path = options.path ?? "/api/v1/balance";
    const body = options.body ?? "";
    const creds = options.credentials ?? svc.credentials;
    const signed = signRequest({
      apiKey: creds.apiKey,
      apiSecret: creds.apiSecret,
      body,
      method,
      path,
      version: options.version ?? "v2",
      ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
    });
    const headers: Record<string, string> = {};
    const merged: Record<string, string | undefined> = {
      "x-api-key": signed["X-API-Key"],
      "x-timestamp": signed["X-Timestamp"],
      "x-signature": signed["X-Signature"],
      ...(body ? { "content-type": "application/json" } : {}),
      ...options.headers,
    };
    for (const [name, value] of Object.entries(merged)) if (value !== undefined) headers[name] = value;
    return app.inject({ method, url: path, headers, ...(body ? { payload: body } : {}) });
  };

  /** Each reason, provoked once. */
  const cases: Array<{ reason: string; options: () => Sent }> = [
    { reason: "missing_header", options: () => ({ headers: { "x-signature": undefined } }) },
    { reason: "timestamp_format", options: () => ({ headers: { "x-timestamp": "2026-03-01T09:00:00Z" } }) },
    { reason: "timestamp_skew", options: () => ({ timestamp: Date.now() - 600_000 }) },
    { reason: "signature_format", options: () => ({ headers: { "x-signature": "SHA256=abc" } }) },
    {
      reason: "signature_mismatch",
      options: () => ({ credentials: { ...svc.credentials, apiSecret: "sec_wrong" } }),
    },
    { reason: "unknown_key", options: () => ({ headers: { "x-api-key": "sk_test_nobody" } }) },
    { reason: "revoked_key", options: () => ({ credentials: revoked }) },
  ];

  it("covers the whole closed list", () => {
    assert.deepEqual([...cases.map((c) => c.reason), "replayed"].sort(), [...AUTH_FAILURE_REASONS].sort());
  });

  /** A key that is unknown or revoked answers as a wrong signature does (no oracle); the log names it. */
  const answered = (reason: string) =>
    reason === "unknown_key" || reason === "revoked_key" ? "signature_mismatch" : reason;

  for (const { reason, options } of cases) {
    it(`sandbox answers ${answered(reason)} for ${reason}; live answers the generic body; both log ${reason}`, async () => {
      const refused = await send(sandbox, options());
      assert.equal(refused.statusCode, 401, refused.body);
      const error = refused.json().error;
      assert.equal(error.code, GENERIC.code);
      assert.equal(error.message, GENERIC.message);
      assert.equal(error.metadata.reason, answered(reason));
      const requestId = refused.headers["x-request-id"];
      assert.ok(
        lines.some((l) => l.reason === reason && l.reqId === requestId && l.level === 30),
        `an info line with reason ${reason} and request id ${requestId}`,
      );

      const generic = await send(live, options());
      assert.equal(generic.statusCode, 401);
      assert.deepEqual(generic.json(), { success: false, error: GENERIC });
      const liveId = generic.headers["x-request-id"];
      assert.ok(lines.some((l) => l.reason === reason && l.reqId === liveId));
    });
  }

  it("answers an unknown key, a revoked key and a wrong secret alike, byte for byte but the request id (no oracle)", async () => {
    const timestamp = Date.now();
    const body = JSON.stringify({ url: "https://example.com/oracle" });
    const request = { method: "POST", path: "/api/v1/webhook-endpoints", body, timestamp } as const;
    const answers = await Promise.all([
      send(sandbox, { ...request, credentials: { ...revoked, apiKey: "sk_test_nobody_at_all" } }),
      send(sandbox, { ...request, credentials: revoked }),
      send(sandbox, { ...request, credentials: { ...svc.credentials, apiSecret: "sec_wrong" } }),
    ]);
    const bodies = answers.map((answer) => {
      assert.equal(answer.statusCode, 401);
      return answer.body;
    });
    assert.equal(JSON.parse(bodies[0]!).error.metadata.reason, "signature_mismatch");
    assert.equal(bodies[1], bodies[0], "a revoked key answers as an unknown one");
    assert.equal(bodies[2], bodies[0], "a wrong signature answers as an unknown key");
  });

  it("gives the server's time with a skewed timestamp", async () => {
    const error = (await send(sandbox, { timestamp: Date.now() + 400_000 })).json().error;
    assert.equal(error.metadata.reason, "timestamp_skew");
    assert.ok(Math.abs(Date.parse(error.metadata.serverTime) - Date.now()) < 60_000);
    assert.equal(error.metadata.toleranceMs, 300_000);
  });

  it("says a timestamp in Unix seconds looks like seconds (sandbox answer and log); live stays generic", async () => {
    const seconds = Math.floor(Date.now() / 1000);
    const refused = await send(sandbox, { timestamp: seconds });
    assert.equal(refused.statusCode, 401);
    const error = refused.json().error;
    assert.equal(error.code, GENERIC.code);
    assert.equal(error.message, GENERIC.message);
    assert.equal(error.metadata.reason, "timestamp_skew");
    assert.match(error.metadata.hint, /looks like Unix seconds/);
    assert.match(error.metadata.hint, /milliseconds/);
    const requestId = refused.headers["x-request-id"];
    assert.ok(lines.some((l) => l.reqId === requestId && /seconds/.test(String(l.hint))));

    // A client clock a few hours off still gets the hint; seconds never pass as milliseconds.
    const hoursOff = (await send(sandbox, { timestamp: seconds - 3 * 3600 })).json().error;
    assert.match(hoursOff.metadata.hint, /looks like Unix seconds/);

    const generic = await send(live, { timestamp: seconds });
    assert.deepEqual(generic.json(), { success: false, error: GENERIC });
  });

  it("gives no seconds hint for a millisecond timestamp outside the tolerance", async () => {
    for (const timestamp of [Date.now() - 600_000, Date.now() + 400_000, 1000]) {
      const error = (await send(sandbox, { timestamp })).json().error;
      assert.equal(error.metadata.reason, "timestamp_skew");
      assert.equal("hint" in error.metadata, false, `no hint for ${timestamp}`);
    }
  });

  it("describes what was signed on a mismatch, never the expected signature", async () => {
    const body = JSON.stringify({ url: "https://example.com/hook" });
    const wrong = { ...svc.credentials, apiSecret: "sec_wrong" };
    const v2 = await send(sandbox, {
      method: "POST",
      path: "/api/v1/webhook-endpoints",
      body,
      credentials: wrong,
    });
    const meta = v2.json().error.metadata;
    assert.equal(meta.reason, "signature_mismatch");
    assert.equal(meta.stringToSign, "<X-Timestamp>.<METHOD>.<path with query>.<raw body>");
    assert.equal(meta.method, "POST");
    assert.equal(meta.pathWithQuery, "/api/v1/webhook-endpoints");
    assert.equal(meta.bodyBytes, Buffer.byteLength(body));
    assert.equal(meta.bodySha256, createHash("sha256").update(body).digest("hex"));
    const expected = createHmac("sha256", svc.credentials.apiSecret)
      .update(`${meta.timestamp}.POST./api/v1/webhook-endpoints.${body}`)
      .digest("hex");
    assert.ok(!v2.body.includes(expected), "the correct signature is never disclosed");

    const v1 = (await send(sandbox, { credentials: wrong, version: "v1" })).json().error.metadata;
    assert.equal(v1.signatureVersion, "v1");
    assert.equal(v1.stringToSign, "<X-Timestamp>.<raw body>");
    assert.equal(v1.bodyBytes, 0);
  });

  it("names a replayed write", async () => {
    const body = JSON.stringify({ url: "https://example.com/replayed" });
    const signed = signRequest({
      ...svc.credentials,
      body,
      method: "POST",
      path: "/api/v1/webhook-endpoints",
      version: "v2",
    });
    const request = {
      method: "POST" as const,
      url: "/api/v1/webhook-endpoints",
      payload: body,
      headers: { ...signed, "content-type": "application/json" },
    };
    await sandbox.inject(request);
    const again = await sandbox.inject(request);
    assert.equal(again.statusCode, 401);
    assert.equal(again.json().error.metadata.reason, "replayed");
  });
});
