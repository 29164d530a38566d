/**
 * The double-entry ledger: the database's own guarantees (balanced transactions, balances that
 * follow entries, no negative merchant money, append-only rows), the postings module, the
 * operator's wallet adjustments, and the triggers' plans.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { sql, type Transaction } from "kysely";
import type { Database } from "../../src/db/types.ts";
import { accountIds, ensureMerchantAccounts } from "../../src/ledger/accounts.ts";
import {
  post,
  postPaymentSucceeded,
  postWithdrawHold,
  postWithdrawLateSuccess,
  postWithdrawPaid,
  postWithdrawRelease,
  settle,
} from "../../src/ledger/postings.ts";
import { newId } from "../../src/lib/ids.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, fundWallet, ledgerBalances } from "../helpers/ledger.ts";
import { withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
before(async () => {
  svc = await startService();
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
});

const inTransaction = <T>(fn: (trx: Transaction<Database>) => Promise<T>) =>
  svc.deps.db.transaction().execute(fn);

/** Inserts a ledger transaction row with raw SQL builder calls, bypassing ledger/postings.ts. */
async function rawTransaction(trx: Transaction<Database>, merchantId: string): Promise<string> {
  const id = newId();
  await trx
    .insertInto("ledger_transactions")
    .values({
      id,
      merchant_id: merchantId,
      kind: "operator_adjustment",
      subject_type: "adjustment",
      subject_id: id,
      reason: "raw test insert",
      created_at: svc.clock.now(),
    })
    .execute();
  return id;
}

async function newAccounts(): Promise<{
  merchant: Credentials;
  ids: Awaited<ReturnType<typeof accountIds>>;
}> {
  const merchant = await svc.newMerchant();
  const ids = await accountIds(svc.deps.db, merchant.merchantId);
  return { merchant, ids };
}

const errorText = (error: unknown) => String((error as Error).message);
const codeOf = (error: unknown) => (error as { code?: string }).code ?? errorText(error);

/**
 * Lines inserted directly in one statement, as [account id, amount], under a new ledger
 * transaction of `merchantId` (or under `transactionId`, which is not inserted).
 */
const rawLines = (merchantId: string, lines: [string, bigint][], transactionId?: string) =>
  inTransaction(async (trx) => {
    const txId = transactionId ?? (await rawTransaction(trx, merchantId));
    await trx
      .insertInto("ledger_entries")
      .values(
        lines.map(([account_id, amount_satang]) => ({
          id: newId(),
          transaction_id: txId,
          account_id,
          amount_satang,
        })),
      )
      .execute();
  });

