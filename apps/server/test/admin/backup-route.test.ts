/**
 * GET /admin/v1/backup (docs/operations.md): the operator's copy of the embedded database, a
 * gzipped tar that opens as the same database; on PostgreSQL 409 STATE_CONFLICT, whose backups
 * are PostgreSQL's own; never without the operator token.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { usingPostgres } from "../helpers/store.ts";

describe("the operator's backup route", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("refuses a request without the operator token", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/admin/v1/backup" });
    assert.equal(res.statusCode, 401);
  });

  it(
    usingPostgres()
      ? "answers 409 STATE_CONFLICT on PostgreSQL, which is backed up by its own tools"
      : "answers a gzipped copy of the embedded database that opens with its records",
    async () => {
      await svc.app.inject({
        method: "POST",
        url: "/admin/v1/merchants",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { name: "Copied Merchant Co" },
      });
      const res = await svc.app.inject({
        method: "GET",
        url: "/admin/v1/backup",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      if (usingPostgres()) {
        assert.equal(res.statusCode, 409);
        assert.equal(res.json().error.code, "STATE_CONFLICT");
        assert.equal(res.json().error.metadata.reason, "backup_by_postgresql");
        return;
      }
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["content-type"], "application/gzip");
      assert.equal(res.headers["cache-control"], "no-store");
      assert.match(String(res.headers["content-disposition"]), /^attachment; filename="satang-.*\.tar\.gz"$/);
      assert.ok(gunzipSync(res.rawPayload).length > 0);
      const copy = await PGlite.create({ loadDataDir: new Blob([res.rawPayload]) });
      try {
        const found = await copy.query<{ n: number }>(
          "select count(*)::int as n from merchants where name = 'Copied Merchant Co'",
        );
        assert.equal(found.rows[0]?.n, 1);
      } finally {
        await copy.close();
      }
    },
  );
});
