/**
 * Withdraw creates of different wallets that arrive together are admitted in one transaction
 * (withdraws/admission-group.ts): one wallet lock statement, one read, one INSERT and one posting
 * statement for the group. Each test sends its requests at once, checks from the statements that
 * they did go in one group, and that each answered as it would have alone: admitted with its
 * hold, or refused with its own error (a taken reference, a frozen wallet, a matching payout,
 * a limit, the balance), a signature used twice, an idempotency key sent twice, two creates of
 * one wallet, a wallet another transaction holds.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { withTransaction } from "../../src/db/handles.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import { signedInject } from "../helpers/signed.ts";
import { statementsOf } from "../helpers/statements.ts";
import { usingPostgres } from "../helpers/store.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

/** A test the PostgreSQL run registers and the embedded-store run leaves out (as describeOnPostgres). */
const itOnPostgres: (name: string, fn: () => Promise<void>) => void = usingPostgres() ? it : () => {};

type Request = ReturnType<typeof signedInject>;

const create = (merchant: Credentials, body: unknown): Request =>
  signedInject(merchant, "POST", "/api/v1/withdraws", JSON.stringify(body));

/** The withdraws a statement inserts as a group (the grouped INSERT's arrays). */
const isGroupInsert = (statement: string) => /^with "replay_records"/.test(statement);
const isSingleInsert = (statement: string) =>
  /insert into "withdraws"/.test(statement) && !isGroupInsert(statement);
const isGroupLock = (statement: string) => /merchant_id = ANY\(\$1::uuid\[\]\)/.test(statement);

