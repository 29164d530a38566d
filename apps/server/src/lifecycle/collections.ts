/**
 * Live collection through any connector (CONTRACT 15, docs/providers/README.md): the notices a
 * connector receives, and the reconciler that asks a connector about payments whose notice never
 * came. The lifecycle acts on the port's verdicts (providers/port.ts) the same way for every
 * connector.
 *
 * Nothing is credited on a notice's word. A notice is recorded (one `provider_confirmations` row
 * per connector and transaction id, however often it is sent), acknowledged, and checked with
 * the connector's `inquire`. Only a `verified` verdict (the provider shows the transaction paid,
 * for the payment's reference and amount, in THB) succeeds the payment, through the same report
 * path as every provider (payments/reports.ts: succeed, or the late confirmation of an expired
 * payment within 72 hours), so the ledger, events and webhooks are those of the sandbox.
 *
 * One transaction id credits once: it is the callback id of a `provider_callbacks` row (provider
 * = the connector's name), whose primary key refuses a second one in any process. Whatever the
 * provider shows that cannot be credited (an unknown reference, another amount, a second payment
 * under one reference, a payment canceled or past the window) and every notice the provider does
 * not confirm is written to `provider_anomalies` for the operator, and credits nothing. A
 * provider that could not be asked (`unavailable`) is asked again by the reconciler.
 */
import { type Db, withTransaction } from "../db/handles.ts";
import type { PaymentRow } from "../db/types.ts";
import { JOB_BATCH_SIZE, LATE_CONFIRMATION_WINDOW_MS } from "../lib/limits.ts";
import { formatThb } from "../lib/money.ts";
import { type Refusal, unknownSubject } from "../lib/provider-reports.ts";
import { applyPaymentReport } from "../payments/reports.ts";
import { findPaymentByCollectionReference } from "../payments/store.ts";
import type {
  CollectionPort,
  CollectionVerdict,
  Connector,
  NoticeClaim,
  ShownBy,
  ShownPayment,
} from "../providers/port.ts";
import type { Connectors } from "../providers/registry.ts";
import { recordAnomaly } from "./anomalies.ts";
import {
  type ConfirmationRow,
  claimConfirmationRecheck,
  claimDueCollections,
  decideConfirmation,
  dueConfirmationRechecks,
  noteCollectionCheck,
  recordConfirmation,
  wasCredited,
} from "./collections-store.ts";
import type { LifecycleContext } from "./context.ts";
import { closeAnomalies, insertCallbackIfAbsent, setCallbackResult } from "./store.ts";

/** How long a confirmation being checked is left to its checker before the reconciler retries. */
export const CONFIRMATION_CHECK_LEASE_MS = 120_000;
/**
 * How long a notice the provider's inquiry does not show yet is checked again (every reconcile
 * interval) before it is recorded as unconfirmed: a genuine payment can reach the inquiry after
 * its notice.
 */
export const UNSHOWN_CONFIRMATION_RECHECK_MS = 10 * 60_000;
/** An open payment's checks back off (interval, doubled each time) to at most this. */
const OPEN_PAYMENT_CHECK_INTERVAL_MAX_MS = 15 * 60_000;
/** Expired payments (the late-confirmation window) are asked about at least this far apart... */
const EXPIRED_PAYMENT_CHECK_INTERVAL_MS = 15 * 60_000;
/** ...backing off to at most this (the daily sweep asks about every reference again). */
const EXPIRED_PAYMENT_CHECK_INTERVAL_MAX_MS = 60 * 60_000;
/**
 * A check asks about the time since the previous answered check, less this: a payment made just
 * before a provider's midnight can reach its inquiry just after it.
 */
const INQUIRY_VISIBILITY_GRACE_MS = 60 * 60_000;
/** Anomalies a credit of the same transaction makes untrue. */
const CLOSED_BY_CREDIT = ["unconfirmed_confirmation", "altered_confirmation"] as const;

/** A connector that collects. */
export type Collector = Connector & { collection: CollectionPort };

/** What the collections flow runs with: the lifecycle's handles and the deployment's connectors. */
export type CollectionsContext = LifecycleContext & {
  connectors: Connectors;
  /** Real time: when a provider is asked, and how long it throttles. */
  wallClock: { now(): Date };
  /** How often a payment's connector is first asked about it (registry.ts: reconcileIntervalOf). */
  reconcileIntervalMs: number;
};

