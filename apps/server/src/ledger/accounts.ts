/**
 * Ledger accounts (CONTRACT 8). Every merchant has one account of each kind:
 *
 * - `settlement_pending`: succeeded payments not yet settled to the wallet;
 * - `wallet_available`: what the merchant can withdraw now (wallet minus holds);
 * - `wallet_held`: amounts held for withdraws that are not final yet;
 * - `provider_clearing`, `payout_clearing`, `operator_adjustments`: the counterparts of money
 *   coming in from the provider, going out in payouts, and operator corrections.
 *
 * The first three are the merchant's own money and never go negative (a CHECK in 0003). The
 * counterpart accounts are kept per merchant as well, not as one system-wide row: a single
 * shared row would be locked by every posting of every merchant and serialize them all.
 *
 * The merchant's `wallet_available` row is also the wallet lock: whoever changes what can be
 * withdrawn (withdraw admission, operator adjustments) first locks that row with
 * `SELECT ... FOR UPDATE`, a database lock that holds across processes.
 */
import { type QueryCreator, sql } from "kysely";
import { cachedStatement } from "../db/compiled.ts";
import type { Db, Trx } from "../db/handles.ts";
import { runStatement, type Statement } from "../db/pg-driver.ts";
import { replayRecordRow, type SignatureUse } from "../db/replay-records.ts";
import { type Database, LEDGER_ACCOUNT_KINDS, type LedgerAccountKind } from "../db/types.ts";

/** The kinds that hold the merchant's own money, which may never be negative. */
const MERCHANT_FUNDS_KINDS: readonly LedgerAccountKind[] = [
  "settlement_pending",
  "wallet_available",
  "wallet_held",
];

/**
 * The order in which a transaction locks a merchant's accounts. `wallet_available` comes first
 * because withdraw admission locks it before anything else: when every posting also reaches
 * it first, two transactions can never hold one account each while waiting for the other's.
 */
const LOCK_ORDER: Record<LedgerAccountKind, number> = {
  wallet_available: 0,
  wallet_held: 1,
  settlement_pending: 2,
  provider_clearing: 3,
  payout_clearing: 4,
  operator_adjustments: 5,
};

export function lockRank(kind: LedgerAccountKind): number {
  return LOCK_ORDER[kind];
}

/**
 * Creates the merchant's accounts that do not exist yet. Idempotent and safe under
 * concurrency: `ON CONFLICT DO NOTHING` on the (merchant, kind) key, inserted in one fixed
 * order so two callers cannot deadlock on each other's half-inserted rows.
 */
export async function ensureMerchantAccounts(db: Db, merchantId: string): Promise<void> {
  const kinds = [...LEDGER_ACCOUNT_KINDS].sort((a, b) => lockRank(a) - lockRank(b));
  const rows = kinds.map((kind) => sql`(gen_random_uuid(), ${merchantId}::uuid, ${kind})`);
  await sql`insert into ledger_accounts (id, merchant_id, kind)
    values ${sql.join(rows)}
    on conflict (merchant_id, kind) do nothing`.execute(db);
}

type AccountIds = Record<LedgerAccountKind, string>;

/**
 * Account ids a transaction has read already, per merchant. An account's id never changes and
 * an account is never deleted, so a transaction that read them (the wallet lock reads them in
 * its statement) need not read them again for its postings.
 */
const knownInTransaction = new WeakMap<object, Map<string, AccountIds>>();

function remember(trx: Trx, merchantId: string, ids: Partial<AccountIds> | null): void {
  if (!ids || LEDGER_ACCOUNT_KINDS.some((kind) => ids[kind] === undefined)) return;
  let known = knownInTransaction.get(trx);
  if (!known) {
    known = new Map();
    knownInTransaction.set(trx, known);
  }
  known.set(merchantId, ids as AccountIds);
}

/** The ids of a merchant's accounts when the transaction has read them already. */
export function knownAccountIds(trx: Trx, merchantId: string): AccountIds | undefined {
  return knownInTransaction.get(trx)?.get(merchantId);
}

