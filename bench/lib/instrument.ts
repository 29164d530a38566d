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
export function countStatements(): void {
  const started = new WeakMap<object, number>();
  const original = pg.Client.prototype.query as unknown as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: object, ...args: unknown[]) {
    statementsSent += 1;
    const text = typeof args[0] === "string" ? args[0] : "";
    if (/^(begin|start transaction)\b/i.test(text)) started.set(this, performance.now());
    else if (/^commit\b/i.test(text) && started.has(this)) {
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
    if (message === "statements") {
      process.send?.({ statements: statementsSent });
      statementsSent = 0;
    }
  });
}
