/**
 * The one writer of the ledger. A posting is one ledger transaction: a balanced set of lines,
 * each moving a signed amount into one of the merchant's accounts. It is always written inside
 * the caller's database transaction, the same one that changes the state it accounts for, so
 * a withdraw and its hold (or a payment and its settlement) commit or vanish together.
 *
 * Sign convention: an entry's amount is added to its account's balance. The merchant's own
 * accounts therefore carry positive balances, and the counterpart accounts carry the opposite
 * (provider_clearing goes negative as payments come in).
 *
 * Postings per event (docs/ledger.md):
 * | event                        | lines                                          |
 * |------------------------------|------------------------------------------------|
 * | payment succeeded            | settlement_pending +x, provider_clearing -x    |
 * | payment settled              | wallet_available +x, settlement_pending -x     |
 * | withdraw created (hold)      | wallet_available -x, wallet_held +x            |
 * | withdraw paid                | wallet_held -x, payout_clearing +x             |
 * | withdraw failed/canceled/... | wallet_held -x, wallet_available +x            |
 * | late success after release   | wallet_available -x, payout_clearing +x        |
 * | operator adjustment          | wallet_available +x, operator_adjustments -x   |
 *
 * Balance is asserted here and again by the database (a deferred constraint trigger refuses
 * to commit a transaction whose entries do not sum to zero).
 */
import { type QueryResult, sql } from "kysely";
import { type CachedStatement, cachedStatement } from "../db/compiled.ts";
import type { Trx } from "../db/handles.ts";
import { runStatement, type Statement } from "../db/pg-driver.ts";
import type { LedgerAccountKind, LedgerSubjectType, LedgerTransactionKind } from "../db/types.ts";
import { newId } from "../lib/ids.ts";
import { accountIds, knownAccountIds, lockRank } from "./accounts.ts";

interface PostingLine {
  account: LedgerAccountKind;
  amountSatang: bigint;
}

export interface Posting {
  merchantId: string;
  kind: LedgerTransactionKind;
  subject: { type: LedgerSubjectType; id: string };
  lines: PostingLine[];
  /** Business time of the event (the merchant's clock). */
  at: Date;
  reason?: string | null;
  /** The ledger transaction's id, when the caller needs to know it in advance. */
  id?: string;
}

interface PostedEntry {
  account: LedgerAccountKind;
  amountSatang: bigint;
  balanceAfterSatang: bigint;
}

export interface PostedTransaction {
  id: string;
  merchantId: string;
  kind: LedgerTransactionKind;
  createdAt: Date;
  entries: PostedEntry[];
}

/** A posting that breaks these rules is a bug in the caller: it stops the request loudly. */
function assertBalanced(posting: Posting): void {
  if (posting.lines.length < 2) throw new Error(`ledger posting ${posting.kind} needs at least two lines`);
  const seen = new Set<LedgerAccountKind>();
  let sum = 0n;
  for (const line of posting.lines) {
    if (line.amountSatang === 0n) throw new Error(`ledger posting ${posting.kind} has a zero line`);
    if (seen.has(line.account)) throw new Error(`ledger posting ${posting.kind} names ${line.account} twice`);
    seen.add(line.account);
    sum += line.amountSatang;
  }
  if (sum !== 0n) throw new Error(`ledger posting ${posting.kind} is unbalanced by ${sum} satang`);
}

/**
 * Writes one balanced posting. Lines are applied in the ledger's lock order, so concurrent
 * postings to one merchant wait for each other instead of deadlocking. A line that would take
 * the merchant's own money below zero fails on the account's CHECK constraint: callers check
 * the balance first (under the wallet lock), so that failure means a bug, not a user error.
 */
export async function post(trx: Trx, posting: Posting): Promise<PostedTransaction> {
  const ids = await accountIds(trx, posting.merchantId);
  return runStatement(trx, postingWithIds(trx, posting, ids));
}

/**
 * `post`'s statement, for sending with others (db/pg-driver.ts `runTogether`); undefined when
 * the transaction has not read the merchant's account ids yet (the wallet lock reads them).
 */
export function postingStatement(trx: Trx, posting: Posting): Statement<PostedTransaction> | undefined {
  const ids = knownAccountIds(trx, posting.merchantId);
  return ids && postingWithIds(trx, posting, ids);
}