/** The ids of a merchant's accounts by kind, creating missing ones. */
export async function accountIds(db: Db, merchantId: string): Promise<AccountIds> {
  const known = knownInTransaction.get(db)?.get(merchantId);
  if (known) return known;
  const read = () =>
    db.selectFrom("ledger_accounts").select(["id", "kind"]).where("merchant_id", "=", merchantId).execute();
  let rows = await read();
  if (rows.length < LEDGER_ACCOUNT_KINDS.length) {
    await ensureMerchantAccounts(db, merchantId);
    rows = await read();
  }
  return Object.fromEntries(rows.map((row) => [row.kind, row.id])) as AccountIds;
}

export interface WalletLock {
  accountId: string;
  /** The available wallet at the moment the lock was taken; nobody else can change it now. */
  availableSatang: bigint;
}

interface LockRow {
  id: string;
  balance_satang: bigint;
  account_ids: Partial<AccountIds> | null;
}

type LockParams = { merchantId: string } & Partial<Record<`replay_${keyof SignatureUse}`, unknown>>;

const REPLAY_KEYS = ["replay_apiKey", "replay_timestampMs", "replay_signature", "replay_expiresAt"] as const;

/** The lock's SELECT ... FOR UPDATE, with the replay record's INSERT in a CTE when `creator` has it. */
function lockQuery(creator: QueryCreator<Database>, merchantId: string) {
  return creator
    .selectFrom("ledger_accounts")
    .select(["id", "balance_satang"])
    .select(
      sql<Partial<AccountIds> | null>`(SELECT json_object_agg(kind, id) FROM ledger_accounts
        WHERE merchant_id = ${merchantId})`.as("account_ids"),
    )
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", "wallet_available")
    .forUpdate();
}

/** The wallet lock's statement, compiled once per shape (with and without a replay record). */
const lockStatements = {
  plain: cachedStatement<LockParams, LockRow>(["merchantId"], (db, params) =>
    lockQuery(db, params.merchantId as string),
  ),
  withReplayRecord: cachedStatement<LockParams, LockRow>(["merchantId", ...REPLAY_KEYS], (db, params) => {
    const use = {
      apiKey: params.replay_apiKey,
      timestampMs: params.replay_timestampMs,
      signature: params.replay_signature,
      expiresAt: params.replay_expiresAt,
    } as SignatureUse;
    // The CTE's name is not a table anyone selects from: the query is typed as on `db` itself.
    const creator = db.with("replay_record", (q) =>
      q.insertInto("signature_uses").values(replayRecordRow(use)),
    ) as unknown as QueryCreator<Database>;
    return lockQuery(creator, params.merchantId as string);
  }),
};

/**
 * The statement that takes the merchant's wallet lock for the rest of the transaction: a row
 * lock on its `wallet_available` account. Concurrent admissions of one merchant, in this
 * process or any other, wait at it one after another; different merchants do not wait for each
 * other. The same statement reads the ids of the merchant's other accounts (not locking them),
 * which the transaction's postings then use (`accountIds`), and writes `replayRecord`, a signed
 * request's replay record (db/replay-records.ts), when given. Undefined when the merchant has
 * no accounts yet (the record, when given, is written all the same: a data-modifying CTE runs
 * whatever the query finds); `lockWallet` creates them.
 */
export function walletLockStatement(
  trx: Trx,
  merchantId: string,
  replayRecord?: SignatureUse,
): Statement<WalletLock | undefined> {
  const query = replayRecord
    ? lockStatements.withReplayRecord.compile(trx, {
        merchantId,
        replay_apiKey: replayRecord.apiKey,
        replay_timestampMs: replayRecord.timestampMs,
        replay_signature: replayRecord.signature,
        replay_expiresAt: replayRecord.expiresAt,
      })
    : lockStatements.plain.compile(trx, { merchantId });
  return {
    query,
    decode: (result) => {
      const row = result.rows[0] as LockRow | undefined;
      if (!row) return undefined;
      remember(trx, merchantId, row.account_ids);
      return { accountId: row.id, availableSatang: row.balance_satang };
    },
  };
}

