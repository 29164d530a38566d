/**
 * The audit entry commits with its action (CONTRACT 2): an operator's or a dashboard user's
 * action and its entry are written by one transaction, so neither survives without the other.
 * PostgreSQL stamps every row version with the id of the transaction that wrote it (`xmin`):
 * the entry and the record it names carry the same one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { generate } from "otplib";
import { DASHBOARD_PASSWORD, dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;

before(async () => {
  svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
});
after(async () => {
  await svc?.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

type Table = "merchants" | "integrations" | "operator_tokens" | "dashboard_users" | "ledger_transactions";

/** The transaction that wrote the row's current version. */
async function writerOf(table: Table | "dashboard_sessions" | "withdraws", id: string): Promise<string> {
  const { rows } = await sql<{
    xmin: string;
  }>`select xmin::text as xmin from ${sql.table(table)} where id = ${id}`.execute(svc.deps.db);
  assert.equal(rows.length, 1, `${table} ${id} exists`);
  return rows[0]!.xmin;
}

/** The entries of one request, with the transaction that wrote each. */
async function entriesOf(res: TestResponse) {
  const requestId = String(res.headers["x-request-id"]);
  const { rows } = await sql<{ action: string; record_id: string | null; xmin: string }>`
    select action, record_id, xmin::text as xmin from audit_log where request_id = ${requestId}`.execute(
    svc.deps.db,
  );
  return rows;
}

/** The request left exactly one entry, naming `recordId`, written by the transaction that wrote `row`. */
async function oneEntryWith(
  res: TestResponse,
  action: string,
  recordId: string,
  row: { table: Table | "dashboard_sessions" | "withdraws"; id: string },
) {
  assert.ok(res.status < 300, `${action}: ${res.status} ${JSON.stringify(res.body)}`);
  const entries = await entriesOf(res);
  assert.equal(entries.length, 1, `${action}: one entry, not ${entries.length}`);
  const [entry] = entries;
  assert.equal(entry!.action, action);
  assert.equal(entry!.record_id, recordId);
  assert.equal(
    entry!.xmin,
    await writerOf(row.table, row.id),
    `${action}: the entry commits with the ${row.table} row`,
  );
}

async function newToken() {
  const res = await svc.admin("POST", "/admin/v1/operator-tokens", { name: unique("operator") });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res;
}

describe("an operator's action and its audit entry commit in one transaction", () => {
  it("writes each action's entry in the transaction that changed its record", async () => {
    const created = await svc.admin("POST", "/admin/v1/merchants", { name: unique("Shop") });
    const merchantId = created.body.data.id as string;
    await oneEntryWith(created, "createMerchant", merchantId, { table: "merchants", id: merchantId });

    const updated = await svc.admin("PATCH", `/admin/v1/merchants/${merchantId}`, {
      name: unique("Renamed"),
    });
    await oneEntryWith(updated, "updateMerchant", merchantId, { table: "merchants", id: merchantId });

    const integration = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {});
    const integrationId = integration.body.data.id as string;
    await oneEntryWith(integration, "createIntegration", integrationId, {
      table: "integrations",
      id: integrationId,
    });
    const revoked = await svc.admin("DELETE", `/admin/v1/integrations/${integrationId}`);
    await oneEntryWith(revoked, "revokeIntegration", integrationId, {
      table: "integrations",
      id: integrationId,
    });

    const adjusted = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/wallet/adjustments`, {
      amount: "+150.00",
      reason: "opening float",
    });
    const adjustmentId = adjusted.body.data.id as string;
    await oneEntryWith(adjusted, "adjustMerchantWallet", adjustmentId, {
      table: "ledger_transactions",
      id: adjustmentId,
    });
    // A keyed adjustment and its retry: each request leaves one entry, both naming the one adjustment.
    const keyedBody = { amount: "+20.00", reason: "keyed", idempotencyKey: unique("adjust") };
    const keyed = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/wallet/adjustments`, keyedBody);
    const keyedId = keyed.body.data.id as string;
    await oneEntryWith(keyed, "adjustMerchantWallet", keyedId, { table: "ledger_transactions", id: keyedId });
    const retried = await svc.admin(
      "POST",
      `/admin/v1/merchants/${merchantId}/wallet/adjustments`,
      keyedBody,
    );
    assert.equal(retried.status, 200);
    // The retry changed nothing, so its entry is written on its own as it answers.
    assert.deepEqual(
      (await entriesOf(retried)).map(({ action, record_id }) => [action, record_id]),
      [["adjustMerchantWallet", keyedId]],
    );

    const user = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/users`, {
      email: `${unique("owner")}@shop.example`,
      password: DASHBOARD_PASSWORD,
    });
    const userId = user.body.data.id as string;
    await oneEntryWith(user, "createDashboardUser", userId, { table: "dashboard_users", id: userId });
    const reset = await svc.admin("POST", `/admin/v1/users/${userId}/two-factor/reset`);
    await oneEntryWith(reset, "resetTwoFactor", userId, { table: "dashboard_users", id: userId });

    const advanced = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/clock/advance`, {
      seconds: 60,
    });
    await oneEntryWith(advanced, "advanceMerchantTestClock", merchantId, {
      table: "merchants",
      id: merchantId,
    });
    const clockReset = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/clock/reset`);
    await oneEntryWith(clockReset, "resetMerchantTestClock", merchantId, {
      table: "merchants",
      id: merchantId,
    });

    const token = await newToken();
    const tokenId = token.body.data.id as string;
    await oneEntryWith(token, "createOperatorToken", tokenId, { table: "operator_tokens", id: tokenId });
    const tokenRevoked = await svc.admin("POST", `/admin/v1/operator-tokens/${tokenId}/revoke`);
    await oneEntryWith(tokenRevoked, "revokeOperatorToken", tokenId, {
      table: "operator_tokens",
      id: tokenId,
    });
  });

  it("writes a payout desk batch's entry with the batch, and an outcome's with the withdraw", async () => {
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const withdraw = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "100.00" }), {
      credentials: shop,
    });
    assert.equal(withdraw.status, 201, JSON.stringify(withdraw.body));
    const withdrawId = withdraw.body.data.id as string;
    const batch = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const batchId = batch.body.data.id as string;
    const [batchEntry] = await entriesOf(batch);
    assert.equal(batchEntry?.record_id, batchId);
    // The batch moved the withdraw to processing in the same transaction as its entry.
    assert.equal(batchEntry?.xmin, await writerOf("withdraws", withdrawId));

    const outcome = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batchId}/items/${withdrawId}/outcome`,
      {
        outcome: "paid",
        bankReference: unique("SCB"),
      },
    );
    await oneEntryWith(outcome, "recordPayoutOutcome", withdrawId, { table: "withdraws", id: withdrawId });
  });
});

