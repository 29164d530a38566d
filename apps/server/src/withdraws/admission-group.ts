/**
 * Grouped withdraw admission: creates of different wallets that arrive together are admitted in
 * one transaction, as payment creates are grouped (db/statement-group.ts). A withdraw alone is
 * six statements in two round trips and a commit (withdraws/admission.ts); most of PostgreSQL's
 * and the driver's cost of those is per statement and per commit, not per row, so a group of
 * them costs about what one does (docs/PERFORMANCE.md, "R4").
 *
 * A group is one transaction in two round trips:
 *
 * 1. BEGIN (with the group's plan mode and lock bound), the wallet locks of every merchant of the
 *    group in one statement, in the order of their ids (ledger/accounts.ts
 *    `walletsLockStatement`), and the admission read of every create in one statement after it
 *    (withdraws/group-store.ts), so each create sees, under its wallet's lock, what it would see
 *    alone.
 * 2. The checks of each create in the order of CONTRACT 7 on what was read (withdraws/admission.ts
 *    `decideInGroup`), then every admitted withdraw in one INSERT with its destination and its
 *    signed request's replay record, every hold in one posting statement, and the COMMIT.
 *
 * The rules hold as they do alone:
 *
 * - A group holds at most one create of a wallet (the statement group's `keyOf`): a second create
 *   of the wallet waits for a later group, which locks the wallet after this one committed and
 *   so sees its withdraw and its hold. Between processes the wallet's row lock orders them, as
 *   it orders admissions alone.
 * - A refused create (409, 403, 400) writes nothing: its answer is the one it would get alone,
 *   and its replay record is written as a refused write's is (http/auth.ts `settleReplay`).
 * - A create the group did not read enough for (a taken idempotency key, a merchant whose clock
 *   moved, limits it did not sum, a wallet without accounts yet) is admitted alone after the
 *   group ends.
 * - A group that fails for one create's data (a replay record written before, a taken key, a
 *   deadlock, a wallet held past the group's lock bound) is rolled back whole, and each of its
 *   creates is admitted alone, answering as it would have (db/statement-group.ts).
 * - The group waits for a wallet held elsewhere at most GROUP_LOCK_WAIT_MAX_MS (or the store's
 *   own bound when shorter), so that one held wallet does not hold the others' creates; past it
 *   each create waits alone, within the bound of its own turn (db/key-queue.ts).
 */
import { boundsOf } from "../db/bounds.ts";
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import type { Turn } from "../db/key-queue.ts";
import { runTogether, runTogetherAndCommit, transactionSettings } from "../db/pg-driver.ts";
import { poolQueueBound, StatementGroup } from "../db/statement-group.ts";
import type { WithdrawRow } from "../db/types.ts";
import { walletsLockStatement } from "../ledger/accounts.ts";
import { postingsStatement, withdrawHold } from "../ledger/postings.ts";
import { businessNow } from "../lib/clock.ts";
import type { AppError } from "../lib/errors.ts";
import { newId } from "../lib/ids.ts";
import {
  ADMISSION_PLAN_SETTINGS,
  type AdmissionRequest,
  admissionQuery,
  admit,
  type CreateResult,
  decideInGroup,
  newWithdrawRow,
  type WithdrawContext,
} from "./admission.ts";
import {
  type GroupWithdraw,
  groupAdmissionReadStatement,
  groupWithdrawInsertStatement,
} from "./group-store.ts";
import { WITHDRAW_TRANSITIONS } from "./transitions.ts";
import { withdrawView } from "./view.ts";

/** The most creates in one group, and groups in flight at once, per store. */
export const WITHDRAW_GROUP_ITEMS_MAX = 32;
export const WITHDRAW_GROUPS_IN_FLIGHT_MAX = 4;
/** The longest a group waits for a wallet another transaction holds (then each waits alone). */
export const WITHDRAW_GROUP_LOCK_WAIT_MAX_MS = 100;

interface Admission {
  ctx: WithdrawContext;
  request: AdmissionRequest;
  turn: Turn | undefined;
}

/** How one create of a group ended: its result, or the error it answers with. */
type Settled = { result: CreateResult } | { error: unknown };

const groups = new WeakMap<Db, StatementGroup<Admission, Settled>>();

/**
 * Admits a create with the other creates of this process that arrive at the same time (one
 * transaction for the group), or alone in the caller's transaction when `ctx.db` is one.
 */