/** Every connector of the deployment that collects, in order. */
export function collectorsOf(connectors: Connectors): Collector[] {
  return connectors.all.filter((c): c is Collector => c.collection !== undefined);
}

const reconcileIntervalMs = (ctx: CollectionsContext) => ctx.reconcileIntervalMs;

/** The connector's name as the operator's messages print it: upper case. */
const label = (connector: Connector) => connector.name.toUpperCase();

/** What crediting one transaction did: applied, duplicate, or why it was refused. */
interface CreditResult {
  result: string;
  paymentId: string | null;
}

function amountRefusal(who: string, row: PaymentRow, paid: bigint): Refusal {
  return {
    reason: "amount_mismatch",
    message: `${who} shows ${formatThb(paid)} THB paid under the payment's reference; the payment is for ${formatThb(row.amount_satang)} THB. Nothing was credited`,
    anomaly: true,
    merchantId: row.merchant_id,
    subjectStatus: row.status,
    amountSatang: paid,
  };
}

/** A refusal of money the provider shows as paid: always one for the operator (a refund, a late credit). */
function paidButRefused(who: string, refusal: Refusal, paid: bigint): Refusal {
  if (refusal.reason !== "already_succeeded") return { ...refusal, anomaly: true, amountSatang: paid };
  return {
    ...refusal,
    reason: "second_payment",
    message: `A second ${who} transaction was paid under the reference of a payment that has already succeeded. Nothing was credited`,
    anomaly: true,
    amountSatang: paid,
  };
}

/**
 * Credits one transaction the provider showed (never a notice's claim): the payment with its
 * reference succeeds when the amount is the payment's. Once per (connector, transaction id).
 */
export async function creditTransaction(
  ctx: CollectionsContext,
  connector: Collector,
  paid: ShownPayment,
  seenBy: ShownBy,
): Promise<CreditResult> {
  const provider = connector.name;
  const who = label(connector);
  const row = await findPaymentByCollectionReference(ctx.db, paid.reference);
  const paymentId = row?.id ?? null;
  const at = ctx.clock.now();
  const keep = async (trx: Db, result: string) =>
    connector.collection.keepShown?.(trx, {
      payment: paid,
      paymentId,
      result,
      seenBy,
      at,
      realNow: ctx.wallClock.now(),
    });
  return withTransaction(ctx.db, async (trx): Promise<CreditResult> => {
    const fresh = await insertCallbackIfAbsent(trx, {
      provider,
      callback_id: paid.transactionId,
      subject_type: "payment",
      subject_id: paymentId ?? paid.reference,
      outcome: "succeeded",
      result: "applied",
      reason: null,
      received_at: ctx.clock.now(),
    });
    if (!fresh) return { result: "duplicate", paymentId };
    let refusal: Refusal;
    if (!row || (row.provider !== null && row.provider !== provider)) {
      refusal = {
        ...unknownSubject(
          "unknown_reference",
          `${who} shows a payment under reference ${paid.reference}, which no payment ${who} took has`,
        ),
        amountSatang: paid.amountSatang,
      };
    } else if (row.amount_satang !== paid.amountSatang) {
      refusal = amountRefusal(who, row, paid.amountSatang);
    } else {
      const applied = await applyPaymentReport(trx, ctx, row.id, "succeeded");
      if (applied.kind === "applied") {
        await keep(trx, "applied");
        // A notice of this transaction recorded as unconfirmed (the inquiry did not show it yet)
        // or altered is no longer money the provider holds uncredited.
        await closeAnomalies(trx, {
          provider,
          callbackId: paid.transactionId,
          reasons: CLOSED_BY_CREDIT,
          resolution: `credited: ${who}'s transaction ${paid.transactionId} was credited to payment ${row.id}`,
          at,
        });
        return { result: "applied", paymentId };
      }
      refusal = paidButRefused(who, applied.refusal, paid.amountSatang);
    }
    await keep(trx, refusal.reason);
    await setCallbackResult(trx, provider, paid.transactionId, "refused", refusal.reason);
    await recordAnomaly(trx, ctx, {
      provider,
      subjectType: "payment",
      subjectId: paymentId ?? paid.reference,
      report: "payment.succeeded",
      callbackId: paid.transactionId,
      refusal,
    });
    return { result: refusal.reason, paymentId };
  });
}