function postingWithIds(
  trx: Trx,
  posting: Posting,
  ids: Record<LedgerAccountKind, string>,
): Statement<PostedTransaction> {
  assertBalanced(posting);
  const id = posting.id ?? newId();
  const lines = [...posting.lines].sort((a, b) => lockRank(a.account) - lockRank(b.account));
  const params: PostingParams = {
    id,
    merchant_id: posting.merchantId,
    kind: posting.kind,
    subject_type: posting.subject.type,
    subject_id: posting.subject.id,
    reason: posting.reason ?? null,
    created_at: posting.at,
  };
  lines.forEach((line, i) => {
    params[`line${i}_id`] = newId();
    params[`line${i}_account`] = ids[line.account];
    params[`line${i}_amount`] = line.amountSatang;
  });
  const query = postingOfLines(lines.length).compile(trx, params);
  const decode = (result: QueryResult<unknown>): PostedTransaction => {
    const inserted = result.rows as { account_id: string; balance_after_satang: bigint }[];
    const balanceAfter = new Map(inserted.map((row) => [row.account_id, row.balance_after_satang]));
    const entries: PostedEntry[] = lines.map((line) => {
      const after = balanceAfter.get(ids[line.account]);
      if (after === undefined)
        throw new Error(`ledger posting ${posting.kind} lost its ${line.account} line`);
      return { account: line.account, amountSatang: line.amountSatang, balanceAfterSatang: after };
    });
    return { id, merchantId: posting.merchantId, kind: posting.kind, createdAt: posting.at, entries };
  };
  return { query, decode };
}

type PostingParams = Record<string, unknown>;

/** The posting statement for each number of lines, compiled once. */
const postingStatements = new Map<number, CachedStatement<PostingParams, unknown>>();

/**
 * One statement: the ledger transaction in a data-modifying CTE, and all its lines in one
 * multi-row INSERT that reads the transaction's id from it (so the CTE has run before any
 * line's trigger looks the transaction up). The rows are applied in the order given, so each
 * line's trigger updates (and locks) its account in the ledger's lock order.
 */
function postingOfLines(count: number): CachedStatement<PostingParams, unknown> {
  const known = postingStatements.get(count);
  if (known) return known;
  const lineKeys = Array.from({ length: count }, (_, i) => [
    `line${i}_id`,
    `line${i}_account`,
    `line${i}_amount`,
  ]);
  const statement = cachedStatement<PostingParams, unknown>(
    ["id", "merchant_id", "kind", "subject_type", "subject_id", "reason", "created_at", ...lineKeys.flat()],
    (db, params) =>
      db
        .with("posted", (q) =>
          q
            .insertInto("ledger_transactions")
            .values({
              id: params.id as string,
              merchant_id: params.merchant_id as string,
              kind: params.kind as LedgerTransactionKind,
              subject_type: params.subject_type as LedgerSubjectType,
              subject_id: params.subject_id as string,
              reason: params.reason as string | null,
              created_at: params.created_at as Date,
            })
            .returning("id"),
        )
        .insertInto("ledger_entries")
        .values(
          lineKeys.map(([entryId, account, amount]) => ({
            id: params[entryId!] as string,
            transaction_id: (eb) => eb.selectFrom("posted").select("posted.id"),
            account_id: params[account!] as string,
            amount_satang: params[amount!] as bigint,
          })),
        )
        .returning(["account_id", "balance_after_satang"]),
  );
  postingStatements.set(count, statement);
  return statement;
}

/**
 * Several postings (of one merchant or of several) in one statement, for a grouped withdraw
 * admission (withdraws/admission-group.ts): the ledger transactions in a data-modifying CTE and
 * every line in one INSERT that reads its transaction's id from it, whatever their number (the
 * fields go as arrays). Lines are applied in the order given: each posting's in the ledger's
 * lock order, the postings in the order the caller locked their merchants' wallets. Undefined
 * when the transaction has not read one of the merchants' account ids yet.
 */
