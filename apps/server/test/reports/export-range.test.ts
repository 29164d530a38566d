/**
 * An export's range (CONTRACT 11): two valid dates in order, at most EXPORT_RANGE_DAYS_MAX days
 * apart, are accepted whatever their year; the order and the span are judged on the dates as
 * written, not as brought within the list dates (reports/service.ts `exportRange`).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIST_DATE_MIN } from "../../src/lib/limits.ts";
import { exportRange } from "../../src/reports/service.ts";

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return { message: (e as Error).message, metadata: (e as { metadata?: unknown }).metadata };
  }
  return undefined;
};

describe("export range", () => {
  it("accepts a range before 1970 and before the list dates' lower bound (an empty export)", () => {
    for (const [dateFrom, dateTo] of [
      ["1969-01-01", "1969-06-01"],
      ["1000-01-01", "1000-06-01"],
      ["0000-01-01", "0000-12-31"],
    ] as const) {
      const range = exportRange({ dateFrom, dateTo });
      // Both read as the list dates' lower bound: a range no record was created in.
      assert.equal(range.dateFrom.toISOString(), LIST_DATE_MIN, `${dateFrom}..${dateTo}`);
      assert.equal(range.dateTo.toISOString(), LIST_DATE_MIN, `${dateFrom}..${dateTo}`);
    }
  });

  it("still refuses dates out of order and spans over the limit, judged as written", () => {
    assert.deepEqual(fieldOf(() => exportRange({ dateFrom: "1969-06-01", dateTo: "1969-01-01" }))?.metadata, {
      field: "dateTo",
    });
    assert.match(
      fieldOf(() => exportRange({ dateFrom: "0100-01-01", dateTo: "2026-01-01" }))?.message ?? "",
      /at most 366 days/,
    );
    assert.match(
      fieldOf(() => exportRange({ dateFrom: "2026-01-01", dateTo: "2026-01-01" }))?.message ?? "",
      /after dateFrom/,
    );
  });
});