describe("ledger: guarantees held by the database", () => {
  it("refuses to commit an unbalanced transaction inserted directly, and keeps nothing of it", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(
      inTransaction(async (trx) => {
        const txId = await rawTransaction(trx, merchant.merchantId);
        await trx
          .insertInto("ledger_entries")
          .values({
            id: newId(),
            transaction_id: txId,
            account_id: ids.wallet_available,
            amount_satang: 500n,
          })
          .execute();
      }),
      (error) => /unbalanced/.test(errorText(error)),
    );
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 0n);
    const entries = await svc.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("account_id", "=", ids.wallet_available)
      .execute();
    assert.equal(entries.length, 0);
  });

  it("refuses an unbalanced pair of lines whose sum is not zero", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(
      rawLines(merchant.merchantId, [
        [ids.wallet_available, 500n],
        [ids.operator_adjustments, -499n],
      ]),
      (error) => /unbalanced/.test(errorText(error)),
    );
  });

  it("accepts a balanced transaction inserted directly and applies it to the account balances", async () => {
    const { merchant, ids } = await newAccounts();
    await inTransaction(async (trx) => {
      const txId = await rawTransaction(trx, merchant.merchantId);
      await trx
        .insertInto("ledger_entries")
        .values({ id: newId(), transaction_id: txId, account_id: ids.wallet_available, amount_satang: 700n })
        .execute();
      await trx
        .insertInto("ledger_entries")
        .values({
          id: newId(),
          transaction_id: txId,
          account_id: ids.operator_adjustments,
          amount_satang: -700n,
        })
        .execute();
    });
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 700n);
    assert.equal(balances.operator_adjustments, -700n);
  });

  it("refuses an entry that would take a merchant's available wallet below zero", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(
      rawLines(merchant.merchantId, [
        [ids.wallet_available, -1n],
        [ids.operator_adjustments, 1n],
      ]),
      (error) => /ledger_accounts_merchant_funds_not_negative/.test(errorText(error)),
    );
  });

  it("lets only a late success take the available wallet below zero, and no posting the other funds", async () => {
    const { merchant } = await newAccounts();
    const at = svc.clock.now();
    const merchantId = merchant.merchantId;
    // The withdraw's and the refund's late success: booked whatever the wallet holds.
    await inTransaction((trx) =>
      postWithdrawLateSuccess(trx, { merchantId, withdrawId: newId(), amountSatang: 300n, at }),
    );
    await inTransaction((trx) =>
      post(trx, {
        merchantId,
        kind: "refund_late_success",
        subject: { type: "refund", id: newId() },
        at,
        lines: [
          { account: "wallet_available", amountSatang: -200n },
          { account: "payout_clearing", amountSatang: 200n },
        ],
      }),
    );
    assert.equal((await ledgerBalances(svc.deps.db, merchantId)).wallet_available, -500n);
    // A late success's kind does not open the held wallet or the settlement below zero.
    for (const account of ["wallet_held", "settlement_pending"] as const) {
      await assert.rejects(
        inTransaction((trx) =>
          post(trx, {
            merchantId,
            kind: "withdraw_late_success",
            subject: { type: "withdraw", id: newId() },
            at,
            lines: [
              { account, amountSatang: -1n },
              { account: "payout_clearing", amountSatang: 1n },
            ],
          }),
        ),
        (error) => /ledger_accounts_merchant_funds_not_negative/.test(errorText(error)),
        account,
      );
    }
    // Any other posting still stops at the wallet's balance, below zero or not.
    await assert.rejects(
      rawLines(merchantId, [
        [(await accountIds(svc.deps.db, merchantId)).wallet_available, -1n],
        [(await accountIds(svc.deps.db, merchantId)).operator_adjustments, 1n],
      ]),
      (error) => /ledger_accounts_merchant_funds_not_negative/.test(errorText(error)),
    );
    await assertLedgerConsistent(svc.deps.db);
  });

  it("refuses a zero entry", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(rawLines(merchant.merchantId, [[ids.wallet_available, 0n]]));
  });

  it("refuses an entry on another merchant's account", async () => {
    const mine = await newAccounts();
    const theirs = await newAccounts();
    await assert.rejects(
      rawLines(mine.merchant.merchantId, [
        [mine.ids.wallet_available, 5n],
        [theirs.ids.operator_adjustments, -5n],
      ]),
      (error) => /outside its transaction's merchant/.test(errorText(error)),
    );
  });

  it("refuses an entry whose account or transaction does not exist (the entry trigger's referential check)", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(
      rawLines(merchant.merchantId, [
        [ids.wallet_available, 5n],
        [newId(), -5n],
      ]),
      (error) => codeOf(error) === "23503" && /outside its transaction's merchant/.test(errorText(error)),
    );
    await assert.rejects(
      rawLines(
        merchant.merchantId,
        [
          [ids.wallet_available, 5n],
          [ids.operator_adjustments, -5n],
        ],
        newId(),
      ),
      (error) => codeOf(error) === "23503",
    );
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 0n);
  });

  it("never deletes an account, nor changes its id, owner or kind", async () => {
    const { ids } = await newAccounts();
    const other = await newAccounts();
    await assert.rejects(
      svc.deps.db.deleteFrom("ledger_accounts").where("id", "=", ids.wallet_held).execute(),
      (error) => /never deleted/.test(errorText(error)),
    );
    await assert.rejects(
      svc.deps.db
        .updateTable("ledger_accounts")
        .set({ id: newId() })
        .where("id", "=", ids.wallet_held)
        .execute(),
      (error) => /cannot change id, owner or kind/.test(errorText(error)),
    );
    await assert.rejects(
      svc.deps.db
        .updateTable("ledger_accounts")
        .set({ merchant_id: other.merchant.merchantId, kind: "provider_clearing" })
        .where("id", "=", ids.provider_clearing)
        .execute(),
      (error) => /cannot change id, owner or kind|duplicate key/.test(errorText(error)),
    );
    await assert.rejects(
      svc.deps.db
        .updateTable("ledger_accounts")
        .set({ kind: "wallet_held" })
        .where("id", "=", ids.provider_clearing)
        .execute(),
      (error) => /cannot change id, owner or kind|duplicate key|unique/.test(errorText(error)),
    );
  });

  it("refuses to change an account balance except through an entry", async () => {
    const { ids } = await newAccounts();
    await assert.rejects(
      svc.deps.db
        .updateTable("ledger_accounts")
        .set({ balance_satang: 1_000_000n })
        .where("id", "=", ids.wallet_available)
        .execute(),
      (error) => /only through ledger entries/.test(errorText(error)),
    );
  });

  it("refuses an account that starts away from zero or has a kind the ledger does not know", async () => {
    const merchant = await svc.newMerchant();
    const account = (kind: string, balance: bigint) =>
      sql`INSERT INTO ledger_accounts (id, merchant_id, kind, balance_satang)
        VALUES (${newId()}, ${merchant.merchantId}, ${kind}, ${balance})`.execute(svc.deps.db);
    await assert.rejects(account("wallet_available", 1_000_000n), (error) =>
      /starts at zero/.test(errorText(error)),
    );
    await assert.rejects(account("provider_clearing", -5n), (error) =>
      /starts at zero/.test(errorText(error)),
    );
    await assert.rejects(account("savings", 0n), (error) => /ledger_account_kind/.test(errorText(error)));
  });

  it("refuses a write of an account's id, owner or kind even to the value it has", async () => {
    const { merchant, ids } = await newAccounts();
    await assert.rejects(
      svc.deps.db
        .updateTable("ledger_accounts")
        .set({ kind: "wallet_held", merchant_id: merchant.merchantId })
        .where("id", "=", ids.wallet_held)
        .execute(),
      (error) => /cannot change id, owner or kind/.test(errorText(error)),
    );
  });

  it("refuses an entry that takes any of a merchant's own funds below zero, and no other account", async () => {
    const { merchant, ids } = await newAccounts();
    for (const own of [ids.settlement_pending, ids.wallet_available, ids.wallet_held]) {
      await assert.rejects(
        rawLines(merchant.merchantId, [
          [own, -1n],
          [ids.operator_adjustments, 1n],
        ]),
        (error) =>
          codeOf(error) === "23514" && /ledger_accounts_merchant_funds_not_negative/.test(errorText(error)),
      );
    }
    // The counterpart accounts carry the opposite of the merchant's money: they go below zero.
    await rawLines(merchant.merchantId, [
      [ids.provider_clearing, -3n],
      [ids.payout_clearing, -4n],
      [ids.operator_adjustments, -5n],
      [ids.settlement_pending, 12n],
    ]);
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.provider_clearing, -3n);
    assert.equal(balances.settlement_pending, 12n);
  });

  it("prepares no check per entry: the accounts table has no CHECK constraint and no row trigger on UPDATE", async () => {
    // Each entry's UPDATE of its account is one statement run inside the entry trigger, and
    // PostgreSQL prepares a table's CHECK constraints and row triggers' WHEN conditions for each
    // run: rules kept there cost every entry more than the UPDATE itself (migration 0110).
    const { rows } = await sql<{ what: string }>`
      SELECT 'check ' || conname AS what FROM pg_constraint
        WHERE conrelid = 'ledger_accounts'::regclass AND contype = 'c'
      UNION ALL
      SELECT 'row trigger ' || tgname FROM pg_trigger
        WHERE tgrelid = 'ledger_accounts'::regclass AND NOT tgisinternal
          AND (tgtype & 1) = 1 AND (tgtype & 16) = 16`.execute(svc.deps.db);
    assert.deepEqual(rows, []);
  });

  it("keeps entries and ledger transactions append-only, and the ledger's tables whole", async () => {
    const { merchant } = await newAccounts();
    await fundWallet(svc.deps, merchant.merchantId, 100n);
    await assert.rejects(
      svc.deps.db.updateTable("ledger_entries").set({ amount_satang: 1n }).execute(),
      (error) => /append-only/.test(errorText(error)),
    );
    await assert.rejects(svc.deps.db.deleteFrom("ledger_entries").execute(), (error) =>
      /append-only/.test(errorText(error)),
    );
    await assert.rejects(svc.deps.db.deleteFrom("ledger_transactions").execute(), (error) =>
      /append-only/.test(errorText(error)),
    );
    // Nor emptied whole: no table of the ledger can be truncated under the others.
    for (const table of ["ledger_entries", "ledger_transactions"]) {
      await assert.rejects(sql`TRUNCATE ${sql.table(table)} CASCADE`.execute(svc.deps.db), (error) =>
        /append-only/.test(errorText(error)),
      );
    }
    await assert.rejects(sql`TRUNCATE ledger_accounts CASCADE`.execute(svc.deps.db), (error) =>
      /never deleted/.test(errorText(error)),
    );
    await assertLedgerConsistent(svc.deps.db);
  });

  it("refuses to post the same event for the same subject twice", async () => {
    const { merchant } = await newAccounts();
    const paymentId = newId();
    const at = svc.clock.now();
    await inTransaction((trx) =>
      postPaymentSucceeded(trx, { merchantId: merchant.merchantId, paymentId, amountSatang: 100n, at }),
    );
    await assert.rejects(
      inTransaction((trx) =>
        postPaymentSucceeded(trx, { merchantId: merchant.merchantId, paymentId, amountSatang: 100n, at }),
      ),
      (error) => /ledger_transactions_once_per_subject/.test(errorText(error)),
    );
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.settlement_pending, 100n);
  });

  it("creates a merchant's six accounts once, however often it is asked", async () => {
    const merchant = await svc.newMerchant();
    await ensureMerchantAccounts(svc.deps.db, merchant.merchantId);
    await ensureMerchantAccounts(svc.deps.db, merchant.merchantId);
    await Promise.all([1, 2, 3].map(() => ensureMerchantAccounts(svc.deps.db, merchant.merchantId)));
    const rows = await svc.deps.db
      .selectFrom("ledger_accounts")
      .select("kind")
      .where("merchant_id", "=", merchant.merchantId)
      .execute();
    assert.deepEqual(rows.map((r) => r.kind).sort(), [
      "operator_adjustments",
      "payout_clearing",
      "provider_clearing",
      "settlement_pending",
      "wallet_available",
      "wallet_held",
    ]);
  });
});