export function postingsStatement(
  trx: Trx,
  postings: readonly Posting[],
): Statement<PostedTransaction[]> | undefined {
  const arrays = postingsArrays(trx, postings);
  if (!arrays) return undefined;
  const { transactions, lines, ordered } = arrays;
  const query = postingsOfMany.compile(trx, {
    txIds: transactions.ids,
    txMerchantIds: transactions.merchantIds,
    txKinds: transactions.kinds,
    txSubjectTypes: transactions.subjectTypes,
    txSubjectIds: transactions.subjectIds,
    txReasons: transactions.reasons,
    txCreatedAt: transactions.createdAt,
    lineIds: lines.ids,
    lineTransactionIds: lines.transactionIds,
    lineAccountIds: lines.accountIds,
    lineAmounts: lines.amounts,
  });
  const decode = (result: QueryResult<unknown>): PostedTransaction[] => {
    const rows = result.rows as { id: string; account_id: string; balance_after_satang: bigint }[];
    const after = new Map(rows.map((row) => [row.id, row.balance_after_satang]));
    let line = 0;
    return postings.map((posting, i) => ({
      id: transactions.ids[i]!,
      merchantId: posting.merchantId,
      kind: posting.kind,
      createdAt: posting.at,
      entries: ordered[i]!.map((posted): PostedEntry => {
        const balance = after.get(lines.ids[line++]!);
        if (balance === undefined)
          throw new Error(`ledger posting ${posting.kind} lost its ${posted.account} line`);
        return { account: posted.account, amountSatang: posted.amountSatang, balanceAfterSatang: balance };
      }),
    }));
  };
  return { query, decode };
}

/** `postingsStatement`'s values as arrays, each posting's lines in the ledger's lock order. */
function postingsArrays(
  trx: Trx,
  postings: readonly Posting[],
): (PostingsParams & { ordered: PostingLine[][] }) | undefined {
  const transactions: PostingsParams["transactions"] = {
    ids: [],
    merchantIds: [],
    kinds: [],
    subjectTypes: [],
    subjectIds: [],
    reasons: [],
    createdAt: [],
  };
  const lines: PostingsParams["lines"] = { ids: [], transactionIds: [], accountIds: [], amounts: [] };
  const ordered: PostingLine[][] = [];
  for (const posting of postings) {
    const ids = knownAccountIds(trx, posting.merchantId);
    if (!ids) return undefined;
    assertBalanced(posting);
    const id = posting.id ?? newId();
    transactions.ids.push(id);
    transactions.merchantIds.push(posting.merchantId);
    transactions.kinds.push(posting.kind);
    transactions.subjectTypes.push(posting.subject.type);
    transactions.subjectIds.push(posting.subject.id);
    transactions.reasons.push(posting.reason ?? null);
    transactions.createdAt.push(posting.at.toISOString());
    const sorted = [...posting.lines].sort((a, b) => lockRank(a.account) - lockRank(b.account));
    ordered.push(sorted);
    for (const line of sorted) {
      lines.ids.push(newId());
      lines.transactionIds.push(id);
      lines.accountIds.push(ids[line.account]);
      lines.amounts.push(String(line.amountSatang));
    }
  }
  return { transactions, lines, ordered };
}

interface PostingsParams {
  transactions: {
    ids: string[];
    merchantIds: string[];
    kinds: string[];
    subjectTypes: string[];
    subjectIds: string[];
    reasons: (string | null)[];
    createdAt: string[];
  };
  lines: { ids: string[]; transactionIds: string[]; accountIds: string[]; amounts: string[] };
}

const POSTINGS_KEYS = [
  "txIds",
  "txMerchantIds",
  "txKinds",
  "txSubjectTypes",
  "txSubjectIds",
  "txReasons",
  "txCreatedAt",
  "lineIds",
  "lineTransactionIds",
  "lineAccountIds",
  "lineAmounts",
] as const;
type PostingsColumns = Record<(typeof POSTINGS_KEYS)[number], unknown>;

/** `postingsStatement`'s one text, whatever the number of postings and lines. */
const postingsOfMany = cachedStatement<PostingsColumns, unknown>(POSTINGS_KEYS, (db, p) =>
  db
    .with("posted", (q) =>
      q
        .insertInto("ledger_transactions")
        .columns(["id", "merchant_id", "kind", "subject_type", "subject_id", "reason", "created_at"])
        .expression(
          sql`SELECT * FROM unnest(${p.txIds}::uuid[], ${p.txMerchantIds}::uuid[], ${p.txKinds}::text[],
            ${p.txSubjectTypes}::text[], ${p.txSubjectIds}::uuid[], ${p.txReasons}::text[],
            ${p.txCreatedAt}::timestamptz[])`,
        )
        .returning("id"),
    )
    .insertInto("ledger_entries")
    .columns(["id", "transaction_id", "account_id", "amount_satang"])
    .expression(
      sql`SELECT line.id, posted.id, line.account_id, line.amount_satang
        FROM unnest(${p.lineIds}::uuid[], ${p.lineTransactionIds}::uuid[], ${p.lineAccountIds}::uuid[],
          ${p.lineAmounts}::bigint[]) WITH ORDINALITY AS line (id, transaction_id, account_id, amount_satang, n)
          JOIN posted ON posted.id = line.transaction_id
        ORDER BY line.n`,
    )
    .returning(["id", "account_id", "balance_after_satang"]),
);

