/**
 * The ledger export's rows in the order their balances were applied. The export reads entries by
 * their transaction's time (the index it walks), but a posting's time is taken before it waits for
 * its account's row lock: of two postings to one account that raced, the later-stamped one may
 * have been applied first. Each entry's posting number is drawn while it holds that lock
 * (migration 0119), so one account's entries applied in order have increasing numbers.
 *
 * This buffer takes the rows as read and gives them back by posting number. A row is given back
 * once the rows still to come cannot be applied before it: they were stamped at or after the last
 * row read, and a posting is applied within LEDGER_EXPORT_REORDER_WINDOW_MS of its stamp (its
 * waits for a connection, a lock and its statements are bounded far below that), so a row
 * stamped more than that before the last row read was applied before any row still to come.
 * Past LEDGER_EXPORT_REORDER_ROWS_MAX rows held, the lowest-numbered are given back anyway, so an
 * export's memory stays bounded; entries written before the numbering (number 0) come first, in
 * the order read.
 */
import { LEDGER_EXPORT_REORDER_ROWS_MAX, LEDGER_EXPORT_REORDER_WINDOW_MS } from "../lib/limits.ts";

export interface PostedRow {
  id: string;
  created_at: Date;
  posting_seq: bigint | string;
}

const compare = (a: PostedRow, b: PostedRow): number => {
  const bySeq = BigInt(a.posting_seq) - BigInt(b.posting_seq);
  if (bySeq !== 0n) return bySeq < 0n ? -1 : 1;
  const byTime = a.created_at.getTime() - b.created_at.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

export class PostingOrder<R extends PostedRow> {
  private held: R[] = [];

  constructor(
    private readonly windowMs = LEDGER_EXPORT_REORDER_WINDOW_MS,
    private readonly rowsMax = LEDGER_EXPORT_REORDER_ROWS_MAX,
  ) {}

  /** The rows that can be written now, in posting order; all of them when `last` (the end). */
  take(rows: readonly R[], last: boolean): R[] {
    this.held.push(...rows);
    this.held.sort(compare);
    if (last) return this.held.splice(0);
    const readUpTo = rows.at(-1)?.created_at.getTime();
    let ready = 0;
    if (readUpTo !== undefined) {
      while (ready < this.held.length && this.held[ready]!.created_at.getTime() + this.windowMs < readUpTo)
        ready += 1;
    }
    return this.held.splice(0, Math.max(ready, this.held.length - this.rowsMax));
  }
}