describe("ledger: postings", () => {
  it("refuses an unbalanced posting in code before it reaches the database", async () => {
    const { merchant } = await newAccounts();
    const base = {
      merchantId: merchant.merchantId,
      kind: "operator_adjustment" as const,
      subject: { type: "adjustment" as const, id: newId() },
      at: svc.clock.now(),
    };
    const attempts = [
      { lines: [{ account: "wallet_available" as const, amountSatang: 5n }] },
      {
        lines: [
          { account: "wallet_available" as const, amountSatang: 5n },
          { account: "operator_adjustments" as const, amountSatang: -4n },
        ],
      },
      {
        lines: [
          { account: "wallet_available" as const, amountSatang: 0n },
          { account: "operator_adjustments" as const, amountSatang: 0n },
        ],
      },
      {
        lines: [
          { account: "wallet_available" as const, amountSatang: 5n },
          { account: "wallet_available" as const, amountSatang: -5n },
        ],
      },
    ];
    for (const attempt of attempts) {
      await assert.rejects(
        inTransaction((trx) => post(trx, { ...base, ...attempt })),
        /ledger posting/,
      );
    }
  });

  it("records each entry's balance after it", async () => {
    const { merchant } = await newAccounts();
    await fundWallet(svc.deps, merchant.merchantId, 1_000n);
    const posted = await inTransaction((trx) =>
      postWithdrawHold(trx, {
        merchantId: merchant.merchantId,
        withdrawId: newId(),
        amountSatang: 300n,
        at: svc.clock.now(),
      }),
    );
    const byAccount = Object.fromEntries(posted.entries.map((e) => [e.account, e.balanceAfterSatang]));
    assert.equal(byAccount.wallet_available, 700n);
    assert.equal(byAccount.wallet_held, 300n);
  });

  it("moves a succeeded payment into settlement pending, and settlement moves it to the wallet", async () => {
    const { merchant } = await newAccounts();
    const paymentId = newId();
    const at = svc.clock.now();
    await inTransaction((trx) =>
      postPaymentSucceeded(trx, { merchantId: merchant.merchantId, paymentId, amountSatang: 2_500n, at }),
    );
    let balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.settlement_pending, 2_500n);
    assert.equal(balances.provider_clearing, -2_500n);
    assert.equal(balances.wallet_available, 0n);

    await inTransaction((trx) =>
      settle(trx, { merchantId: merchant.merchantId, paymentId, amountSatang: 2_500n, at }),
    );
    balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.settlement_pending, 0n);
    assert.equal(balances.wallet_available, 2_500n);
  });

  it("refuses to settle more than is pending settlement", async () => {
    const { merchant } = await newAccounts();
    await assert.rejects(
      inTransaction((trx) =>
        settle(trx, {
          merchantId: merchant.merchantId,
          paymentId: newId(),
          amountSatang: 1n,
          at: svc.clock.now(),
        }),
      ),
      (error) => /ledger_accounts_merchant_funds_not_negative/.test(errorText(error)),
    );
  });

  it("holds a withdraw, then consumes the hold when it is paid", async () => {
    const { merchant } = await newAccounts();
    await fundWallet(svc.deps, merchant.merchantId, 1_000n);
    const withdrawId = newId();
    const input = { merchantId: merchant.merchantId, withdrawId, amountSatang: 400n, at: svc.clock.now() };
    await inTransaction((trx) => postWithdrawHold(trx, input));
    await inTransaction((trx) => postWithdrawPaid(trx, input));
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 600n);
    assert.equal(balances.wallet_held, 0n);
    assert.equal(balances.payout_clearing, 400n);
  });

  it("releases a hold back to the wallet, and debits it again on a late success", async () => {
    const { merchant } = await newAccounts();
    await fundWallet(svc.deps, merchant.merchantId, 1_000n);
    const input = {
      merchantId: merchant.merchantId,
      withdrawId: newId(),
      amountSatang: 400n,
      at: svc.clock.now(),
    };
    await inTransaction((trx) => postWithdrawHold(trx, input));
    await inTransaction((trx) => postWithdrawRelease(trx, input));
    let balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 1_000n);
    assert.equal(balances.wallet_held, 0n);
    await inTransaction((trx) => postWithdrawLateSuccess(trx, input));
    balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 600n);
    assert.equal(balances.payout_clearing, 400n);
  });

  it("rolls the posting back with the state change when the transaction fails", async () => {
    const { merchant } = await newAccounts();
    await fundWallet(svc.deps, merchant.merchantId, 1_000n);
    await assert.rejects(
      inTransaction(async (trx) => {
        await postWithdrawHold(trx, {
          merchantId: merchant.merchantId,
          withdrawId: newId(),
          amountSatang: 400n,
          at: svc.clock.now(),
        });
        throw new Error("the state change failed");
      }),
      /the state change failed/,
    );
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 1_000n);
    assert.equal(balances.wallet_held, 0n);
  });
});