interface MovementInput {
  merchantId: string;
  amountSatang: bigint;
  at: Date;
}

function positive(amountSatang: bigint, what: string): bigint {
  if (amountSatang <= 0n) throw new Error(`${what} needs a positive amount, got ${amountSatang}`);
  return amountSatang;
}

/** A payment succeeded: its amount awaits settlement. */
export function postPaymentSucceeded(
  trx: Trx,
  input: MovementInput & { paymentId: string },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postPaymentSucceeded");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "payment_succeeded",
    subject: { type: "payment", id: input.paymentId },
    at: input.at,
    lines: [
      { account: "settlement_pending", amountSatang: x },
      { account: "provider_clearing", amountSatang: -x },
    ],
  });
}

/** A succeeded payment is settled: its amount moves from settlement pending to the wallet. */
export function settle(trx: Trx, input: MovementInput & { paymentId: string }): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "settle");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "settlement",
    subject: { type: "payment", id: input.paymentId },
    at: input.at,
    lines: [
      { account: "wallet_available", amountSatang: x },
      { account: "settlement_pending", amountSatang: -x },
    ],
  });
}

/** The hold of an admitted withdraw: its amount leaves the available wallet and is held. */
export function withdrawHold(input: MovementInput & { withdrawId: string }): Posting {
  const x = positive(input.amountSatang, "postWithdrawHold");
  return {
    merchantId: input.merchantId,
    kind: "withdraw_hold",
    subject: { type: "withdraw", id: input.withdrawId },
    at: input.at,
    lines: [
      { account: "wallet_available", amountSatang: -x },
      { account: "wallet_held", amountSatang: x },
    ],
  };
}

/** A withdraw was admitted: its amount leaves the available wallet and is held. */
export function postWithdrawHold(
  trx: Trx,
  input: MovementInput & { withdrawId: string },
): Promise<PostedTransaction> {
  return post(trx, withdrawHold(input));
}

/** A withdraw ended without paying (failed, canceled, rejected, expired): the hold returns. */
export function postWithdrawRelease(
  trx: Trx,
  input: MovementInput & { withdrawId: string },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postWithdrawRelease");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "withdraw_release",
    subject: { type: "withdraw", id: input.withdrawId },
    at: input.at,
    lines: [
      { account: "wallet_available", amountSatang: x },
      { account: "wallet_held", amountSatang: -x },
    ],
  });
}

/** A withdraw was paid: the hold is consumed and the money has left through the payout rail. */
export function postWithdrawPaid(
  trx: Trx,
  input: MovementInput & { withdrawId: string },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postWithdrawPaid");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "withdraw_paid",
    subject: { type: "withdraw", id: input.withdrawId },
    at: input.at,
    lines: [
      { account: "wallet_held", amountSatang: -x },
      { account: "payout_clearing", amountSatang: x },
    ],
  });
}

/**
 * A failed or expired withdraw, whose hold was released, is confirmed paid late by the
 * provider: the wallet is debited again, below zero if the merchant spent it meanwhile (the
 * entry trigger allows it for this posting and the refund's late success only: migration 0111).
 */
export function postWithdrawLateSuccess(
  trx: Trx,
  input: MovementInput & { withdrawId: string },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postWithdrawLateSuccess");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "withdraw_late_success",
    subject: { type: "withdraw", id: input.withdrawId },
    at: input.at,
    lines: [
      { account: "wallet_available", amountSatang: -x },
      { account: "payout_clearing", amountSatang: x },
    ],
  });
}

