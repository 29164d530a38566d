/**
 * Withdraw admission reads what it decides on in one statement after the wallet lock
 * (withdraws/store.ts `admissionReadStatement`) and writes the withdraw, its destination and its
 * hold in two more: six statements in all. On PostgreSQL they go in two round trips
 * (db/pg-driver.ts): BEGIN with the lock and the read; the insert with the hold and the COMMIT.
 * The wallet lock is held from the first round trip's answer to the COMMIT: one round trip. The read is made for
 * the business time of the merchant the request authenticated as; these tests also give the
 * service a stale view of the merchant (its clock or its limits changed since) and check that
 * the answer is the one the merchant's current settings give.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import { sql } from "kysely";
import { lockWallet, walletsLockStatement } from "../../src/ledger/accounts.ts";
import { ADMISSION_PLAN_SETTINGS } from "../../src/withdraws/admission.ts";
import {
  type GroupWithdraw,
  groupAdmissionReadStatement,
  groupWithdrawInsertStatement,
} from "../../src/withdraws/group-store.ts";
import { guardQuery } from "../../src/withdraws/guard.ts";
import { createWithdraw } from "../../src/withdraws/service.ts";
import { admissionReadStatement, readAdmission } from "../../src/withdraws/store.ts";
import { admitWithdraw, WithdrawKeyTaken } from "../../src/withdraws/transitions.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { statementsOf } from "../helpers/statements.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const DAY_MS = 24 * 60 * 60_000;

describe("withdraw admission in few statements", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("sends six statements in two round trips: BEGIN, lock, read; insert, hold, COMMIT", async () => {
    const shop = await fundedMerchant(svc);
    await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "10.00" }), { credentials: shop });
    const sent = await statementsOf(() =>
      svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "11.00" }), { credentials: shop }),
    );
    const { result } = sent;
    assert.equal(result.status, 201, JSON.stringify(result.body));
    // A request that waited long in its wallet's queue (a busy machine) also sends its lock
    // bound (db/key-queue.ts `lockWaitBound`): in the BEGIN on PostgreSQL, a statement of its own
    // on the embedded store, left out here.
    const counted = (statement: string) => !statement.startsWith("select set_config('lock_timeout'");
    const statements = sent.statements.filter(counted);
    const roundTrips = sent.roundTrips.map((trip) => trip.filter(counted)).filter((trip) => trip.length > 0);
    assert.equal(statements.length, 6, statements.join("\n"));
    assert.match(statements[0]!, /^begin/);
    // On PostgreSQL the transaction runs on generic plans (set in its BEGIN, no statement more).
    if (svc.store.kind === "postgres")
      assert.match(statements[0]!, /set local plan_cache_mode = 'force_generic_plan'/);
    assert.match(statements[1]!, /^with "replay_record" as \(insert into "signature_uses".* for update$/);
    assert.match(statements[2]!, /^SELECT merchants\.\*/);
    assert.match(statements[3]!, /^with "destination" as .*insert into "withdraws"/);
    assert.match(
      statements[4]!,
      /^with "posted" as \(insert into "ledger_transactions".*insert into "ledger_entries"/,
    );
    assert.match(statements[5]!, /^commit/);
    const expected = svc.store.kind === "postgres" ? [3, 3] : [1, 1, 1, 1, 1, 1];
    assert.deepEqual(
      roundTrips.map((trip) => trip.length),
      expected,
      roundTrips.map((trip) => trip.join(" + ")).join("\n"),
    );
    await assertLedgerConsistent(svc.deps.db);
  });

  it("a replayed signature is refused by the lock's statement (401), and nothing is written", async () => {
    const shop = await fundedMerchant(svc);
    const uses = await sql<{ n: number }>`select count(*)::int as n from signature_uses`.execute(svc.deps.db);
    // The same signed bytes twice.
    const payload = JSON.stringify(withdrawBody({ amount: "13.00" }));
    const headers = {
      ...signRequest({ ...shop, body: payload, method: "POST", path: "/api/v1/withdraws", version: "v2" }),
      "content-type": "application/json",
    };
    const request = { method: "POST" as const, url: "/api/v1/withdraws", payload, headers };
    assert.equal((await svc.app.inject(request)).statusCode, 201);
    const again = await svc.app.inject(request);
    assert.equal(again.statusCode, 401, again.body);
    const after = await sql<{ n: number }>`select count(*)::int as n from signature_uses`.execute(
      svc.deps.db,
    );
    assert.equal(after.rows[0]!.n, uses.rows[0]!.n + 1, "one record for the one signature");
    const held = await sql<{ n: number }>`select count(*)::int as n from withdraws
      where reference_id = ${JSON.parse(payload).referenceId}`.execute(svc.deps.db);
    assert.equal(held.rows[0]!.n, 1);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("decides at the merchant's business time now when its clock moved since it authenticated", async () => {
    // Today's daily limit is used up; the merchant's clock then moves a day ahead. A service
    // handed the merchant as it was (clock offset 0) must still judge the create by tomorrow's
    // (empty) day, as the merchant's current clock says.
    const shop = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 10_000n });
    const used = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "10000" }), {
      credentials: shop,
    });
    assert.equal(used.status, 201, JSON.stringify(used.body));
    // Late in the UTC day or early, one day ahead is always the next UTC day.
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: BigInt(DAY_MS) })
      .where("id", "=", shop.merchantId)
      .execute();
    const stale = {
      id: shop.merchantId,
      clock_offset_ms: 0n,
      daily_withdraw_limit_satang: 10_000n,
      monthly_withdraw_limit_satang: null,
    };
    const ctx = { db: svc.deps.db, clock: svc.clock };
    const body = withdrawBody({ amount: "5000" }) as never;
    const result = await createWithdraw(ctx, stale, { id: shop.integrationId }, body);
    assert.equal(result.outcome, "created");
    const createdAt = new Date(result.withdraw.createdAt).getTime();
    assert.ok(
      Math.abs(createdAt - (svc.clock.now().getTime() + DAY_MS)) < 5_000,
      "created at the merchant's business time now",
    );
    await assertLedgerConsistent(svc.deps.db);
  });

  it("checks limits the merchant was given after it authenticated", async () => {
    const shop = await fundedMerchant(svc);
    await svc.deps.db
      .updateTable("merchants")
      .set({ daily_withdraw_limit_satang: 10_000n })
      .where("id", "=", shop.merchantId)
      .execute();
    const stale = {
      id: shop.merchantId,
      clock_offset_ms: 0n,
      daily_withdraw_limit_satang: null,
      monthly_withdraw_limit_satang: null,
    };
    const ctx = { db: svc.deps.db, clock: svc.clock };
    // One satang over the limit the merchant has now.
    const body = withdrawBody({ amount: "10001" }) as never;
    await assert.rejects(createWithdraw(ctx, stale, { id: shop.integrationId }, body), (error: unknown) => {
      assert.equal((error as { code?: string }).code, "INVALID_INPUT");
      return true;
    });
  });

  for (const last of [false, true]) {
    it(`a withdraw whose key was taken fails with its hold${last ? " and its COMMIT" : ""}: nothing is kept`, async () => {
      const shop = await fundedMerchant(svc);
      const created = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "12.00" }), {
        credentials: shop,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const taken = await svc.deps.db
        .selectFrom("withdraws")
        .selectAll()
        .where("id", "=", created.body.data.id)
        .executeTakeFirstOrThrow();
      const entries = () =>
        sql<{ n: number }>`select count(*)::int as n from ledger_entries`.execute(svc.deps.db);
      const before = (await entries()).rows[0]!.n;
      // The same reference again, straight to the insert: what a path that skipped the wallet
      // lock would send. The hold is sent with it (the lock's statement read the account ids).
      const { id: _id, destination_id: _destination, ...rest } = taken;
      await assert.rejects(
        svc.deps.db.transaction().execute(async (trx) => {
          await lockWallet(trx, shop.merchantId);
          await admitWithdraw(
            trx,
            "admit",
            { ...rest, metadata: null, id: randomUUID(), idempotency_key: randomUUID() },
            {
              key: {
                merchantId: shop.merchantId,
                destinationType: taken.destination_type,
                bankCode: taken.bank_code,
                accountNumber: taken.bank_account_number,
              },
              accountName: taken.bank_account_name,
              at: new Date(),
              idIfNew: randomUUID(),
            },
            { last },
          );
        }),
        (error: unknown) => error instanceof WithdrawKeyTaken,
      );
      assert.equal((await entries()).rows[0]!.n, before, "no hold was kept");
      const same = await sql<{ n: number }>`select count(*)::int as n from withdraws
        where merchant_id = ${shop.merchantId} and reference_id = ${taken.reference_id}`.execute(svc.deps.db);
      assert.equal(same.rows[0]!.n, 1);
      await assertLedgerConsistent(svc.deps.db);
    });
  }
});

