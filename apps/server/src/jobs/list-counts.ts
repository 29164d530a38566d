/**
 * Folds the list-count changes the payments and withdraws triggers append into the kept counts
 * (db/list-counts.ts), so a list's `total` reads a few rows however many records a merchant has.
 * Totals are exact whether or not it has run; it keeps the changes to be added few.
 */

import type { Db } from "../db/handles.ts";
import { foldListCounts } from "../db/list-counts.ts";
import type { Job } from "./runner.ts";

/** How often the fold looks for changes when the last run found none. */
const LIST_COUNT_FOLD_JOB_INTERVAL_MS = 1_000;

export const listCountFoldJob: Job<{ db: Db }> = {
  name: "list-count-fold",
  intervalMs: LIST_COUNT_FOLD_JOB_INTERVAL_MS,
  runOnce: (ctx) => foldListCounts(ctx.db),
};