/** The claim a stored notice is checked with again. */
function claimOf(row: ConfirmationRow): NoticeClaim {
  return {
    transactionId: row.transaction_id,
    reference: row.reference,
    amountSatang: row.claimed_amount_satang,
    paidAt: row.paid_at,
    payee: row.claimed_payee,
  };
}

/** A notice the provider does not confirm: recorded for the operator with what it claimed. */
async function unconfirmed(
  ctx: CollectionsContext,
  connector: Collector,
  claim: NoticeClaim,
  decision: { status: "not_found" | "mismatch"; reason: string; message: string },
): Promise<void> {
  const provider = connector.name;
  const row = claim.reference ? await findPaymentByCollectionReference(ctx.db, claim.reference) : undefined;
  const at = ctx.clock.now();
  await withTransaction(ctx.db, async (trx) => {
    // The transaction was credited meanwhile (the reconciler found it): nothing is uncredited.
    const credited = await wasCredited(trx, provider, claim.transactionId);
    if (credited) {
      await decideConfirmation(trx, provider, claim.transactionId, {
        status: "verified",
        paymentId: row?.id ?? null,
        result: "duplicate",
        detail: null,
        nextCheckAt: null,
        at,
      });
      return;
    }
    await recordAnomaly(trx, ctx, {
      provider,
      subjectType: "payment",
      subjectId: row?.id ?? claim.reference ?? claim.transactionId,
      report: "payment.succeeded",
      callbackId: claim.transactionId,
      refusal: {
        reason: decision.reason,
        message: decision.message,
        anomaly: true,
        merchantId: row?.merchant_id ?? null,
        subjectStatus: row?.status ?? null,
        amountSatang: claim.amountSatang,
      },
    });
    await decideConfirmation(trx, provider, claim.transactionId, {
      status: decision.status,
      paymentId: row?.id ?? null,
      result: decision.reason,
      detail: decision.message,
      nextCheckAt: null,
      at,
    });
  });
}

/**
 * The provider shows the payment's transaction as never to be paid. `failed`: the payment moves
 * to payment_failed (with its event), once per transaction, when it is still open and belongs
 * to this connector. `expired`: nothing moves; the payment expires at its own `expiresAt`.
 */
async function declined(
  ctx: CollectionsContext,
  connector: Collector,
  verdict: Extract<CollectionVerdict, { status: "declined" }>,
): Promise<void> {
  const provider = connector.name;
  const { claim, payment: shown } = verdict;
  const row = await findPaymentByCollectionReference(ctx.db, shown.reference);
  const ours = row !== undefined && row.provider === provider && row.amount_satang === shown.amountSatang;
  const at = ctx.clock.now();
  await withTransaction(ctx.db, async (trx) => {
    let result = verdict.outcome === "failed" ? "not_ours" : "expired_unpaid";
    if (ours && verdict.outcome === "failed") {
      const fresh = await insertCallbackIfAbsent(trx, {
        provider,
        callback_id: claim.transactionId,
        subject_type: "payment",
        subject_id: row.id,
        outcome: "failed",
        result: "applied",
        reason: null,
        received_at: at,
      });
      if (!fresh) result = "duplicate";
      else {
        const applied = await applyPaymentReport(trx, ctx, row.id, "failed");
        result = applied.kind === "applied" ? "payment_failed" : applied.refusal.reason;
        if (applied.kind !== "applied") {
          await setCallbackResult(trx, provider, claim.transactionId, "refused", applied.refusal.reason);
        }
      }
    }
    await decideConfirmation(trx, provider, claim.transactionId, {
      status: "verified",
      paymentId: row?.id ?? null,
      result,
      detail: verdict.reason,
      nextCheckAt: null,
      at,
    });
  });
}

