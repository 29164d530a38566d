/**
 * Named prepared statements (PostgreSQL only, DATABASE_PREPARED_STATEMENTS): every
 * parameterised statement a pooled connection sends gets a stable name, a hash of its SQL
 * text, so PostgreSQL parses it once per connection and later runs only bind and execute
 * (pg keeps the names it has prepared on each connection). The same text always gets the same
 * name, in every process.
 *
 * - Statements without parameters (`begin; set local ...`, `select 1`) stay unnamed: pg sends
 *   them as simple queries, which may hold several statements.
 * - At most PREPARED_STATEMENTS_MAX distinct texts are named per process, so statements built
 *   with a varying shape (an `in` list of any length) cannot grow each connection's prepared
 *   statements without limit; texts past the bound run unnamed, as they did before.
 * - A statement whose text starts with PLANNED_PER_CALL stays unnamed, so PostgreSQL plans it
 *   for each call's values. A named statement runs on a generic plan after five calls when that
 *   plan looks no costlier, judged from the values seen so far on that connection: a statement
 *   whose best plan depends on how many rows its merchant has could otherwise keep a plan made
 *   for small merchants. (Withdraw admission's read was one; its parts are now written so that
 *   one plan reads only the rows its rule names for any merchant, and it runs on that plan:
 *   withdraws/store.ts.)
 * - A transaction-pooling PgBouncer before 1.21 cannot route a named statement to the server
 *   connection that prepared it: the setting is off by default when DATABASE_DIRECT_URL is set
 *   (a pooler is in front), on otherwise (docs/DEPLOYMENT.md).
 */
import { createHash } from "node:crypto";
import type pg from "pg";

/** The comment a statement's text starts with when it must be planned for each call's values. */
export const PLANNED_PER_CALL = "/* planned per call */";

/** Distinct statement texts named per process; later ones run unnamed. */
export const PREPARED_STATEMENTS_MAX = 1_000;

/** The name of a statement: `s` and 30 hex digits of the SHA-256 of its text. */
export function statementName(text: string): string {
  return `s${createHash("sha256").update(text).digest("hex").slice(0, 30)}`;
}

/** Gives statement texts their names, remembering at most `max` of them. */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly max: number = PREPARED_STATEMENTS_MAX) {}

  /** The name of `text` sent with `values`, or undefined when it should run unnamed. */
  nameOf(text: string, values: unknown): string | undefined {
    if (!Array.isArray(values) || values.length === 0) return undefined;
    if (text.startsWith(PLANNED_PER_CALL)) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.max) return known;
    const name = statementName(text);
    this.names.set(text, name);
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

type Query = (...args: unknown[]) => unknown;

/**
 * Makes `client` name its statements: a `query(text, values)` call becomes
 * `query({ name, text, values })` when `names` gives the text a name. Any other call (a
 * config object, a cursor, a callback) passes through unchanged.
 */
export function nameStatements(client: pg.ClientBase, names: StatementNames): void {
  const original = client.query as unknown as Query;
  const named: Query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args;
    if (args.length === 2 && typeof text === "string") {
      const name = names.nameOf(text, values);
      if (name !== undefined) return original.call(this, { name, text, values });
    }
    return original.apply(this, args);
  };
  (client as unknown as { query: Query }).query = named;
}
