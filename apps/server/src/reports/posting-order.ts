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

/** A held row with its sort key read once: posting number, time, id. */
interface Held<R> {
  row: R;
  seq: bigint;
  at: number;
}

const before = <R extends PostedRow>(a: Held<R>, b: Held<R>): boolean =>
  a.seq !== b.seq ? a.seq < b.seq : a.at !== b.at ? a.at < b.at : a.row.id < b.row.id;

/** The rows held, as a binary min-heap by posting order: a push or a pop costs log(rows held). */
export class PostingOrder<R extends PostedRow> {
  private readonly heap: Held<R>[] = [];

  constructor(
    private readonly windowMs = LEDGER_EXPORT_REORDER_WINDOW_MS,
    private readonly rowsMax = LEDGER_EXPORT_REORDER_ROWS_MAX,
  ) {}

  /** The rows that can be written now, in posting order; all of them when `last` (the end). */
  take(rows: readonly R[], last: boolean): R[] {
    for (const row of rows) {
      this.push({ row, seq: BigInt(row.posting_seq), at: row.created_at.getTime() });
    }
    const readUpTo = rows.at(-1)?.created_at.getTime() ?? Number.NEGATIVE_INFINITY;
    const out: R[] = [];
    while (this.heap.length > 0) {
      const ready = last || this.heap.length > this.rowsMax || this.heap[0]!.at + this.windowMs < readUpTo;
      if (!ready) break;
      out.push(this.pop().row);
    }
    return out;
  }

  private push(item: Held<R>): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Held<R> {
    const heap = this.heap;
    const top = heap[0]!;
    const end = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = end;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && before(heap[right]!, heap[least]!)) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }
}