describe("ledger: operator wallet adjustments", () => {
  const adjust = (merchantId: string, body: unknown, token?: string) =>
    svc.admin("POST", `/admin/v1/merchants/${merchantId}/wallet/adjustments`, body, token);

  it("credits the wallet and answers 201 with the ledger entry", async () => {
    const merchant = await svc.newMerchant();
    const res = await adjust(merchant.merchantId, { amount: "150000", reason: "opening float" });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const entry = res.body.data;
    assert.deepEqual(Object.keys(entry).sort(), [
      "amount",
      "balanceAfter",
      "createdAt",
      "id",
      "idempotencyKey",
      "merchantId",
      "reason",
    ]);
    assert.equal(entry.idempotencyKey, null);
    assert.match(entry.id, /^[0-9a-f-]{36}$/);
    assert.equal(entry.merchantId, merchant.merchantId);
    assert.equal(entry.amount, "150000.00");
    assert.equal(entry.reason, "opening float");
    assert.equal(entry.balanceAfter, "150000.00");
    assert.equal(entry.createdAt, svc.clock.now().toISOString());
    const stored = await svc.deps.db
      .selectFrom("ledger_transactions")
      .selectAll()
      .where("id", "=", entry.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.reason, "opening float");
    assert.equal(stored.kind, "operator_adjustment");
  });

  it("debits the wallet with a negative amount, down to exactly zero", async () => {
    const merchant = await svc.newMerchant();
    await adjust(merchant.merchantId, { amount: "+1000.00", reason: "credit" });
    const res = await adjust(merchant.merchantId, { amount: "-1000.00", reason: "correction" });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.amount, "-1000.00");
    assert.equal(res.body.data.balanceAfter, "0.00");
  });

  it("refuses a debit one satang larger than the available wallet with 400 INSUFFICIENT_BALANCE", async () => {
    const merchant = await svc.newMerchant();
    await adjust(merchant.merchantId, { amount: "1000", reason: "credit" });
    const res = await adjust(merchant.merchantId, { amount: "-1001", reason: "too much" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "INSUFFICIENT_BALANCE");
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 1_000n);
  });

  it("cannot debit money held for a withdraw", async () => {
    const merchant = await svc.newMerchant();
    await adjust(merchant.merchantId, { amount: "1000", reason: "credit" });
    const created = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "600" }), {
      credentials: merchant,
    });
    assert.equal(created.status, 201);
    const res = await adjust(merchant.merchantId, { amount: "-401", reason: "too much" });
    assert.equal(res.body.error.code, "INSUFFICIENT_BALANCE");
    assert.equal(
      (await adjust(merchant.merchantId, { amount: "-400", reason: "all that is free" })).status,
      201,
    );
  });

  const invalid: Array<[string, unknown, string, string]> = [
    ["a zero amount", { amount: "0", reason: "r" }, "INVALID_AMOUNT", "amount"],
    ["a negative zero", { amount: "-0.00", reason: "r" }, "INVALID_AMOUNT", "amount"],
    ["half a satang", { amount: "10.50", reason: "r" }, "INVALID_AMOUNT", "amount"],
    ["a JSON number", { amount: 100, reason: "r" }, "INVALID_AMOUNT", "amount"],
    ["no reason", { amount: "100" }, "VALIDATION_ERROR", "reason"],
    ["an empty reason", { amount: "100", reason: "" }, "VALIDATION_ERROR", "reason"],
    ["a 501-character reason", { amount: "100", reason: "r".repeat(501) }, "VALIDATION_ERROR", "reason"],
    ["an unknown field", { amount: "100", reason: "r", currency: "THB" }, "VALIDATION_ERROR", "currency"],
  ];
  for (const [name, body, code, field] of invalid) {
    it(`refuses ${name} with 400 ${code} on ${field}`, async () => {
      const merchant = await svc.newMerchant();
      const res = await adjust(merchant.merchantId, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, code);
      assert.equal(res.body.error.metadata.field, field);
    });
  }

  it("accepts a reason of exactly 500 characters", async () => {
    const merchant = await svc.newMerchant();
    assert.equal((await adjust(merchant.merchantId, { amount: "1", reason: "r".repeat(500) })).status, 201);
  });

  it("answers 404 for an unknown or malformed merchant id", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await adjust(id, { amount: "100", reason: "r" });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
  });

  it("refuses a request without the operator token with 401 INVALID_CREDENTIALS, before validating it", async () => {
    const merchant = await svc.newMerchant();
    const res = await adjust(merchant.merchantId, { amount: "nonsense" }, "not-the-token-at-all");
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "INVALID_CREDENTIALS");
  });

  describe("with an idempotency key", () => {
    it("answers a retry with the same body 200 with the adjustment it made, and moves the money once", async () => {
      const merchant = await svc.newMerchant();
      const body = { amount: "150000", reason: "opening float", idempotencyKey: "float-2026-12-06" };
      const first = await adjust(merchant.merchantId, body);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.headers["idempotent-replayed"], undefined);
      assert.equal(first.body.data.idempotencyKey, "float-2026-12-06");
      // The same body with its keys in another order is the same request.
      const retry = await adjust(merchant.merchantId, {
        idempotencyKey: "float-2026-12-06",
        reason: "opening float",
        amount: "150000",
      });
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.headers["idempotent-replayed"], "true");
      assert.deepEqual(retry.body.data, first.body.data);
      assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 150_000n);
      const postings = await svc.deps.db
        .selectFrom("ledger_transactions")
        .select("id")
        .where("merchant_id", "=", merchant.merchantId)
        .where("kind", "=", "operator_adjustment")
        .execute();
      assert.deepEqual(
        postings.map((row) => row.id),
        [first.body.data.id],
      );
    });

    it("answers the key with another body 422 IDEMPOTENCY_KEY_MISMATCH and moves nothing", async () => {
      const merchant = await svc.newMerchant();
      const key = "correction-17";
      assert.equal(
        (await adjust(merchant.merchantId, { amount: "1000", reason: "r", idempotencyKey: key })).status,
        201,
      );
      for (const body of [
        { amount: "1001", reason: "r", idempotencyKey: key },
        { amount: "1000", reason: "another reason", idempotencyKey: key },
        { amount: "-1000", reason: "r", idempotencyKey: key },
      ]) {
        const res = await adjust(merchant.merchantId, body);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.error.code, "IDEMPOTENCY_KEY_MISMATCH");
      }
      assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 1_000n);
    });

    it("replays a debit after the wallet it emptied, not refusing it for the balance", async () => {
      const merchant = await svc.newMerchant();
      await adjust(merchant.merchantId, { amount: "500", reason: "credit" });
      const body = { amount: "-500", reason: "take it back", idempotencyKey: "debit-1" };
      const first = await adjust(merchant.merchantId, body);
      assert.equal(first.status, 201);
      const retry = await adjust(merchant.merchantId, body);
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.data.balanceAfter, "0.00");
      assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 0n);
    });

    it("makes one adjustment of eight concurrent requests with one key; the others get it", async () => {
      const merchant = await svc.newMerchant();
      const body = { amount: "250", reason: "concurrent", idempotencyKey: "same-key" };
      const results = await Promise.all(Array.from({ length: 8 }, () => adjust(merchant.merchantId, body)));
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        [200, 200, 200, 200, 200, 200, 200, 201],
        JSON.stringify(results.map((r) => r.body)),
      );
      assert.equal(new Set(results.map((r) => r.body.data.id)).size, 1);
      assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 250n);
    });

    it("keeps keys per merchant: another merchant's key of the same text is a new adjustment", async () => {
      const [a, b] = [await svc.newMerchant(), await svc.newMerchant()];
      const body = { amount: "300", reason: "shared text", idempotencyKey: "k-1" };
      assert.equal((await adjust(a.merchantId, body)).status, 201);
      assert.equal((await adjust(b.merchantId, body)).status, 201);
      assert.equal((await ledgerBalances(svc.deps.db, b.merchantId)).wallet_available, 300n);
    });

    it("takes keys of 1 to 255 printable ASCII characters and refuses others with 400 VALIDATION_ERROR", async () => {
      const merchant = await svc.newMerchant();
      for (const key of ["k", "x".repeat(255), " ~!"]) {
        const res = await adjust(merchant.merchantId, { amount: "1", reason: "r", idempotencyKey: key });
        assert.equal(res.status, 201, `${key.length}: ${JSON.stringify(res.body)}`);
      }
      for (const key of ["", "x".repeat(256), "caf\u00e9", "tab\there", 42]) {
        const res = await adjust(merchant.merchantId, { amount: "1", reason: "r", idempotencyKey: key });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, "VALIDATION_ERROR");
        assert.equal(res.body.error.metadata.field, "idempotencyKey");
      }
      assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 3n);
    });
  });

  it("serializes concurrent debits: of ten debits of 100 against 500, exactly five succeed", async () => {
    const merchant = await svc.newMerchant();
    await adjust(merchant.merchantId, { amount: "500", reason: "credit" });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => adjust(merchant.merchantId, { amount: "-100", reason: "debit" })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 5);
    assert.equal(results.filter((r) => r.body.error?.code === "INSUFFICIENT_BALANCE").length, 5);
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.wallet_available, 0n);
  });
});