describe("withdraws: creates of different wallets admitted together", () => {
  let svc: TestService;
  let merchants: Credentials[];
  before(async () => {
    svc = await startService();
    merchants = [];
    for (let i = 0; i < 8; i += 1) merchants.push(await fundedMerchant(svc, {}, 100_000_00n));
    // Each key in the auth cache, so that the creates arrive together.
    for (const merchant of merchants) await svc.app.inject(signedInject(merchant, "GET", "/api/v1/balance"));
  });
  after(async () => {
    await svc?.close();
  });

  async function atOnce(requests: Request[]) {
    const { result, statements } = await statementsOf(() =>
      Promise.all(requests.map((request) => svc.app.inject(request))),
    );
    return {
      answers: result,
      groupInserts: statements.filter(isGroupInsert).length,
      singleInserts: statements.filter(isSingleInsert).length,
      groupLocks: statements.filter(isGroupLock).length,
      statements,
    };
  }

  const withdrawsWith = async (merchant: Credentials, referenceId: string) =>
    Number(
      (
        await sql<{ n: bigint }>`select count(*)::bigint as n from withdraws
          where merchant_id = ${merchant.merchantId} and reference_id = ${referenceId}`.execute(svc.deps.db)
      ).rows[0]!.n,
    );

  it("eight wallets at once: one group, fewer statements than alone, each withdraw with its hold", async () => {
    const before = await Promise.all(merchants.map((m) => ledgerBalances(svc.deps.db, m.merchantId)));
    const bodies = merchants.map((_, i) => withdrawBody({ amount: `${10_000 + i}.00` }));
    const { answers, groupInserts, singleInserts, statements } = await atOnce(
      merchants.map((merchant, i) => create(merchant, bodies[i])),
    );
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      merchants.map(() => 201),
      answers.map((answer) => answer.body).join("\n"),
    );
    assert.ok(groupInserts >= 1, "a group INSERT was sent");
    assert.ok(singleInserts < merchants.length, `${singleInserts} withdraws inserted alone`);
    // Alone, a withdraw is six statements (BEGIN, the lock, the read, the INSERT, the hold, COMMIT).
    assert.ok(statements.length < merchants.length * 6, `${statements.length} statements for 8 withdraws`);
    for (const [i, merchant] of merchants.entries()) {
      const data = answers[i]!.json().data;
      assert.equal(data.amount, `${10_000 + i}.00`);
      assert.equal(data.status, "pending");
      assert.equal(data.referenceId, bodies[i]!.referenceId);
      assert.equal(await withdrawsWith(merchant, bodies[i]!.referenceId as string), 1);
      const after = await ledgerBalances(svc.deps.db, merchant.merchantId);
      const amount = BigInt(10_000 + i);
      assert.equal(after.wallet_available, before[i]!.wallet_available! - amount);
      assert.equal(after.wallet_held, before[i]!.wallet_held! + amount);
    }
    await assertLedgerConsistent(svc.deps.db);
  });

  it("in a group, a destination saved under the same name is read, a renamed one refreshed, a new one saved", async () => {
    const [same, renamed, fresh] = merchants.slice(0, 3) as [Credentials, Credentials, Credentials];
    const account = { customerBankAccountNumber: "7776665554" };
    const first = await atOnce(
      [same, renamed].map((merchant) =>
        create(
          merchant,
          withdrawBody({ ...account, customerBankAccountName: "Somchai Jaidee", amount: "41.00" }),
        ),
      ),
    );
    const [sameId, renamedId] = first.answers.map((answer) => answer.json().data.destinationId as string);
    const versions = async () =>
      (
        await sql<{
          id: string;
          xmin: string;
          account_name: string;
        }>`select id, xmin::text as xmin, account_name
          from withdraw_destinations where account_number = '7776665554'`.execute(svc.deps.db)
      ).rows;
    const before = await versions();
    const { answers, groupInserts } = await atOnce([
      create(same, withdrawBody({ ...account, customerBankAccountName: "Somchai Jaidee", amount: "42.00" })),
      create(
        renamed,
        withdrawBody({ ...account, customerBankAccountName: "Somchai Jaidee-Rak", amount: "42.00" }),
      ),
      create(fresh, withdrawBody({ ...account, customerBankAccountName: "Somchai Jaidee", amount: "42.00" })),
    ]);
    assert.equal(groupInserts, 1, "one grouped INSERT");
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [201, 201, 201],
      answers.map((answer) => answer.body).join("\n"),
    );
    const ids = answers.map((answer) => answer.json().data.destinationId as string);
    assert.equal(ids[0], sameId);
    assert.equal(ids[1], renamedId);
    assert.ok(![sameId, renamedId].includes(ids[2]!));
    const after = await versions();
    const row = (rows: typeof before, id: string) => rows.find((r) => r.id === id)!;
    assert.deepEqual(row(after, sameId!), row(before, sameId!), "the same name: read, not written");
    assert.equal(row(after, renamedId!).account_name, "Somchai Jaidee-Rak");
    assert.notEqual(row(after, renamedId!).xmin, row(before, renamedId!).xmin);
    assert.equal(row(after, ids[2]!).account_name, "Somchai Jaidee");
    assert.equal(after.length, 3);
  });

  it("forty creates over four wallets with room for exactly three each: three admitted per wallet", async () => {
    const amount = 7_000n;
    const wallets: Credentials[] = [];
    for (let i = 0; i < 4; i += 1) {
      const merchant = await fundedMerchant(svc, {}, amount * 3n);
      await svc.app.inject(signedInject(merchant, "GET", "/api/v1/balance"));
      wallets.push(merchant);
    }
    // Interleaved: every group holds creates of several wallets.
    const requests = Array.from({ length: 40 }, (_, i) =>
      create(wallets[i % 4]!, withdrawBody({ amount: `${amount}.00` })),
    );
    const { answers, groupLocks } = await atOnce(requests);
    assert.ok(groupLocks >= 1, "the creates were locked in groups");
    for (const [w, merchant] of wallets.entries()) {
      const mine = answers.filter((_, i) => i % 4 === w);
      const codes = mine
        .map((answer) => `${answer.statusCode} ${answer.json().error?.code ?? ""}`.trim())
        .sort();
      assert.deepEqual(codes, [...Array(3).fill("201"), ...Array(7).fill("400 INSUFFICIENT_BALANCE")]);
      const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
      assert.equal(balances.wallet_available, 0n);
      assert.equal(balances.wallet_held, amount * 3n);
    }
    await assertLedgerConsistent(svc.deps.db);
  });

  it("in one group: exactly the balance is admitted, one satang over it is refused", async () => {
    const exact = await fundedMerchant(svc, {}, 5_000n);
    const over = await fundedMerchant(svc, {}, 5_000n);
    for (const merchant of [exact, over])
      await svc.app.inject(signedInject(merchant, "GET", "/api/v1/balance"));
    const { answers, groupLocks } = await atOnce([
      create(exact, withdrawBody({ amount: "5000.00" })),
      create(over, withdrawBody({ amount: "5001.00" })),
      ...merchants.slice(0, 3).map((merchant) => create(merchant, withdrawBody())),
    ]);
    assert.ok(groupLocks >= 1, "the creates were locked as a group");
    assert.equal(answers[0]!.statusCode, 201, answers[0]!.body);
    assert.equal(answers[1]!.statusCode, 400);
    assert.equal(answers[1]!.json().error.code, "INSUFFICIENT_BALANCE");
    assert.equal((await ledgerBalances(svc.deps.db, exact.merchantId)).wallet_available, 0n);
    assert.equal((await ledgerBalances(svc.deps.db, over.merchantId)).wallet_available, 5_000n);
  });

  it("refusals in a group answer as alone, and write nothing; the others are admitted", async () => {
    const [taken, frozen, guarded, limited, poor, ...fine] = merchants;
    const first = withdrawBody();
    assert.equal((await svc.app.inject(create(taken!, first))).statusCode, 201);
    const guardBody = withdrawBody({ amount: "777.00" });
    assert.equal((await svc.app.inject(create(guarded!, guardBody))).statusCode, 201);
    await sql`update merchants set wallet_status = 'frozen' where id = ${frozen!.merchantId}`.execute(
      svc.deps.db,
    );
    await sql`update merchants set daily_withdraw_limit_satang = 10000 where id = ${limited!.merchantId}`.execute(
      svc.deps.db,
    );
    const poorBalance = (await ledgerBalances(svc.deps.db, poor!.merchantId)).wallet_available!;
    const requests = [
      create(taken!, withdrawBody({ referenceId: first.referenceId })),
      create(frozen!, withdrawBody()),
      create(
        guarded!,
        withdrawBody({ amount: "777.00", customerBankAccountName: guardBody.customerBankAccountName }),
      ),
      create(limited!, withdrawBody({ amount: "20000.00" })),
      create(poor!, withdrawBody({ amount: `${poorBalance + 1n}.00` })),
      ...fine.map((merchant) => create(merchant, withdrawBody())),
    ];
    const { answers, groupLocks } = await atOnce(requests);
    assert.ok(groupLocks >= 1, "the creates were locked as a group");
    const codes = answers.map((answer) => `${answer.statusCode} ${answer.json().error?.code ?? ""}`.trim());
    assert.deepEqual(codes, [
      "409 DUPLICATE_REFERENCE_ID",
      "403 WALLET_INACTIVE",
      "409 STATE_CONFLICT",
      "400 INVALID_INPUT",
      "400 INSUFFICIENT_BALANCE",
      ...fine.map(() => "201"),
    ]);
    assert.equal(await withdrawsWith(taken!, first.referenceId as string), 1);
    await assertLedgerConsistent(svc.deps.db);
    await sql`update merchants set wallet_status = 'active', daily_withdraw_limit_satang = null
      where id in (${frozen!.merchantId}, ${limited!.merchantId})`.execute(svc.deps.db);
  });

  it("one signed request twice with others: one 201, one 401 (replayed), the rest 201", async () => {
    const requests = merchants.slice(1, 6).map((merchant) => create(merchant, withdrawBody()));
    const twice = create(merchants[0]!, withdrawBody());
    const { answers } = await atOnce([twice, ...requests, twice]);
    const statuses = answers.map((answer) => answer.statusCode);
    assert.deepEqual(
      [...statuses].sort(),
      [201, 201, 201, 201, 201, 201, 401],
      answers.map((a) => a.body).join("\n"),
    );
    assert.equal(statuses[0] === 201 ? statuses.at(-1) : statuses[0], 401);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("two creates of one wallet at once: admitted one after the other, the second sees the first's hold", async () => {
    const merchant = await fundedMerchant(svc, {}, 1_500n);
    await svc.app.inject(signedInject(merchant, "GET", "/api/v1/balance"));
    const others = merchants.slice(0, 4).map((m) => create(m, withdrawBody()));
    const { answers } = await atOnce([
      create(merchant, withdrawBody({ amount: "1000.00" })),
      create(merchant, withdrawBody({ amount: "1000.00" })),
      ...others,
    ]);
    const codes = answers
      .slice(0, 2)
      .map((answer) => `${answer.statusCode} ${answer.json().error?.code ?? ""}`.trim());
    assert.deepEqual([...codes].sort(), ["201", "400 INSUFFICIENT_BALANCE"]);
    assert.deepEqual(
      answers.slice(2).map((answer) => answer.statusCode),
      [201, 201, 201, 201],
    );
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 500n);
    assert.equal(balances.wallet_held, 1_000n);
  });

  it("one idempotency key sent twice in a group's time: one 201, one 200 replay of it", async () => {
    const body = withdrawBody({ idempotencyKey: `group-key-${Date.now()}` });
    const others = merchants.slice(1, 5).map((merchant) => create(merchant, withdrawBody()));
    const { answers } = await atOnce([create(merchants[0]!, body), create(merchants[0]!, body), ...others]);
    const [a, b] = answers;
    assert.deepEqual([a!.statusCode, b!.statusCode].sort(), [200, 201]);
    assert.equal(a!.json().data.id, b!.json().data.id);
    assert.equal(await withdrawsWith(merchants[0]!, body.referenceId as string), 1);
  });

  // On the embedded store a transaction holds the one connection: nothing else runs meanwhile.
  itOnPostgres("a wallet held by another transaction does not hold the group's other creates", async () => {
    const [held, ...others] = merchants.slice(0, 5);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = withTransaction(svc.deps.db, async (trx) => {
      await sql`select 1 from ledger_accounts where merchant_id = ${held!.merchantId}
        and kind = 'wallet_available' for update`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    const started = Date.now();
    const pending = [create(held!, withdrawBody()), ...others.map((m) => create(m, withdrawBody()))].map(
      (r) => svc.app.inject(r).then((answer) => ({ answer, at: Date.now() - started })),
    );
    const answered = await Promise.all(pending.slice(1));
    for (const { answer, at } of answered) {
      assert.equal(answer.statusCode, 201, answer.body);
      assert.ok(at < 1_500, `another wallet's create answered after ${at} ms`);
    }
    release();
    await holder;
    const first = await pending[0]!;
    assert.ok([201, 503].includes(first.answer.statusCode), first.answer.body);
    await assertLedgerConsistent(svc.deps.db);
  });
});
