/**
 * The invariants the chaos harness checks after every run, straight in the database: money is
 * neither lost nor created however often the server was killed.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../apps/server/src/db/types.ts";
import type { Merchant, Tally } from "./chaos-workload.ts";

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** How many rows or records the check looked at. */
  checked: number;
  problems: string[];
}

type Db = Kysely<Database>;

async function rows<T>(db: Db, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(db)).rows;
}

function result(name: string, checked: number, problems: string[]): InvariantResult {
  return { name, ok: problems.length === 0, checked, problems: problems.slice(0, 20) };
}

async function ledgerBalanced(db: Db): Promise<InvariantResult> {
  const [count] = await rows(db, sql<{ n: bigint }>`select count(*)::bigint as n from ledger_transactions`);
  const unbalanced = await rows(
    db,
    sql<{ id: string }>`select transaction_id as id from ledger_entries group by transaction_id
      having sum(amount_satang) <> 0`,
  );
  const drifted = await rows(
    db,
    sql<{ id: string }>`select a.id from ledger_accounts a left join ledger_entries e on e.account_id = a.id
      group by a.id, a.balance_satang having a.balance_satang <> coalesce(sum(e.amount_satang), 0)`,
  );
  const negative = await rows(
    db,
    sql<{ id: string }>`select a.id from ledger_accounts a
      where a.kind in ('settlement_pending', 'wallet_available', 'wallet_held') and a.balance_satang < 0
        -- A late success debits the available wallet again, below zero if it was spent meanwhile.
        and not (a.kind = 'wallet_available' and exists (select 1 from ledger_entries e
          join ledger_transactions t on t.id = e.transaction_id
          where e.account_id = a.id and t.kind in ('withdraw_late_success', 'refund_late_success')))`,
  );
  return result(
    "ledger balanced (every transaction sums to zero, balances equal their entries)",
    Number(count?.n ?? 0),
    [
      ...unbalanced.map((r) => `transaction ${r.id} does not sum to zero`),
      ...drifted.map((r) => `account ${r.id} balance differs from its entries`),
      ...negative.map((r) => `account ${r.id} is negative`),
    ],
  );
}

async function holdsConsistent(db: Db): Promise<InvariantResult> {
  const list = await rows(
    db,
    sql<{ merchant_id: string; held: bigint; open: bigint }>`
      select a.merchant_id, a.balance_satang as held,
        coalesce((select sum(w.amount_satang) from withdraws w where w.merchant_id = a.merchant_id
          and w.status in ('awaiting_verification', 'pending', 'processing')), 0)::bigint
        + coalesce((select sum(r.amount_satang) from refunds r where r.merchant_id = a.merchant_id
          and r.status in ('pending', 'processing')), 0)::bigint as open
      from ledger_accounts a where a.kind = 'wallet_held'`,
  );
  return result(
    "holds consistent with withdraw and refund states (held = open withdraws + open refunds)",
    list.length,
    list
      .filter((r) => BigInt(r.held) !== BigInt(r.open))
      .map((r) => `merchant ${r.merchant_id}: held ${r.held}, open ${r.open}`),
  );
}

async function limitsKept(db: Db, merchants: Merchant[]): Promise<InvariantResult> {
  const problems: string[] = [];
  let checked = 0;
  for (const merchant of merchants) {
    for (const [unit, limit] of [
      ["day", merchant.dailyLimitSatang],
      ["month", merchant.monthlyLimitSatang],
    ] as const) {
      const windows = await rows(
        db,
        sql<{ window: string; used: bigint }>`
          select date_trunc(${unit}, created_at at time zone 'UTC')::text as window, sum(amount_satang)::bigint as used
          from withdraws where merchant_id = ${merchant.id} and status in ('awaiting_verification', 'pending', 'processing', 'paid')
          group by 1`,
      );
      checked += windows.length;
      for (const w of windows)
        if (BigInt(w.used) > limit)
          problems.push(`merchant ${merchant.id} ${unit} ${w.window}: ${w.used} > ${limit}`);
    }
  }
  return result("daily and monthly withdraw limits never exceeded", checked, problems);
}

async function oneRecordPerKey(db: Db, tally: Tally): Promise<InvariantResult> {
  const duplicates = await rows(
    db,
    sql<{ what: string; key: string }>`
      select 'payment' as what, idempotency_key as key from payments group by merchant_id, idempotency_key having count(*) > 1
      union all
      select 'withdraw', idempotency_key from withdraws group by merchant_id, idempotency_key having count(*) > 1
      union all
      select 'refund', idempotency_key from refunds group by merchant_id, idempotency_key having count(*) > 1`,
  );
  return result("one record per idempotency key", tally.idsByKey.size, [
    ...duplicates.map((d) => `${d.what} key ${d.key} has several records`),
    ...tally.keyConflicts.map((k) => `key ${k} was answered with two different ids`),
  ]);
}

