import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("configuration", () => {
  it("defaults to a sandbox on 127.0.0.1:3000 with the embedded store", () => {
    const config = loadConfig({});
    assert.equal(config.env, "sandbox");
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicBaseUrl, "http://127.0.0.1:3000");
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, "./data");
    assert.equal(config.rateLimitPerMinute, 100);
  });

  it("uses 1000 requests per minute in live and lets RATE_LIMIT_PER_MINUTE override", () => {
    const key = "a".repeat(64);
    assert.equal(loadConfig({ SATANG_ENV: "live", SECRET_KEY: key }).rateLimitPerMinute, 1000);
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: "7" }).rateLimitPerMinute, 7);
  });

  it("refuses to start live without SECRET_KEY", () => {
    assert.throws(() => loadConfig({ SATANG_ENV: "live" }), /SECRET_KEY is required/);
  });

  it("names the variable in every refusal", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SATANG_ENV: "prod" }, /SATANG_ENV/],
      [{ PORT: "70000" }, /PORT/],
      [{ PORT: "abc" }, /PORT/],
      [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL/],
      [{ REDIS_URL: "nope" }, /REDIS_URL/],
      [{ RATE_LIMIT_PER_MINUTE: "0" }, /RATE_LIMIT_PER_MINUTE/],
      [{ SECRET_KEY: "short" }, /SECRET_KEY/],
      [{ ADMIN_TOKEN: "short" }, /ADMIN_TOKEN/],
      [{ PUBLIC_BASE_URL: "ftp://x" }, /PUBLIC_BASE_URL/],
      [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    ];
    for (const [env, pattern] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
      );
    }
  });

  it("accepts SECRET_KEY as hex or base64 of 32 bytes", () => {
    assert.equal(loadConfig({ SECRET_KEY: "ab".repeat(32) }).secretKey?.length, 32);
    assert.equal(loadConfig({ SECRET_KEY: Buffer.alloc(32, 1).toString("base64") }).secretKey?.length, 32);
  });

  it("strips a trailing slash from PUBLIC_BASE_URL", () => {
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: "https://pay.example.com/" }).publicBaseUrl,
      "https://pay.example.com",
    );
  });
});
