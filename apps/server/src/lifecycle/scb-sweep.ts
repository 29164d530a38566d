/**
 * The daily sweep of what was paid to the operator's biller (docs/providers/scb.md, "The daily
 * sweep"). Confirmations get lost, and the reconciler stops asking about a payment once it
 * succeeded, was canceled or is 72 hours past its expiry: money paid then (a second payment, a
 * payment to a canceled one, a late one) would be seen only in SCB's e-mail. Once a Bangkok date
 * has ended (and an hour more, for SCB's inquiry to show its last payments), every reference
 * issued in the SWEEP_LOOKBACK_DAYS before its end is asked about on that date. SCB's inquiry
 * allows nothing broader: for Thai QR tag 30 it requires the biller id, the date and reference1
 * (it cannot list a biller's payments of a date). Every transaction found is matched to its
 * payment (credited once) or raised as an anomaly, and kept for the daily report.
 *
 * The sweep is resumable: its progress (a cursor over the references) lives in `scb_sweeps`, and
 * a worker holds it by a lease, so any number of workers can run the job.
 */
import { withTransaction } from "../db/handles.ts";
import type { ScbConnector } from "../providers/scb/connector.ts";
import { BANGKOK_OFFSET_MS } from "../providers/scb/limits.ts";
import { addDays, bangkokDate } from "../providers/scb/time.ts";
import type { LifecycleContext } from "./context.ts";
import { creditScbTransaction } from "./scb-collection.ts";
import { advanceSweep, claimSweep, referencesToSweep } from "./scb-store.ts";

/** References issued this many days before a date's end are asked about on that date. */
export const SWEEP_LOOKBACK_DAYS = 7;
/** A date is swept once it ended this long ago (Bangkok time). */
export const SWEEP_DELAY_MS = 60 * 60_000;
/**
 * References asked about per run of the job. The job runs every 30 seconds and does one batch
 * per run, so the sweep adds at most 40 inquiries a minute (docs/providers/scb.md).
 */
export const SWEEP_BATCH_SIZE = 20;
/** How long a worker holds a sweep before another may take it over. */
const SWEEP_LEASE_MS = 120_000;

/** The instant a Bangkok date starts. */
export function bangkokDayStart(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00Z`) - BANGKOK_OFFSET_MS);
}

/** The latest Bangkok date that can be swept at `now`: yesterday, once today is an hour old. */
export function sweepDateAt(now: Date): string {
  return addDays(bangkokDate(new Date(now.getTime() - SWEEP_DELAY_MS)), -1);
}

/**
 * One batch of the sweep of `date` (by default the latest due one): asks SCB about up to
 * SWEEP_BATCH_SIZE references on that date and credits or raises what it finds. Answers how many
 * references it asked about (0 when the sweep is finished, held elsewhere, or SCB throttles).
 */
export async function sweepScbDate(ctx: LifecycleContext, date?: string): Promise<number> {
  const scb = ctx.scb;
  if (!scb || !ctx.config.scb) return 0;
  if (scb.collection.throttledUntil()) return 0;
  const now = scb.clock.now();
  const day = date ?? sweepDateAt(now);
  const sweep = await withTransaction(ctx.db, (trx) =>
    claimSweep(trx, day, now, new Date(now.getTime() + SWEEP_LEASE_MS)),
  );
  if (!sweep) return 0;
  const dayStart = bangkokDayStart(day);
  const references = await referencesToSweep(ctx.db, {
    from: bangkokDayStart(addDays(day, -SWEEP_LOOKBACK_DAYS)),
    to: bangkokDayStart(addDays(day, 1)),
    after:
      sweep.cursor_created_at && sweep.cursor_id
        ? { createdAt: sweep.cursor_created_at, id: sweep.cursor_id }
        : null,
    limit: SWEEP_BATCH_SIZE,
  });
  return sweepBatch(ctx, scb, { day, dayStart, references });
}

async function sweepBatch(
  ctx: LifecycleContext,
  scb: ScbConnector,
  batch: {
    day: string;
    dayStart: Date;
    references: { id: string; collection_reference: string; created_at: Date }[];
  },
): Promise<number> {
  let asked = 0;
  let found = 0;
  let cursor: { createdAt: Date; id: string } | null = null;
  for (const reference of batch.references) {
    // Only the swept date: its start is within that date, so exactly one inquiry.
    const search = await scb.collection.findPayments({
      ref1: reference.collection_reference,
      from: batch.dayStart,
      to: batch.dayStart,
    });
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
    for (const paid of search.payments) await creditScbTransaction(ctx, paid, "sweep");
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
    finishedAt: finished ? scb.clock.now() : null,
  });
  return asked;
}
