/**
 * Many succeeded payments of one merchant in one statement, one second apart from `at`, for
 * tests and scripts that need a large export (no API calls, no ledger: exports read the rows).
 */
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";

export async function insertBulkPayments(
  db: Db,
  owner: { merchantId: string; integrationId: string },
  count: number,
  at: Date,
): Promise<void> {
  await sql`
    INSERT INTO payments (id, merchant_id, integration_id, amount_satang, currency, status, payment_method,
      reference_id, client_secret, customer_bank_account_name, customer_bank_account_number,
      customer_bank_code, description, idempotency_key, request_hash, confirmed_at, captured_at,
      created_at, updated_at)
    SELECT gen_random_uuid(), ${owner.merchantId}, ${owner.integrationId}, 10000 + g, 'THB', 'succeeded',
      'promptpay', 'bulk-' || g, 'secret-' || gen_random_uuid(), 'สมชาย ใจดี ' || g,
      (7000000000 + g)::text, '014', 'Order ' || g || ', size L', gen_random_uuid()::text, 'x',
      t, t, t, t
    FROM generate_series(1, ${count}::int) AS g,
      LATERAL (SELECT ${at}::timestamptz + g * interval '1 second' AS t) AS times`.execute(db);
}