describeOnPostgres("withdraw admission when a key is taken behind the wallet lock (PostgreSQL)", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("a reference another transaction takes as the withdraw is inserted answers 409, with nothing kept", async () => {
    // Another transaction inserts a withdraw with the same reference without the wallet lock
    // and commits only once the admission has read (and found nothing) and sent its insert:
    // the insert fails on the unique index, its hold and COMMIT are not kept, and the admission
    // runs again, which reads the reference as taken.
    const shop = await fundedMerchant(svc);
    const model = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "30.00" }), {
      credentials: shop,
    });
    assert.equal(model.status, 201, JSON.stringify(model.body));
    const reference = `raced-${randomUUID()}`;
    const entries = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from ledger_entries`.execute(svc.deps.db)).rows[0]!
        .n;
    const before = await entries();
    const other = await svc.deps.db.connection().execute(async (connection) => {
      await sql`BEGIN`.execute(connection);
      await sql`INSERT INTO withdraws SELECT (jsonb_populate_record(NULL::withdraws,
          to_json(t)::jsonb || jsonb_build_object('id', gen_random_uuid(), 'reference_id', ${reference}::text,
            'idempotency_key', gen_random_uuid()::text))).* FROM withdraws t WHERE t.id = ${model.body.data.id}`.execute(
        connection,
      );
      const answer = svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({ amount: "31.00", referenceId: reference }),
        {
          credentials: shop,
        },
      );
      // Until the other transaction ends, the admission's insert waits on its row.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await sql`COMMIT`.execute(connection);
      return answer;
    });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.error.code, "DUPLICATE_REFERENCE_ID", JSON.stringify(other.body));
    assert.equal(await entries(), before, "no hold was kept for the refused withdraw");
    const rows = await sql<{ n: number }>`select count(*)::int as n from withdraws
      where merchant_id = ${shop.merchantId} and reference_id = ${reference}`.execute(svc.deps.db);
    assert.equal(rows.rows[0]!.n, 1);
    await assertLedgerConsistent(svc.deps.db);
  });
});

describeOnPostgres("the admission read's one plan for every merchant", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  /** A value of the statement's, written as a literal for EXECUTE. */
  const literal = (value: unknown): string => {
    if (value instanceof Date) return `'${value.toISOString()}'`;
    if (typeof value === "bigint" || typeof value === "number") return String(value);
    if (value === null || value === undefined) return "NULL";
    return `'${String(value).replaceAll("'", "''")}'`;
  };

  /** Rows the plan's scans of withdraws read: returned or removed by a filter, every loop. */
  function withdrawRowsRead(node: Record<string, unknown>): number {
    const own =
      node["Relation Name"] === "withdraws"
        ? (Number(node["Actual Rows"] ?? 0) + Number(node["Rows Removed by Filter"] ?? 0)) *
          Number(node["Actual Loops"] ?? 1)
        : 0;
    const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
    return own + children.reduce((sum, child) => sum + withdrawRowsRead(child), 0);
  }

  it("its generic plan reads neither the merchant's ended payouts of the amount outside the guard's window nor other amounts", async () => {
    const shop = await fundedMerchant(svc);
    const other = await fundedMerchant(svc);
    const made = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "10.00" }), {
      credentials: shop,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const templateId = (made.body as { data: { id: string } }).data.id;
    // Payouts of the same amount, ended before the window, and many other amounts elsewhere: the
    // statistics then make the amount look selective, which a plan for any merchant must not
    // trust (this merchant has three thousand payouts of this one amount).
    const columns = (
      await sql<{ name: string }>`select column_name as name from information_schema.columns
        where table_name = 'withdraws' order by ordinal_position`.execute(svc.deps.db)
    ).rows.map((row) => row.name);
    const copies = async (count: number, overrides: Record<string, string>) => {
      const values = columns.map((column) => overrides[column] ?? `t.${column}`);
      await sql`insert into withdraws (${sql.raw(columns.join(", "))})
        select ${sql.raw(values.join(", "))} from withdraws t, generate_series(1, ${sql.lit(count)}) g
        where t.id = ${templateId}`.execute(svc.deps.db);
    };
    const ended = {
      id: "gen_random_uuid()",
      reference_id: "'plan-' || g || '-' || t.merchant_id",
      idempotency_key: "'plan-' || g || '-' || t.merchant_id",
      status: "'failed'",
      failed_at: "t.created_at - g * interval '1 minute' - interval '1 hour'",
      created_at: "t.created_at - g * interval '1 minute' - interval '1 hour'",
    };
    await copies(3_000, ended);
    await copies(5_000, { ...ended, merchant_id: `'${other.merchantId}'`, amount_satang: "1000 + g" });
    await sql`analyze withdraws`.execute(svc.deps.db);

    const read = admissionReadStatement(svc.deps.db, {
      ...guardQuery({ merchantId: shop.merchantId, amountSatang: 10n, now: svc.clock.now() }),
      idempotencyKey: undefined,
      referenceId: "plan-probe",
      windows: undefined,
    });
    const plan = await svc.deps.db.transaction().execute(async (trx) => {
      await sql`prepare admission_probe as ${sql.raw(read.query.sql)}`.execute(trx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      const args = read.query.parameters.map(literal).join(", ");
      const explained = await sql<{
        "QUERY PLAN": [{ Plan: Record<string, unknown> }];
      }>`explain (analyze, format json)
        execute admission_probe(${sql.raw(args)})`.execute(trx);
      await sql`deallocate admission_probe`.execute(trx);
      return explained.rows[0]!["QUERY PLAN"][0].Plan;
    });
    const rowsRead = withdrawRowsRead(plan);
    assert.ok(
      rowsRead < 50,
      `the generic plan read ${rowsRead} withdraws:\n${JSON.stringify(plan, null, 1)}`,
    );
    const facts = await readAdmission(svc.deps.db, {
      ...guardQuery({ merchantId: shop.merchantId, amountSatang: 10n, now: svc.clock.now() }),
      idempotencyKey: undefined,
      referenceId: "plan-probe",
      windows: undefined,
    });
    assert.deepEqual(
      facts.guardCandidates.map((candidate) => candidate.id),
      [templateId],
    );
  });

  /**
   * The tables a plan reads whole, by name: its sequential scans, and its index scans with no
   * condition on the index (with sequential scans off, the planner reads a whole table through
   * its primary key instead, to hash or merge it with the group's rows).
   */
  function seqScanned(node: Record<string, unknown>): string[] {
    const type = node["Node Type"];
    const indexScan = type === "Index Scan" || type === "Index Only Scan" || type === "Bitmap Index Scan";
    const whole = type === "Seq Scan" || (indexScan && node["Index Cond"] === undefined);
    const own = whole ? [String(node["Relation Name"] ?? node["Index Name"])] : [];
    const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
    return [...own, ...children.flatMap((child) => seqScanned(child))];
  }

  it("plans the group's lock, read and insert by key under the admission's settings, however small the tables were", async () => {
    const shops = [await fundedMerchant(svc), await fundedMerchant(svc)];
    // The statistics of a young database, as autovacuum measures them: every table a page or
    // two. A plan made now is kept by the connection for as long as they stay, however many rows
    // come meanwhile: one that reads a table whole to hash or merge it with the group's rows goes
    // on doing so for every group (the insert read every saved destination for each group so,
    // and the read every merchant, 1,002 of them per group of a few creates in the bench).
    await sql`analyze merchants, ledger_accounts, withdraws, withdraw_destinations, withdraw_day_totals,
      withdraw_day_changes`.execute(svc.deps.db);
    const queries = shops.map((shop) => ({
      ...guardQuery({ merchantId: shop.merchantId, amountSatang: 10n, now: svc.clock.now() }),
      idempotencyKey: `plan-${randomUUID()}`,
      referenceId: `plan-${randomUUID()}`,
      windows: undefined,
    }));
    const scanned = await svc.deps.db.transaction().execute(async (trx) => {
      for (const [name, value] of Object.entries(ADMISSION_PLAN_SETTINGS)) {
        await sql`select set_config(${name}, ${value}, true)`.execute(trx);
      }
      const explain = async (name: string, query: { sql: string; parameters: readonly unknown[] }) => {
        await sql`prepare ${sql.raw(name)} as ${sql.raw(query.sql)}`.execute(trx);
        const args = query.parameters.map(arrayLiteral).join(", ");
        const explained = await sql<{
          "QUERY PLAN": [{ Plan: Record<string, unknown> }];
        }>`explain (format json)
          execute ${sql.raw(name)}(${sql.raw(args)})`.execute(trx);
        await sql`deallocate ${sql.raw(name)}`.execute(trx);
        return seqScanned(explained.rows[0]!["QUERY PLAN"][0].Plan);
      };
      return {
        lock: await explain(
          "group_lock_probe",
          walletsLockStatement(
            trx,
            shops.map((shop) => shop.merchantId),
          ).query,
        ),
        read: await explain("group_read_probe", groupAdmissionReadStatement(trx, queries).query),
        // Explained, not run: the saved destination's anti-join and its lookup.
        insert: await explain(
          "group_insert_probe",
          groupWithdrawInsertStatement(trx, shops.map(plannedWithdraw)).query,
        ),
      };
    });
    assert.deepEqual(scanned, { lock: [], read: [], insert: [] });
  });

  /** A withdraw of `shop` as the group inserts one, for its plan. */
  const plannedWithdraw = (shop: { merchantId: string }): GroupWithdraw => {
    const now = svc.clock.now();
    return {
      row: {
        id: randomUUID(),
        merchant_id: shop.merchantId,
        integration_id: null,
        amount_satang: 1_000n,
        currency: "THB",
        status: "pending",
        reference_id: `plan-${randomUUID()}`,
        destination_type: "bank_account",
        bank_account_name: "Somchai Jaidee",
        bank_account_number: "1234567890",
        bank_code: "004",
        description: null,
        metadata: null,
        idempotency_key: `plan-${randomUUID()}`,
        request_hash: "0".repeat(64),
        verification_expires_at: null,
        paid_at: null,
        failed_at: null,
        canceled_at: null,
        created_at: now,
        updated_at: now,
      },
      destinationIdIfNew: randomUUID(),
      replay: undefined,
    };
  };

  /** A value as SQL text; an array as an untyped array literal, which takes the parameter's type. */
  const arrayLiteral = (value: unknown): string => {
    if (!Array.isArray(value)) return literal(value);
    const element = (item: unknown) =>
      item === null || item === undefined ? "NULL" : `"${String(item).replaceAll('"', '\\"')}"`;
    return literal(`{${value.map(element).join(",")}}`);
  };
});