/** Takes the merchant's wallet lock (`walletLockStatement`), creating its accounts if needed. */
export async function lockWallet(
  trx: Trx,
  merchantId: string,
  replayRecord?: SignatureUse,
): Promise<WalletLock> {
  const locked = await runStatement(trx, walletLockStatement(trx, merchantId, replayRecord));
  return locked ?? lockNewWallet(trx, merchantId);
}

/** The wallet lock of a merchant whose accounts did not exist: they are created first. */
export async function lockNewWallet(trx: Trx, merchantId: string): Promise<WalletLock> {
  await ensureMerchantAccounts(trx, merchantId);
  const locked = await runStatement(trx, walletLockStatement(trx, merchantId));
  if (!locked) throw new Error(`wallet account of merchant ${merchantId} could not be created`);
  return locked;
}

interface MerchantBalances {
  walletAvailableSatang: bigint;
  walletHeldSatang: bigint;
  settlementPendingSatang: bigint;
}

/** The merchant's balances as committed; a merchant without accounts yet has zero everywhere. */
export async function merchantBalances(db: Db, merchantId: string): Promise<MerchantBalances> {
  const rows = await db
    .selectFrom("ledger_accounts")
    .select(["kind", "balance_satang"])
    .where("merchant_id", "=", merchantId)
    .where("kind", "in", MERCHANT_FUNDS_KINDS)
    .execute();
  const of = (kind: LedgerAccountKind) => rows.find((row) => row.kind === kind)?.balance_satang ?? 0n;
  return {
    walletAvailableSatang: of("wallet_available"),
    walletHeldSatang: of("wallet_held"),
    settlementPendingSatang: of("settlement_pending"),
  };
}

/** One wallet of a group's lock (`walletsLockStatement`). */
export interface WalletOfGroup extends WalletLock {
  merchantId: string;
}

const walletsLock = cachedStatement<{ merchantIds: string[] }, LockRow & { merchant_id: string }>(
  ["merchantIds"],
  (db, params) =>
    db
      .selectFrom("ledger_accounts as wallet")
      .select(["wallet.id", "wallet.merchant_id", "wallet.balance_satang"])
      .select(
        sql<Partial<AccountIds> | null>`(SELECT json_object_agg(kind, id) FROM ledger_accounts
          WHERE merchant_id = wallet.merchant_id)`.as("account_ids"),
      )
      .where(sql<boolean>`wallet.merchant_id = ANY(${params.merchantIds}::uuid[])`)
      .where("wallet.kind", "=", "wallet_available")
      .orderBy("wallet.merchant_id")
      .forUpdate(),
);

/**
 * The wallet locks of several merchants in one statement (grouped withdraw admission,
 * withdraws/admission-group.ts), taken in the order of the merchants' ids: two groups that share
 * merchants lock them in the same order, so they wait for each other instead of deadlocking
 * (the rows are locked as the sorted rows come, after the sort). Each locked merchant's other
 * account ids are read with it, as `walletLockStatement` reads them. A merchant without all of
 * its accounts yet is missing from the answer (its wallet row, if any, is locked all the same).
 */
export function walletsLockStatement(
  trx: Trx,
  merchantIds: readonly string[],
): Statement<Map<string, WalletOfGroup>> {
  return {
    query: walletsLock.compile(trx, { merchantIds: [...merchantIds] }),
    decode: (result) => {
      const locked = new Map<string, WalletOfGroup>();
      for (const row of result.rows as (LockRow & { merchant_id: string })[]) {
        remember(trx, row.merchant_id, row.account_ids);
        if (!knownAccountIds(trx, row.merchant_id)) continue;
        locked.set(row.merchant_id, {
          merchantId: row.merchant_id,
          accountId: row.id,
          availableSatang: row.balance_satang,
        });
      }
      return locked;
    },
  };
}
