/**
 * The daily sweep of what connectors show paid (docs/providers/README.md, "The daily sweep"), for
 * every connector whose collection `sweepsDaily`. Notices get lost, and the reconciler stops
 * asking about a payment once it succeeded, was canceled or is 72 hours past its expiry: money
 * paid then (a second payment, a payment to a canceled one, a late one) would be seen only in the
 * provider's own statements. Once a Bangkok date has ended (and an hour more, for the provider's
 * inquiry to show its last payments), every reference issued in the SWEEP_LOOKBACK_DAYS before
 * its end is asked about on that date (`find` for that one date). Every transaction found is
 * matched to its payment (credited once) or raised as an anomaly, and kept by the connector for
 * the daily report.
 *
 * The sweep is resumable: its progress (a cursor over the references) lives in
 * `collection_sweeps`, and a worker holds it by a lease, so any number of workers can run the job.
 */
import { withTransaction } from "../db/handles.ts";
import { addDays, bangkokDate, bangkokDayStart } from "../lib/bangkok-time.ts";
import { type CollectionsContext, type Collector, collectorsOf, creditTransaction } from "./collections.ts";
import { advanceSweep, claimSweep, referencesToSweep, type SweptPayment } from "./collections-store.ts";

export { bangkokDayStart } from "../lib/bangkok-time.ts";

/** References issued this many days before a date's end are asked about on that date. */
export const SWEEP_LOOKBACK_DAYS = 7;
/** A date is swept once it ended this long ago (Bangkok time). */
export const SWEEP_DELAY_MS = 60 * 60_000;
/**
 * References asked about per run of the job. The job runs every 30 seconds and does one batch
 * per run, so the sweep adds at most 40 inquiries a minute to a provider.
 */
export const SWEEP_BATCH_SIZE = 20;
/** How long a worker holds a sweep before another may take it over. */
const SWEEP_LEASE_MS = 120_000;

/** The latest Bangkok date that can be swept at `now`: yesterday, once today is an hour old. */
export function sweepDateAt(now: Date): string {
  return addDays(bangkokDate(new Date(now.getTime() - SWEEP_DELAY_MS)), -1);
}

/**
 * One batch of the sweep of `date` (by default the latest due one): asks the connectors about up
 * to SWEEP_BATCH_SIZE references on that date and credits or raises what they show. Answers how
 * many references it asked about (0 when the sweep is finished, held elsewhere, nothing sweeps,
 * or a connector throttles).
 */
export async function sweepCollections(ctx: CollectionsContext, date?: string): Promise<number> {
  const sweeping = collectorsOf(ctx.connectors).filter((c) => c.collection.sweepsDaily === true);
  if (sweeping.length === 0) return 0;
  if (sweeping.some((c) => c.collection.throttledUntil?.())) return 0;
  const now = ctx.wallClock.now();
  const day = date ?? sweepDateAt(now);
  const sweep = await withTransaction(ctx.db, (trx) =>
    claimSweep(trx, day, now, new Date(now.getTime() + SWEEP_LEASE_MS)),
  );
  if (!sweep) return 0;
  const references = await referencesToSweep(ctx.db, {
    providers: sweeping.map((c) => c.name),
    from: bangkokDayStart(addDays(day, -SWEEP_LOOKBACK_DAYS)),
    to: bangkokDayStart(addDays(day, 1)),
    after:
      sweep.cursor_created_at && sweep.cursor_id
        ? { createdAt: sweep.cursor_created_at, id: sweep.cursor_id }
        : null,
    limit: SWEEP_BATCH_SIZE,
  });
  return sweepBatch(ctx, new Map(sweeping.map((c) => [c.name, c])), {
    day,
    dayStart: bangkokDayStart(day),
    references,
  });
}

async function sweepBatch(
  ctx: CollectionsContext,
  byName: Map<string, Collector>,
  batch: { day: string; dayStart: Date; references: SweptPayment[] },
): Promise<number> {
  let asked = 0;
  let found = 0;
  let cursor: { createdAt: Date; id: string } | null = null;
  for (const reference of batch.references) {
    const connector = byName.get(reference.provider);
    if (!connector) continue;
    // Only the swept date: its start is within that date, so exactly one inquiry.
    const search = await connector.collection.find(
      {
        paymentId: reference.id,
        reference: reference.collection_reference,
        amountSatang: reference.amount_satang,
        providerPaymentId: reference.provider_payment_id,
        createdAt: reference.created_at,
      },
      batch.dayStart,
      batch.dayStart,
    );
    if (search.status === "unavailable") {
      await advanceSweep(ctx.db, batch.day, {
        cursor,
        asked,
        found,
        lastError: search.error,
        finishedAt: null,
      });
      return asked;
    }
    for (const paid of search.payments) await creditTransaction(ctx, connector, paid, "sweep");
    asked += 1;
    found += search.payments.length;
    cursor = { createdAt: reference.created_at, id: reference.id };
  }
  const finished = batch.references.length < SWEEP_BATCH_SIZE;
  await advanceSweep(ctx.db, batch.day, {
    cursor,
    asked,
    found,
    lastError: null,
    finishedAt: finished ? ctx.wallClock.now() : null,
  });
  return asked;
}