describe("a dashboard user's action and its audit entry commit in one transaction", () => {
  it("writes a login's entry with its session and a role change's with the user", async () => {
    const owner = await dashboardUser(svc);
    const { rows } = await sql<{ id: string; user_id: string }>`
      select s.id, s.user_id from dashboard_sessions s join dashboard_users u on u.id = s.user_id
      where u.email = ${owner.email}`.execute(svc.deps.db);
    assert.equal(rows.length, 1);
    const session = rows[0]!;
    const [login] = (
      await sql<{ xmin: string; action: string }>`
        select xmin::text as xmin, action from audit_log where action = 'logIn' and actor_id = ${session.user_id}`.execute(
        svc.deps.db,
      )
    ).rows;
    assert.equal(
      login?.xmin,
      await writerOf("dashboard_sessions", session.id),
      "the login's entry commits with its session",
    );

    const colleague = await owner.request("POST", "/users", {
      email: `${unique("finance")}@shop.example`,
      password: DASHBOARD_PASSWORD,
      role: "finance",
    });
    const colleagueId = colleague.body.data.id as string;
    await oneEntryWith(colleague, "createDashboardUser", colleagueId, {
      table: "dashboard_users",
      id: colleagueId,
    });
    const promoted = await owner.request("PATCH", `/users/${colleagueId}`, { role: "developer" });
    await oneEntryWith(promoted, "changeUserRole", colleagueId, {
      table: "dashboard_users",
      id: colleagueId,
    });

    const key = await owner.request("POST", "/api-keys", {});
    const keyId = key.body.data.id as string;
    await oneEntryWith(key, "createApiKey", keyId, { table: "integrations", id: keyId });
    const keyRevoked = await owner.request("DELETE", `/api-keys/${keyId}`);
    await oneEntryWith(keyRevoked, "revokeApiKey", keyId, { table: "integrations", id: keyId });

    const ownerId = session.user_id;
    const enrol = await owner.request("POST", "/two-factor/enrol", {});
    await oneEntryWith(enrol, "startTwoFactorEnrolment", ownerId, { table: "dashboard_users", id: ownerId });

    // Replacing the authenticator needs its current code: a refused attempt records nothing
    // (its lockout reservation is not the action), an accepted one its entry with the user.
    const secret = enrol.body.data.secret as string;
    const codeAt = (steps: number) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
    // The service reads the real clock: a 30-second step that ends between computing a code and
    // the service checking it would make the previous step's code two steps old. Start early in
    // a step, so that both codes below are checked in the step they were made for.
    const intoStepMs = Date.now() % 30_000;
    if (intoStepMs > 25_000) await new Promise((resolve) => setTimeout(resolve, 30_000 - intoStepMs + 50));
    const confirmed = await owner.request("POST", "/two-factor/confirm", { otp: await codeAt(-1) });
    await oneEntryWith(confirmed, "confirmTwoFactor", ownerId, { table: "dashboard_users", id: ownerId });
    const refused = await owner.request("POST", "/two-factor/enrol", { otp: "000000" });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(await entriesOf(refused), [], "a refused replacement records nothing");
    const replaced = await owner.request("POST", "/two-factor/enrol", { otp: await codeAt(0) });
    await oneEntryWith(replaced, "startTwoFactorEnrolment", ownerId, {
      table: "dashboard_users",
      id: ownerId,
    });
  });
});

