/**
 * Expired replay records (`signature_uses`, CONTRACT 3) are swept whatever the mix of requests:
 * a merchant that only creates payments (each records its signature with its own insert) and
 * polls them with v1 reads (each records its signature too) keeps the table at about ten minutes
 * of records, as DEPLOYMENT.md's retention table says.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { sql } from "kysely";
import { startService, type TestService } from "../helpers/harness.ts";
import { paymentBody } from "../helpers/lifecycle.ts";
import { waitFor } from "../helpers/processes.ts";

let svc: TestService;
before(async () => {
  svc = await startService({ env: { RATE_LIMIT_PER_MINUTE: "100000" } });
});
after(async () => {
  await svc?.close();
});

const expired = async () =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from signature_uses where expires_at < now()`.execute(
        svc.deps.db,
      )
    ).rows[0]!.n,
  );

it("sweeps expired records under payment creates and v1 reads alone", async () => {
  // Records of an hour ago, as a busy day leaves them.
  await sql`
    insert into signature_uses (api_key, timestamp_ms, signature, expires_at)
    select 'sk_test_old', n, 'sha256=' || n, now() - interval '1 hour'
    from generate_series(1, 500) as n
  `.execute(svc.deps.db);
  assert.equal(await expired(), 500);
  // 120 creates and 120 v1 reads of them: more than one sweep's worth of recorded signatures,
  // and no other kind of write.
  for (let i = 0; i < 120; i += 1) {
    const created = await svc.request("POST", "/api/v1/payments", paymentBody());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const read = await svc.request("GET", `/api/v1/payments/${created.body.data.id}`);
    assert.equal(read.status, 200);
  }
  await waitFor("the expired records to be swept", async () => (await expired()) === 0, 10_000);
});