async function onePayoutPerWithdraw(db: Db): Promise<InvariantResult> {
  const [count] = await rows(db, sql<{ n: bigint }>`select count(*)::bigint as n from payouts`);
  const orphans = await rows(
    db,
    sql<{ key: string }>`select s.payout_key as key from sandbox_payouts s
      left join payouts p on p.idempotency_key = s.payout_key where p.withdraw_id is null`,
  );
  const wrong = await rows(
    db,
    sql<{ id: string }>`select w.id from withdraws w join payouts p on p.withdraw_id = w.id
      join sandbox_payouts s on s.payout_key = p.idempotency_key
      where s.amount_satang <> w.amount_satang or (w.status = 'paid' and s.status <> 'paid')`,
  );
  const paidWithout = await rows(
    db,
    sql<{ id: string }>`select w.id from withdraws w left join payouts p on p.withdraw_id = w.id
      where w.status = 'paid' and p.withdraw_id is null`,
  );
  return result(
    "one payout per withdraw (the bank saw each payout once, for its amount)",
    Number(count?.n ?? 0),
    [
      ...orphans.map((o) => `bank payout ${o.key} belongs to no withdraw`),
      ...wrong.map((w) => `withdraw ${w.id} and its bank payout disagree`),
      ...paidWithout.map((w) => `withdraw ${w.id} is paid without a payout`),
    ],
  );
}

async function acknowledgedPresent(db: Db, tally: Tally): Promise<InvariantResult> {
  const problems: string[] = [];
  const byKind = {
    payment: new Map<string, bigint>(),
    withdraw: new Map<string, bigint>(),
    refund: new Map<string, bigint>(),
  };
  for (const [table, kind] of [
    ["payments", "payment"],
    ["withdraws", "withdraw"],
    ["refunds", "refund"],
  ] as const) {
    const found = await rows(
      db,
      sql<{ id: string; amount: bigint }>`select id, amount_satang as amount from ${sql.table(table)}`,
    );
    for (const row of found) byKind[kind].set(row.id, BigInt(row.amount));
  }
  // A workload whose creates of one kind all fail checks nothing about that kind: it fails too.
  for (const kind of ["payment", "withdraw", "refund"] as const) {
    if (!tally.acknowledged.some((ack) => ack.kind === kind))
      problems.push(`no ${kind} create was acknowledged`);
  }
  for (const ack of tally.acknowledged) {
    const amount = byKind[ack.kind].get(ack.id);
    if (amount === undefined) problems.push(`acknowledged ${ack.kind} ${ack.id} is missing`);
    else if (amount !== ack.amountSatang)
      problems.push(`${ack.kind} ${ack.id}: amount ${amount} != ${ack.amountSatang}`);
  }
  return result(
    "every acknowledged (2xx) write present with its amount",
    tally.acknowledged.length,
    problems,
  );
}

/**
 * Refunds (CONTRACT 16): the refunds of a payment that are not failed or canceled never add up to
 * more than the payment, and equal the payment's kept refunded sum (with the refunds the operator
 * failed whose bank has not answered yet: refunds.refundable_withheld); a refund is paid at most once
 * (one paid or late-success posting), exactly when it is succeeded.
 */
async function refundsWithinPayments(db: Db): Promise<InvariantResult> {
  const over = await rows(
    db,
    sql<{ id: string; amount: bigint; refunded: bigint; kept: bigint }>`
      select p.id, p.amount_satang as amount, p.refunded_satang as kept,
        coalesce(sum(r.amount_satang) filter (where r.status not in ('failed', 'canceled') or r.refundable_withheld), 0)::bigint as refunded
      from payments p join refunds r on r.payment_id = p.id
      group by p.id, p.amount_satang, p.refunded_satang`,
  );
  const problems = over.flatMap((p) => [
    ...(BigInt(p.refunded) > BigInt(p.amount)
      ? [`payment ${p.id}: refunds ${p.refunded} > amount ${p.amount}`]
      : []),
    ...(BigInt(p.refunded) !== BigInt(p.kept)
      ? [`payment ${p.id}: refunds ${p.refunded} != kept sum ${p.kept}`]
      : []),
  ]);
  return result("a payment's refunds never exceed it (and equal its refunded sum)", over.length, problems);
}

async function refundsPaidOnce(db: Db): Promise<InvariantResult> {
  const list = await rows(
    db,
    sql<{ id: string; status: string; paid: bigint }>`
      select r.id, r.status, count(t.id)::bigint as paid from refunds r
      left join ledger_transactions t on t.subject_type = 'refund' and t.subject_id = r.id
        and t.kind in ('refund_paid', 'refund_late_success')
      group by r.id, r.status`,
  );
  return result(
    "a refund is paid at most once, exactly when it succeeded",
    list.length,
    list
      .filter((r) => BigInt(r.paid) > 1n || (BigInt(r.paid) === 1n) !== (r.status === "succeeded"))
      .map((r) => `refund ${r.id} (${r.status}) has ${r.paid} paid postings`),
  );
}

export async function checkInvariants(
  db: Db,
  merchants: Merchant[],
  tally: Tally,
): Promise<InvariantResult[]> {
  return [
    await ledgerBalanced(db),
    await holdsConsistent(db),
    await limitsKept(db, merchants),
    await oneRecordPerKey(db, tally),
    await onePayoutPerWithdraw(db),
    await acknowledgedPresent(db, tally),
    await refundsWithinPayments(db),
    await refundsPaidOnce(db),
  ];
}
