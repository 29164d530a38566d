/**
 * A multi-host DATABASE_URL (db/primary.ts): libpq's form is read host by host, with the same
 * user, database and parameters for each; one host is left exactly as it was; a malformed host
 * or target_session_attrs is refused at start with a clear message. The connections themselves
 * are tested on PostgreSQL (primary-pg.test.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { databaseFault, NoPrimaryError } from "../../src/db/faults.ts";
import { parseMultiHostUrl } from "../../src/db/primary.ts";

describe("multi-host database URLs", () => {
  it("reads every host in order, with each host's own port and 5432 where none is given", () => {
    const parsed = parseMultiHostUrl(
      "postgres://satang:s3cret@db1.internal:6432,db2.internal,[fd00::3]:5433/satang?target_session_attrs=read-write&sslmode=require",
    );
    assert.ok(parsed);
    assert.deepEqual(parsed.hosts, [
      { host: "db1.internal", port: 6432 },
      { host: "db2.internal", port: 5432 },
      { host: "fd00::3", port: 5433 },
    ]);
    assert.equal(parsed.target, "read-write");
    assert.equal(
      parsed.urlFor(parsed.hosts[1]!),
      "postgres://satang:s3cret@db2.internal:5432/satang?sslmode=require",
    );
    assert.equal(
      parsed.urlFor(parsed.hosts[2]!),
      "postgres://satang:s3cret@[fd00::3]:5433/satang?sslmode=require",
    );
  });

  it("asks for a primary when target_session_attrs is absent, and accepts primary and any", () => {
    assert.equal(parseMultiHostUrl("postgresql://a:1,b:2/db")?.target, "read-write");
    assert.equal(
      parseMultiHostUrl("postgresql://a:1,b:2/db?target_session_attrs=primary")?.target,
      "read-write",
    );
    assert.equal(parseMultiHostUrl("postgresql://a:1,b:2/db?target_session_attrs=any")?.target, "any");
    assert.equal(
      parseMultiHostUrl("postgresql://a:1,b:2/db")?.urlFor({ host: "b", port: 2 }),
      "postgresql://b:2/db",
    );
  });

  it("leaves a URL with one host to pg as it is", () => {
    assert.equal(parseMultiHostUrl("postgres://postgres@127.0.0.1:5432/test"), undefined);
    assert.equal(
      parseMultiHostUrl("postgres://postgres@127.0.0.1:5432/test?target_session_attrs=read-write"),
      undefined,
    );
  });

  it("refuses a malformed host or target_session_attrs", () => {
    assert.throws(() => parseMultiHostUrl("postgres://a:1,b:x/db"), /"b:x" is not a host/);
    assert.throws(() => parseMultiHostUrl("postgres://a:1,,b:2/db"), /"" is not a host/);
    assert.throws(
      () => parseMultiHostUrl("postgres://a:1,b:2/db?target_session_attrs=standby"),
      /target_session_attrs must be read-write, primary or any/,
    );
  });

  it("is accepted as DATABASE_URL and DATABASE_DIRECT_URL, and a bad one stops the start", () => {
    const url = "postgres://postgres@127.0.0.1:5432,127.0.0.1:5433/satang?target_session_attrs=read-write";
    const config = loadConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: url });
    assert.equal(config.databaseUrl, url);
    assert.equal(config.databaseDirectUrl, url);
    assert.throws(
      () => loadConfig({ DATABASE_URL: "postgres://127.0.0.1:5432,127.0.0.1:x/satang" }),
      (error: unknown) =>
        error instanceof ConfigError && /DATABASE_URL: "127.0.0.1:x" is not a host/.test(error.message),
    );
  });

  it("no primary among the hosts is a database that is unavailable for now (503, not 500)", () => {
    assert.equal(databaseFault(new NoPrimaryError(["127.0.0.1:5433 is a standby"])), "unavailable");
    const readOnly = Object.assign(new Error("cannot execute INSERT in a read-only transaction"), {
      code: "25006",
    });
    assert.equal(databaseFault(readOnly), "unavailable");
  });
});
