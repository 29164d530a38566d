/**
 * Folds the changes the payments and withdraws triggers append into the totals the database
 * keeps: the list counts (db/list-counts.ts) and the withdraws' per-day limit capacity
 * (withdraws/store.ts). The totals are exact whether or not it has run; it keeps the changes
 * to be added few, so reading a total stays a handful of rows. It also vacuums a changes table
 * it folded changes of, at most once a second (db/kept-totals.ts `tidyChanges`), so the
 * table's index does not keep the folded ones.
 */
import type { Db } from "../db/handles.ts";
import { tidyChanges } from "../db/kept-totals.ts";
import { foldListCounts, LIST_COUNTS } from "../db/list-counts.ts";
import { foldWithdrawDayTotals, WITHDRAW_DAY_TOTALS } from "../withdraws/store.ts";
import type { Job } from "./runner.ts";

/** How often the fold looks for changes when the last run found none. */
const KEPT_TOTALS_FOLD_JOB_INTERVAL_MS = 1_000;

export const keptTotalsFoldJob: Job<{ db: Db }> = {
  name: "kept-totals-fold",
  intervalMs: KEPT_TOTALS_FOLD_JOB_INTERVAL_MS,
  runOnce: async (ctx) => {
    const lists = await foldListCounts(ctx.db);
    const days = await foldWithdrawDayTotals(ctx.db);
    await tidyChanges(ctx.db, LIST_COUNTS, lists);
    await tidyChanges(ctx.db, WITHDRAW_DAY_TOTALS, days);
    return lists + days;
  },
};