/** One balanced posting inserted as the postings module does: a transaction and its two lines. */
async function postPair(
  trx: Transaction<Database>,
  merchantId: string,
  ids: { wallet_available: string; operator_adjustments: string },
  amount: bigint,
): Promise<void> {
  const id = await rawTransaction(trx, merchantId);
  await trx
    .insertInto("ledger_entries")
    .values([
      { id: newId(), transaction_id: id, account_id: ids.operator_adjustments, amount_satang: -amount },
      { id: newId(), transaction_id: id, account_id: ids.wallet_available, amount_satang: amount },
    ])
    .execute();
}

/** Whole-table reads of the ledger's tables so far in this transaction. */
async function ledgerSeqScans(trx: Transaction<Database>): Promise<Record<string, string>> {
  const { rows } = await sql<{ relname: string; seq_scan: string }>`
    SELECT relname, seq_scan::text AS seq_scan FROM pg_stat_xact_user_tables
    WHERE relname IN ('ledger_accounts', 'ledger_transactions', 'ledger_entries')`.execute(trx);
  return Object.fromEntries(rows.map((row) => [row.relname, row.seq_scan]));
}

/** `count` more merchants, each with an account. */
async function grow(trx: Transaction<Database>, label: string, count: number): Promise<void> {
  await sql`INSERT INTO merchants (id, name, settlement_delay_hours, created_at, updated_at)
    SELECT gen_random_uuid(), ${label} || ' ' || g, 0, now(), now() FROM generate_series(1, ${count}::int) g`.execute(
    trx,
  );
  await sql`INSERT INTO ledger_accounts (id, merchant_id, kind)
    SELECT gen_random_uuid(), id, 'operator_adjustments' FROM merchants WHERE name LIKE ${`${label} %`}`.execute(
    trx,
  );
}

