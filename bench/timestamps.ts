/**
 * Reading `timestamptz` values: the service's parser (db/timestamps.ts `parseTimestamptz`) and
 * pg's own (postgres-date through pg-types), compared in one process on the same texts: the
 * timestamps of a page of ten payments as PostgreSQL writes them (created, updated and expires
 * for each, confirmed and captured for four of them), read in alternating blocks so both
 * see the same machine. Prints the median time per page of each and their ratio.
 *
 *   node --import tsx bench/timestamps.ts          # TIMESTAMPS_ROUNDS=40 TIMESTAMPS_BLOCK=5000
 */
import { performance } from "node:perf_hooks";
import pg from "pg";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "../apps/server/src/db/timestamps.ts";

const rounds = Number(process.env.TIMESTAMPS_ROUNDS ?? 40);
const block = Number(process.env.TIMESTAMPS_BLOCK ?? 5000);

/** A timestamp as PostgreSQL writes it with DateStyle ISO and TimeZone UTC. */
const asPostgres = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace("Z", `${String(ms % 997).padStart(3, "0")}+00`);

/** The non-null timestamps of ten payment rows. */
function page(): string[] {
  const at = Date.parse("2026-12-01T10:00:00Z");
  return Array.from({ length: 10 }, (_, i) => {
    const own = [at + i * 1_013, at + i * 1_013 + 7, at + 900_000 + i];
    if (i % 3 === 0) own.push(at + i * 2_003, at + i * 2_011);
    return own.map(asPostgres);
  }).flat();
}

const pgParser = pg.types.getTypeParser(TIMESTAMPTZ_OID, "text") as (text: string) => unknown;
const texts = page();

function timePerPage(parse: (text: string) => unknown): number {
  let sink = 0;
  const start = performance.now();
  for (let n = 0; n < block; n += 1) {
    for (const text of texts) sink += (parse(text) as Date).getTime() & 1;
  }
  const perPage = ((performance.now() - start) * 1000) / block;
  if (sink < 0) console.log(sink);
  return perPage;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// Both parsers answer the same values before either is timed.
for (const text of texts) {
  if ((parseTimestamptz(text) as Date).getTime() !== (pgParser(text) as Date).getTime()) {
    throw new Error(`the parsers disagree on ${text}`);
  }
}
const ours: number[] = [];
const theirs: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  ours.push(timePerPage(parseTimestamptz));
  theirs.push(timePerPage(pgParser));
}
const [a, b] = [median(ours), median(theirs)];
console.log(`${texts.length} timestamps a page (ten payments), median of ${rounds} blocks of ${block} pages`);
console.log(
  `service's parser ${a.toFixed(2)} µs a page, pg's parser ${b.toFixed(2)} µs: ratio ${(a / b).toFixed(2)}`,
);