/** An operator credits (positive) or debits (negative) the available wallet. */
export function postOperatorAdjustment(
  trx: Trx,
  input: MovementInput & { adjustmentId: string; reason: string },
): Promise<PostedTransaction> {
  const x = input.amountSatang;
  if (x === 0n) throw new Error("postOperatorAdjustment needs a non-zero amount");
  return post(trx, {
    id: input.adjustmentId,
    merchantId: input.merchantId,
    kind: "operator_adjustment",
    subject: { type: "adjustment", id: input.adjustmentId },
    at: input.at,
    reason: input.reason,
    lines: [
      { account: "wallet_available", amountSatang: x },
      { account: "operator_adjustments", amountSatang: -x },
    ],
  });
}

// Refunds (CONTRACT 16, docs/refunds.md). A refund's amount is held at create: the part the
// payment still had awaiting settlement comes out of settlement pending (it never reaches the
// wallet), the rest out of the available wallet. Paid consumes the hold; failed or canceled
// puts each part back where it came from (`returnToSettlementSatang`: the settlement part when
// the payment is still unsettled; once it has settled, that part goes to the wallet instead).

interface RefundMovement {
  merchantId: string;
  refundId: string;
  amountSatang: bigint;
  at: Date;
}

/** Lines of the given accounts, leaving out zero amounts (a posting line is never zero). */
function nonZeroLines(lines: PostingLine[]): PostingLine[] {
  return lines.filter((line) => line.amountSatang !== 0n);
}

/** The hold of a new refund: `settlementPartSatang` from settlement pending, the rest from the wallet. */
export function refundHold(input: RefundMovement & { settlementPartSatang: bigint }): Posting {
  const x = positive(input.amountSatang, "refundHold");
  const fromSettlement = input.settlementPartSatang;
  if (fromSettlement < 0n || fromSettlement > x) throw new Error("refundHold: settlement part out of range");
  return {
    merchantId: input.merchantId,
    kind: "refund_hold",
    subject: { type: "refund", id: input.refundId },
    at: input.at,
    lines: nonZeroLines([
      { account: "wallet_available", amountSatang: -(x - fromSettlement) },
      { account: "wallet_held", amountSatang: x },
      { account: "settlement_pending", amountSatang: -fromSettlement },
    ]),
  };
}

/** A refund ended without paying (failed, canceled): its hold returns where it came from. */
export function postRefundRelease(
  trx: Trx,
  input: RefundMovement & { returnToSettlementSatang: bigint },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postRefundRelease");
  const toSettlement = input.returnToSettlementSatang;
  if (toSettlement < 0n || toSettlement > x)
    throw new Error("postRefundRelease: settlement part out of range");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "refund_release",
    subject: { type: "refund", id: input.refundId },
    at: input.at,
    lines: nonZeroLines([
      { account: "wallet_available", amountSatang: x - toSettlement },
      { account: "wallet_held", amountSatang: -x },
      { account: "settlement_pending", amountSatang: toSettlement },
    ]),
  });
}

/** A refund was paid to the customer: the hold is consumed through the payout rail. */
export function postRefundPaid(trx: Trx, input: RefundMovement): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postRefundPaid");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "refund_paid",
    subject: { type: "refund", id: input.refundId },
    at: input.at,
    lines: [
      { account: "wallet_held", amountSatang: -x },
      { account: "payout_clearing", amountSatang: x },
    ],
  });
}

/**
 * A failed refund, whose hold was released, is reported paid late: it is taken again as at
 * admission, `settlementPartSatang` from settlement pending (the payment is still unsettled) and
 * the rest from the wallet, below zero if the merchant spent it meanwhile (the one posting
 * besides the withdraw's late success that may take the available wallet below zero:
 * migration 0111).
 */
export function postRefundLateSuccess(
  trx: Trx,
  input: RefundMovement & { settlementPartSatang: bigint },
): Promise<PostedTransaction> {
  const x = positive(input.amountSatang, "postRefundLateSuccess");
  const fromSettlement = input.settlementPartSatang;
  if (fromSettlement < 0n || fromSettlement > x)
    throw new Error("postRefundLateSuccess: settlement part out of range");
  return post(trx, {
    merchantId: input.merchantId,
    kind: "refund_late_success",
    subject: { type: "refund", id: input.refundId },
    at: input.at,
    lines: nonZeroLines([
      { account: "wallet_available", amountSatang: -(x - fromSettlement) },
      { account: "settlement_pending", amountSatang: -fromSettlement },
      { account: "payout_clearing", amountSatang: x },
    ]),
  });
}