/** Acts on the connector's verdict about one notice and records the decision. */
export async function actOnVerdict(
  ctx: CollectionsContext,
  connector: Collector,
  verdict: Exclude<CollectionVerdict, { status: "malformed" }>,
  receivedAt: Date,
): Promise<void> {
  const at = ctx.clock.now();
  const provider = connector.name;
  const who = label(connector);
  const { claim } = verdict;
  switch (verdict.status) {
    case "verified": {
      const credit = await creditTransaction(ctx, connector, verdict.payment, "confirmation");
      await decideConfirmation(ctx.db, provider, claim.transactionId, {
        status: "verified",
        paymentId: credit.paymentId,
        result: credit.result,
        detail: null,
        nextCheckAt: null,
        at,
      });
      return;
    }
    case "not_found":
      if (verdict.retry && at.getTime() - receivedAt.getTime() < UNSHOWN_CONFIRMATION_RECHECK_MS) {
        // Not shown yet: asked again each interval for a bounded time before it is an anomaly.
        await decideConfirmation(ctx.db, provider, claim.transactionId, {
          status: "received",
          paymentId: null,
          result: null,
          detail: `${who}'s inquiry does not show it yet: ${verdict.reason}`,
          nextCheckAt: new Date(at.getTime() + reconcileIntervalMs(ctx)),
          at,
        });
        return;
      }
      return unconfirmed(ctx, connector, claim, {
        status: "not_found",
        reason: "unconfirmed_confirmation",
        message: `Payment confirmation not confirmed by ${who}: ${verdict.reason}. Nothing was credited`,
      });
    case "declined":
      return declined(ctx, connector, verdict);
    case "mismatch":
      // The genuine transaction is credited by the reconciler, on the provider's own word.
      return unconfirmed(ctx, connector, claim, {
        status: "mismatch",
        reason: "altered_confirmation",
        message: `Payment confirmation differs from ${who}'s transaction in ${verdict.fields.join(", ")}. Nothing was credited on it`,
      });
    default:
      await decideConfirmation(ctx.db, provider, claim.transactionId, {
        status: "unavailable",
        paymentId: null,
        result: null,
        detail: verdict.error,
        nextCheckAt: new Date(at.getTime() + reconcileIntervalMs(ctx)),
        at,
      });
  }
}

/** Checks a recorded notice with the connector's inquiry and acts on the verdict. */
async function checkConfirmation(
  ctx: CollectionsContext,
  connector: Collector,
  row: ConfirmationRow,
): Promise<void> {
  const verdict = await connector.collection.inquire(claimOf(row));
  if (verdict.status === "malformed") {
    throw new Error(`a stored confirmation reads as malformed: ${verdict.error}`);
  }
  await actOnVerdict(ctx, connector, verdict, row.received_at);
}

/**
 * A claim a connector read from a notice: recorded, and checked now unless it was checked before
 * (a re-send is checked again only when the provider could not be asked before).
 */
export async function receiveClaim(
  ctx: CollectionsContext,
  connector: Collector,
  claim: NoticeClaim,
): Promise<void> {
  const at = ctx.clock.now();
  const lease = new Date(at.getTime() + CONFIRMATION_CHECK_LEASE_MS);
  const recorded = await recordConfirmation(ctx.db, {
    provider: connector.name,
    transactionId: claim.transactionId,
    reference: claim.reference,
    claimedAmountSatang: claim.amountSatang,
    claimedPayee: claim.payee ?? null,
    paidAt: claim.paidAt,
    at,
    recheckAt: lease,
  });
  const row = recorded.fresh
    ? recorded.row
    : await claimConfirmationRecheck(ctx.db, connector.name, claim.transactionId, at, lease);
  if (!row) return;
  const verdict = await connector.collection.inquire(recorded.fresh ? claim : claimOf(row));
  if (verdict.status !== "malformed") await actOnVerdict(ctx, connector, verdict, row.received_at);
}

/** Re-checks undecided notices whose time has come. */
async function recheckConfirmations(ctx: CollectionsContext, collectors: Collector[]): Promise<number> {
  const now = ctx.clock.now();
  let handled = 0;
  const byName = new Map(collectors.map((c) => [c.name, c]));
  const due = await dueConfirmationRechecks(ctx.db, [...byName.keys()], now, JOB_BATCH_SIZE);
  for (const { provider, transaction_id } of due) {
    const connector = byName.get(provider);
    if (!connector) continue;
    const row = await claimConfirmationRecheck(
      ctx.db,
      provider,
      transaction_id,
      now,
      new Date(now.getTime() + CONFIRMATION_CHECK_LEASE_MS),
    );
    if (!row) continue;
    await checkConfirmation(ctx, connector, row);
    handled += 1;
  }
  return handled;
}

/**
 * How long until a payment's next question, after its `checks`-th: the interval, doubled after
 * each check, up to 15 minutes while it is open; at least 15 minutes and at most an hour once it
 * expired (docs/providers/README.md, "How often a provider is asked").
 */
