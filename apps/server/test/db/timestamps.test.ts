/**
 * `parseTimestamptz` (db/timestamps.ts) reads every `timestamptz` text as pg's own parser does:
 * on generated values of the form it reads by position, on any other text (which it hands to
 * pg's parser), and on what the database itself writes in several time zones. On both stores;
 * on PostgreSQL the store's pool reads timestamps through it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { sql } from "kysely";
import pg from "pg";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "../../src/db/timestamps.ts";
import { openTestStore, type TestStore } from "../helpers/store.ts";

const pgParser = pg.types.getTypeParser(TIMESTAMPTZ_OID, "text") as (text: string) => unknown;

/** A parsed value as a comparable one: a Date's time (NaN for an invalid one), else the value. */
function comparable(value: unknown): unknown {
  return value instanceof Date ? value.getTime() : value;
}

function agree(text: string): void {
  const ours = parseTimestamptz(text);
  const theirs = pgParser(text);
  assert.ok(
    Object.is(comparable(ours), comparable(theirs)),
    `${text}: ${String(ours)} against ${String(theirs)}`,
  );
  assert.equal(ours instanceof Date, theirs instanceof Date, text);
}

const two = (n: number) => String(n).padStart(2, "0");

/** PostgreSQL's ISO output: `YYYY-MM-DD HH:MM:SS[.ffffff]+HH[:MM[:SS]]`, with variations. */
const isoText = fc
  .record({
    year: fc.integer({ min: 1, max: 12_000 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
    sign: fc.constantFrom("+", "-"),
    offsetHours: fc.integer({ min: 0, max: 15 }),
    offsetMinutes: fc.option(fc.constantFrom(0, 30, 45, 59), { nil: undefined }),
    offsetSeconds: fc.option(fc.integer({ min: 0, max: 59 }), { freq: 8, nil: undefined }),
    bc: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  })
  .map((t) => {
    const year = String(t.year).padStart(4, "0");
    const fraction = t.fraction === undefined ? "" : `.${t.fraction}`;
    const minutes = t.offsetMinutes === undefined ? "" : `:${two(t.offsetMinutes)}`;
    const seconds =
      t.offsetMinutes !== undefined && t.offsetSeconds !== undefined ? `:${two(t.offsetSeconds)}` : "";
    return `${year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)}:${two(t.second)}${fraction}${t.sign}${two(t.offsetHours)}${minutes}${seconds}${t.bc ? " BC" : ""}`;
  });

describe("reading timestamptz values", () => {
  it("agrees with pg's parser on generated values of PostgreSQL's form", () => {
    fc.assert(
      fc.property(isoText, (text) => agree(text)),
      { numRuns: 20_000 },
    );
  });

  it("agrees with pg's parser on any text, and on the forms it leaves to it", () => {
    for (const text of [
      "infinity",
      "-infinity",
      "2026-12-02 02:44:01+00",
      "2026-12-02 02:44:01.5+07",
      "2026-12-02 02:44:01.123456-03:30",
      "2026-12-02 02:44:01+05:53:28",
      "0099-01-01 00:00:00+00",
      "0001-01-01 00:00:00+00 BC",
      "12026-12-02 02:44:01+00",
      "2026-12-02",
      "2026-12-02T02:44:01Z",
      "Wed Dec 02 02:44:01 2026 UTC",
      "",
    ]) {
      agree(text);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => agree(text)),
      { numRuns: 5_000 },
    );
  });

  it("reads fractions of one to six digits as pg does (every one up to four digits)", () => {
    for (let length = 1; length <= 6; length += 1) {
      const step = length <= 4 ? 1 : 10 ** (length - 4) + 1;
      for (let value = 0; value < 10 ** length; value += step) {
        agree(`2026-12-02 02:44:01.${String(value).padStart(length, "0")}+07`);
      }
    }
  });
});

describe("reading what the database writes", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
  });
  after(async () => {
    await store?.close();
  });

  for (const zone of ["UTC", "Asia/Bangkok", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham"]) {
    it(`agrees with pg's parser on PostgreSQL's own text in ${zone}`, async () => {
      const rows = await store.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('TimeZone', ${zone}, true)`.execute(trx);
        const result = await sql<{ value: Date | string; text: string }>`
          SELECT t AS value, t::text AS text FROM (
            SELECT timestamptz '1900-01-01 00:00:00+00' + g * interval '7 days 3 hours 17 minutes 29.123457 seconds' AS t
            FROM generate_series(0, 6000) g
            UNION ALL SELECT timestamptz 'infinity' UNION ALL SELECT timestamptz '-infinity'
            UNION ALL SELECT timestamptz '0044-03-15 12:00:00+00 BC'
          ) s`.execute(trx);
        return result.rows;
      });
      assert.equal(rows.length, 6004);
      for (const row of rows) {
        agree(row.text);
        // PostgreSQL's pool reads timestamps through this parser: the same value. (The embedded
        // store reads them with PGlite's own parsers.)
        if (store.kind === "postgres") {
          assert.ok(Object.is(comparable(row.value), comparable(pgParser(row.text))), row.text);
        }
      }
    });
  }
});