export async function admitGrouped(
  ctx: WithdrawContext,
  request: AdmissionRequest,
  turn: Turn | undefined,
): Promise<CreateResult> {
  if (ctx.db.isTransaction) return admit(ctx, request, turn);
  let group = groups.get(ctx.db);
  if (!group) {
    group = new StatementGroup<Admission, Settled>({
      runGroup: (admissions) => admitGroup(ctx.db, admissions),
      runOne: settle,
      keyOf: (admission) => admission.request.merchantId,
      maxItems: WITHDRAW_GROUP_ITEMS_MAX,
      maxInFlight: WITHDRAW_GROUPS_IN_FLIGHT_MAX,
      ...poolQueueBound(ctx.db),
    });
    groups.set(ctx.db, group);
  }
  const settled = await group.submit({ ctx, request, turn });
  if ("error" in settled) throw settled.error;
  return settled.result;
}

/** One create admitted alone (withdraws/admission.ts `admit`), settled. */
async function settle({ ctx, request, turn }: Admission): Promise<Settled> {
  try {
    return { result: await admit(ctx, request, turn) };
  } catch (error) {
    return { error };
  }
}

/** What the group's transaction did with one create. */
type GroupOutcome = { row: WithdrawRow } | { refused: AppError } | "alone";

/** The group's transaction, then the creates it left to admissions of their own. */
async function admitGroup(db: Db, admissions: readonly Admission[]): Promise<Settled[]> {
  const outcomes = await groupTransaction(db, admissions);
  return Promise.all(
    outcomes.map((outcome, i): Settled | Promise<Settled> => {
      const admission = admissions[i]!;
      if (outcome === "alone") return settle(admission);
      if ("refused" in outcome) return { error: outcome.refused };
      // Committed with the group: the create's replay record is written.
      admission.request.replay?.markWritten();
      return { result: { outcome: "created", withdraw: withdrawView(outcome.row) } };
    }),
  );
}

function groupTransaction(db: Db, admissions: readonly Admission[]): Promise<GroupOutcome[]> {
  const lockWaitMs = Math.min(boundsOf(db).lockTimeoutMs, WITHDRAW_GROUP_LOCK_WAIT_MAX_MS);
  return withTransaction(db, async (trx) => {
    // One business time per create for its read and its checks, as alone.
    const nows = admissions.map(({ ctx, request }) => businessNow(ctx.clock, request.assumed.clockOffsetMs));
    const [, , wallets, facts] = await runTogether(
      trx,
      transactionSettings(trx, ADMISSION_PLAN_SETTINGS, { onlyInBegin: true }),
      transactionSettings(trx, { lock_timeout: `${Math.trunc(lockWaitMs)}ms` }),
      walletsLockStatement(
        trx,
        admissions.map(({ request }) => request.merchantId),
      ),
      groupAdmissionReadStatement(
        trx,
        admissions.map(({ request }, i) => admissionQuery(request, nows[i]!)),
      ),
    );
    const decisions = admissions.map(({ request }, i) =>
      decideInGroup(request, facts[i]!, nows[i]!, wallets.get(request.merchantId)?.availableSatang),
    );
    const admitted: GroupWithdraw[] = [];
    for (const [i, decision] of decisions.entries()) {
      if (!("admit" in decision)) continue;
      const { request } = admissions[i]!;
      const { transition, row } = newWithdrawRow(request, decision.admit.merchant, decision.admit.now);
      admitted.push({
        row: { ...row, status: WITHDRAW_TRANSITIONS[transition].to },
        destinationIdIfNew: newId(),
        replay: request.replay?.use,
      });
    }
    const rows = admitted.length > 0 ? await insertWithHolds(trx, admitted) : new Map<string, WithdrawRow>();
    let next = 0;
    return decisions.map((decision): GroupOutcome => {
      if ("alone" in decision) return "alone";
      if ("refused" in decision) return { refused: decision.refused };
      const id = admitted[next++]!.row.id;
      const row = rows.get(id);
      if (!row) throw new Error(`grouped withdraw ${id} was not inserted`);
      return { row };
    });
  });
}

/** Every admitted withdraw, every hold and the COMMIT, in one round trip: the rows by id. */
async function insertWithHolds(
  trx: Trx,
  admitted: readonly GroupWithdraw[],
): Promise<Map<string, WithdrawRow>> {
  const holds = postingsStatement(
    trx,
    admitted.map(({ row }) =>
      withdrawHold({
        merchantId: row.merchant_id,
        withdrawId: row.id,
        amountSatang: row.amount_satang,
        at: row.created_at,
      }),
    ),
  );
  // The group's lock read each locked merchant's account ids; a wallet without all of its
  // accounts was left to an admission of its own (`decideInGroup`).
  if (!holds) throw new Error("a grouped admission's wallet lock did not read its account ids");
  const [rows] = await runTogetherAndCommit(trx, groupWithdrawInsertStatement(trx, admitted), holds);
  return rows;
}
