/**
 * The ledger export's reorder buffer (reports/posting-order.ts): rows read by time come back by
 * posting number, each only once no row still to come can have been applied before it, and all
 * of them at the end; past its bound it gives back the lowest-numbered rows anyway.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type PostedRow, PostingOrder } from "../../src/reports/posting-order.ts";

const T0 = Date.parse("2026-12-05T00:00:00.000Z");
const row = (seq: number, atMs: number): PostedRow => ({
  id: `e${seq}`,
  created_at: new Date(T0 + atMs),
  posting_seq: BigInt(seq),
});
const seqs = (rows: PostedRow[]) => rows.map((r) => Number(r.posting_seq));

describe("the ledger export's posting order", () => {
  it("gives rows back by posting number once the read has moved past the window", () => {
    const order = new PostingOrder<PostedRow>(1_000, 100);
    // Stamped 0 and 1 ms apart, applied the other way round (numbers 2 and 1).
    assert.deepEqual(seqs(order.take([row(2, 0), row(1, 1)], false)), [], "both may still be overtaken");
    assert.deepEqual(seqs(order.take([row(3, 500)], false)), []);
    assert.deepEqual(
      seqs(order.take([row(4, 1_002)], false)),
      [1, 2],
      "stamped over 1 s before the last read",
    );
    assert.deepEqual(
      seqs(order.take([row(6, 1_003), row(5, 1_004)], true)),
      [3, 4, 5, 6],
      "the rest at the end",
    );
  });

  it("keeps a row until no later-stamped row can come before it", () => {
    const order = new PostingOrder<PostedRow>(1_000, 100);
    assert.deepEqual(seqs(order.take([row(10, 0)], false)), []);
    // A row stamped within the window after it was applied before it: it comes first.
    assert.deepEqual(seqs(order.take([row(9, 999)], false)), []);
    assert.deepEqual(seqs(order.take([row(11, 2_000)], false)), [9, 10]);
  });

  it("puts entries without a number (0, posted before numbering) first, in the order read", () => {
    const order = new PostingOrder<PostedRow>(1_000, 100);
    const old = [row(0, 0), { ...row(0, 1), id: "a" }, row(7, 2)];
    assert.deepEqual(
      order.take(old, true).map((r) => r.id),
      ["e0", "a", "e7"],
    );
  });

  it("gives back the lowest-numbered rows past its bound, whatever the window", () => {
    const order = new PostingOrder<PostedRow>(60_000, 3);
    assert.deepEqual(
      seqs(order.take([row(5, 0), row(4, 1), row(3, 2), row(2, 3), row(1, 4)], false)),
      [1, 2],
    );
    assert.deepEqual(seqs(order.take([], true)), [3, 4, 5]);
  });

  it("writes every row in posting order when each was stamped less than the window before it was applied", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.nat({ max: 50 }), delay: fc.nat({ max: 999 }) }), { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }),
        (postings, batchSizes) => {
          // Applied one after another (numbers 1, 2, ...), each stamped `delay` ms before.
          let applied = 0;
          const rows = postings.map(({ gap, delay }, i) => {
            applied += gap;
            return row(i + 1, applied - delay);
          });
          // Read as the export reads them: by time, then number.
          const read = [...rows].sort(
            (a, b) =>
              a.created_at.getTime() - b.created_at.getTime() ||
              Number(a.posting_seq) - Number(b.posting_seq),
          );
          const order = new PostingOrder<PostedRow>(1_000, 100_000);
          const written: PostedRow[] = [];
          let at = 0;
          for (let b = 0; at < read.length; b++) {
            const size = batchSizes[b % batchSizes.length]!;
            const batch = read.slice(at, at + size);
            at += size;
            written.push(...order.take(batch, batch.length < size));
          }
          written.push(...order.take([], true));
          assert.deepEqual(seqs(written), seqs(rows));
        },
      ),
    );
  });
});