export function nextCheckDelayMs(intervalMs: number, checks: number, expired: boolean): number {
  const doubled = intervalMs * 2 ** Math.min(Math.max(checks - 1, 0), 20);
  if (!expired) return Math.min(doubled, Math.max(intervalMs, OPEN_PAYMENT_CHECK_INTERVAL_MAX_MS));
  return Math.min(
    Math.max(doubled, intervalMs, EXPIRED_PAYMENT_CHECK_INTERVAL_MS),
    Math.max(intervalMs, EXPIRED_PAYMENT_CHECK_INTERVAL_MAX_MS),
  );
}

/**
 * Asks each payment's connector about live payments whose notice may have been lost: open ones
 * first an interval after create, then less and less often (nextCheckDelayMs), expired ones
 * within the late-confirmation window at most every 15 minutes. Each check asks about the time
 * since the previous answered one (less an hour). Every transaction the connector shows under a
 * payment's reference is credited (once). While a connector throttles (429), none of its payments
 * is asked about, and what was claimed waits for the end of it.
 */
async function reconcileCollections(ctx: CollectionsContext, collectors: Collector[]): Promise<number> {
  const interval = reconcileIntervalMs(ctx);
  const open = collectors.filter((c) => !c.collection.throttledUntil?.());
  if (open.length === 0) return 0;
  const byName = new Map(collectors.map((c) => [c.name, c]));
  const claimed = await withTransaction(ctx.db, (trx) => {
    const now = ctx.clock.now();
    return claimDueCollections(trx, {
      providers: open.map((c) => c.name),
      now,
      firstCheckBefore: new Date(now.getTime() - interval),
      expiredSince: new Date(now.getTime() - LATE_CONFIRMATION_WINDOW_MS),
      nextCheckAt: new Date(now.getTime() + interval),
      limit: JOB_BATCH_SIZE,
    });
  });
  for (const payment of claimed) {
    const connector = byName.get(payment.provider);
    if (!connector) continue;
    const at = ctx.clock.now();
    const throttled = connector.collection.throttledUntil?.();
    if (throttled) {
      const resume = new Date(at.getTime() + (throttled.getTime() - ctx.wallClock.now().getTime()));
      await noteCollectionCheck(ctx.db, payment.id, {
        lastError: `${label(connector)} throttled the inquiry (HTTP 429) until ${throttled.toISOString()}`,
        nextCheckAt: resume,
        at,
      });
      continue;
    }
    const askedAt = ctx.wallClock.now();
    const since = payment.last_checked_at
      ? new Date(payment.last_checked_at.getTime() - INQUIRY_VISIBILITY_GRACE_MS)
      : payment.created_at;
    const search = await connector.collection.find(
      {
        paymentId: payment.id,
        reference: payment.collection_reference,
        amountSatang: payment.amount_satang,
        providerPaymentId: payment.provider_payment_id,
        createdAt: payment.created_at,
      },
      new Date(Math.max(since.getTime(), payment.created_at.getTime())),
      askedAt,
    );
    if (search.status === "unavailable") {
      await noteCollectionCheck(ctx.db, payment.id, { lastError: search.error, at: ctx.clock.now() });
      continue;
    }
    for (const paid of search.payments) await creditTransaction(ctx, connector, paid, "reconciler");
    const done = ctx.clock.now();
    const delay = nextCheckDelayMs(interval, payment.checks, payment.status === "expired");
    await noteCollectionCheck(ctx.db, payment.id, {
      lastError: search.unreadable.length > 0 ? `unreadable: ${search.unreadable.join("; ")}` : null,
      at: done,
      // Rows that could not be read are not taken as "not paid": the time stays to be asked.
      ...(search.unreadable.length > 0 ? {} : { checkedAt: askedAt }),
      nextCheckAt: new Date(done.getTime() + delay),
    });
  }
  return claimed.length;
}

/**
 * One run of the collections reconciler: undecided notices, then payments, for every connector
 * that collects. Nothing without one.
 */
export async function reconcileCollectionsOnce(ctx: CollectionsContext): Promise<number> {
  const collectors = collectorsOf(ctx.connectors);
  if (collectors.length === 0) return 0;
  return (await recheckConfirmations(ctx, collectors)) + (await reconcileCollections(ctx, collectors));
}
