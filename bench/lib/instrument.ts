/**
 * What the bench asks of a server process over its IPC channel: `statements`, the number of
 * statements it sent to PostgreSQL since the last ask (BEGIN and COMMIT included, counted at
 * pg's `Client.query`), and `tx-times`, its BEGIN-to-COMMIT times (ms) since the last ask.
 * Installed by bench/server.ts, and preloaded into `satang serve` (bench/instrument-preload.ts).
 */
import { performance } from "node:perf_hooks";
import pg from "pg";

/** BEGIN-to-COMMIT times of this process's PostgreSQL transactions, for the serial bound (R5). */
const transactionTimes: number[] = [];
/** Statements this process has sent to PostgreSQL (BEGIN and COMMIT included) since the last ask. */
let statementsSent = 0;
/** The same, by statement text (its first 120 characters, spaces folded), for `statement-texts`. */
const statementsByText = new Map<string, number>();

function textOf(first: unknown): string {
  if (typeof first === "string") return first;
  if (first && typeof first === "object" && "text" in first) return String((first as { text: unknown }).text);
  return "";
}

/** A transaction's first or last statement: pg's own BEGIN and COMMIT are short texts. */
const BEGIN = /^(begin|start transaction)\b/i;
const COMMIT = /^commit\b/i;
const TRANSACTION_TEXT_MAX = 512;

/**
 * Wraps pg's `Client.query`. The counting costs the measured process next to nothing: the
 * statement texts are tallied only when BENCH_STATEMENTS asks for them (folding a grouped
 * statement's whitespace costs a long text's scan per statement), and only texts as short as a
 * BEGIN with its settings are tested for BEGIN and COMMIT.
 */
export function countStatements(): void {
  const started = new WeakMap<object, number>();
  const byText = Boolean(process.env.BENCH_STATEMENTS);
  const original = pg.Client.prototype.query as unknown as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: object, ...args: unknown[]) {
    statementsSent += 1;
    if (byText) {
      const key = textOf(args[0]).slice(0, 400).replace(/\s+/g, " ").trim().slice(0, 120);
      statementsByText.set(key, (statementsByText.get(key) ?? 0) + 1);
    }
    const text = typeof args[0] === "string" && args[0].length <= TRANSACTION_TEXT_MAX ? args[0] : "";
    if (BEGIN.test(text)) started.set(this, performance.now());
    else if (COMMIT.test(text) && started.has(this)) {
      const begun = started.get(this)!;
      started.delete(this);
      const result = original.apply(this, args) as Promise<unknown>;
      return result.then((value) => {
        transactionTimes.push(performance.now() - begun);
        return value;
      });
    }
    return original.apply(this, args);
  };
  process.on("message", (message) => {
    if (message === "tx-times") process.send?.({ txTimes: transactionTimes.splice(0) });
    if (message === "statement-texts") {
      process.send?.({ texts: [...statementsByText].sort((a, b) => b[1] - a[1]) });
      statementsByText.clear();
    }
    if (message === "statements") {
      process.send?.({ statements: statementsSent });
      statementsSent = 0;
    }
  });
}