describe("neither an action nor its entry survives without the other", () => {
  it("rolls the action back when its entry cannot be written", async () => {
    const token = await newToken();
    const operator = token.body.data as { name: string; token: string };
    // The database refuses this operator's entries from now on, as a full disk or a lost
    // connection would refuse them in the middle of the action's transaction.
    await sql
      .raw(`CREATE FUNCTION refuse_test_entries() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.actor_name = '${operator.name}' THEN RAISE EXCEPTION 'audit log unavailable'; END IF;
          RETURN NEW;
        END $$`)
      .execute(svc.deps.db);
    await sql`CREATE TRIGGER refuse_test_entries BEFORE INSERT ON audit_log
      FOR EACH ROW EXECUTE FUNCTION refuse_test_entries()`.execute(svc.deps.db);
    try {
      const name = unique("Unrecorded Shop");
      const created = await svc.admin("POST", "/admin/v1/merchants", { name }, operator.token);
      assert.equal(created.status, 500, JSON.stringify(created.body));
      const merchants = await svc.deps.db
        .selectFrom("merchants")
        .select("id")
        .where("name", "=", name)
        .execute();
      assert.deepEqual(merchants, [], "the merchant was not created without its entry");

      const shop = await svc.newMerchant();
      const adjusted = await svc.admin(
        "POST",
        `/admin/v1/merchants/${shop.merchantId}/wallet/adjustments`,
        { amount: "+500.00", reason: "not recorded" },
        operator.token,
      );
      assert.equal(adjusted.status, 500);
      const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop });
      assert.equal(
        Number(balance.body.data.walletBalance),
        0,
        "the adjustment was not posted without its entry",
      );
    } finally {
      await sql`DROP TRIGGER refuse_test_entries ON audit_log`.execute(svc.deps.db);
      await sql`DROP FUNCTION refuse_test_entries()`.execute(svc.deps.db);
    }
  });

  it("leaves no entry when the action's transaction fails at its commit", async () => {
    const name = unique("Doomed Shop");
    // A check the database makes only at commit, after the action and its entry were written.
    await sql
      .raw(`CREATE FUNCTION refuse_doomed_shop() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.name = '${name}' THEN RAISE EXCEPTION 'refused at commit'; END IF;
          RETURN NEW;
        END $$`)
      .execute(svc.deps.db);
    await sql`CREATE CONSTRAINT TRIGGER refuse_doomed_shop AFTER INSERT ON merchants
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_doomed_shop()`.execute(svc.deps.db);
    try {
      const created = await svc.admin("POST", "/admin/v1/merchants", { name });
      assert.equal(created.status, 500, JSON.stringify(created.body));
      assert.deepEqual(await entriesOf(created), [], "no entry for an action that did not happen");
      const merchants = await svc.deps.db
        .selectFrom("merchants")
        .select("id")
        .where("name", "=", name)
        .execute();
      assert.deepEqual(merchants, []);
    } finally {
      await sql`DROP TRIGGER refuse_doomed_shop ON merchants`.execute(svc.deps.db);
      await sql`DROP FUNCTION refuse_doomed_shop()`.execute(svc.deps.db);
    }
  });

  it("keeps exactly one entry when the action's transaction is run again after a conflict", async () => {
    const name = unique("Retried Shop");
    // The first commit fails as a serialization failure would; the service runs the whole
    // transaction again, and the second commits. A sequence counts outside the transactions.
    await sql.raw("CREATE SEQUENCE retried_shop_attempts").execute(svc.deps.db);
    await sql
      .raw(`CREATE FUNCTION fail_first_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.name = '${name}' AND nextval('retried_shop_attempts') = 1 THEN
            RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
          END IF;
          RETURN NEW;
        END $$`)
      .execute(svc.deps.db);
    await sql`CREATE CONSTRAINT TRIGGER fail_first_commit AFTER INSERT ON merchants
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_first_commit()`.execute(svc.deps.db);
    try {
      const created = await svc.admin("POST", "/admin/v1/merchants", { name });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const attempts = await sql<{
        n: string;
      }>`select last_value::text as n from retried_shop_attempts`.execute(svc.deps.db);
      assert.equal(attempts.rows[0]?.n, "2", "the transaction ran twice");
      await oneEntryWith(created, "createMerchant", created.body.data.id, {
        table: "merchants",
        id: created.body.data.id,
      });
    } finally {
      await sql`DROP TRIGGER fail_first_commit ON merchants`.execute(svc.deps.db);
      await sql`DROP FUNCTION fail_first_commit()`.execute(svc.deps.db);
      await sql.raw("DROP SEQUENCE retried_shop_attempts").execute(svc.deps.db);
    }
  });

  it("records an action that changed nothing in a transaction once, when it answers", async () => {
    const token = await newToken();
    const tokenId = token.body.data.id as string;
    await svc.admin("POST", `/admin/v1/operator-tokens/${tokenId}/revoke`);
    // Revoking a revoked token changes no row: its entry is written on its own, once.
    const again = await svc.admin("POST", `/admin/v1/operator-tokens/${tokenId}/revoke`);
    assert.equal(again.status, 200);
    const entries = await entriesOf(again);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.action, "revokeOperatorToken");
    assert.equal(entries[0]?.record_id, tokenId);
  });
});