const ROLLED_BACK = new Error("rolled back on purpose");

/**
 * The triggers look rows up by key however small the ledger was when a connection first posted
 * (migration 0109). PostgreSQL settles on one plan for a trigger's statement after a few runs on
 * a connection and keeps it until the table's statistics change: a plan made while the ledger
 * held a handful of accounts read the whole accounts table for every entry, on every later
 * posting of that connection, until autovacuum next analyzed the table.
 */
describe("ledger: the triggers' plans", () => {
  it("look accounts, transactions and entries up by key after the ledger grew under a settled plan", async () => {
    const merchant = await svc.newMerchant();
    const ids = await accountIds(svc.deps.db, merchant.merchantId);
    await assert.rejects(
      svc.deps.db.transaction().execute(async (trx) => {
        // The balance check runs after each statement rather than at the commit, so that its
        // own lookups are counted too.
        await sql`SET CONSTRAINTS ledger_entries_balanced IMMEDIATE`.execute(trx);
        // The plan is made while the ledger is small, as autovacuum last measured it: a hundred
        // and fifty accounts, a few pages each table.
        await grow(trx, "small", 150);
        await sql`ANALYZE ledger_accounts, ledger_transactions, ledger_entries`.execute(trx);
        // More runs than PostgreSQL makes custom plans for: the next ones use the kept plan.
        for (let i = 0; i < 8; i++) await postPair(trx, merchant.merchantId, ids, 100n);
        // The ledger grows to thousands of accounts and transactions while that plan is kept.
        await grow(trx, "grown", 3000);
        for (let i = 0; i < 300; i++) await postPair(trx, merchant.merchantId, ids, 1n);
        const before = await ledgerSeqScans(trx);
        for (let i = 0; i < 5; i++) await postPair(trx, merchant.merchantId, ids, 100n);
        assert.deepEqual(await ledgerSeqScans(trx), before, "a posting read a ledger table whole");
        throw ROLLED_BACK;
      }),
      (error) => error === ROLLED_BACK,
    );
  });
});
