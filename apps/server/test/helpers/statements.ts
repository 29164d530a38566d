/**
 * The statements the database drivers are sent (BEGIN and COMMIT included), counted at the
 * drivers as bench/count.ts counts them. The drivers are wrapped when this module is first
 * imported, which must be before the test's store opens: a pooled PostgreSQL connection keeps
 * the query function it was given when it connected (db/prepared.ts names statements per
 * connection).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

let recording: string[] | undefined;

for (const proto of [pg.Client.prototype, PGlite.prototype] as unknown as Record<string, unknown>[]) {
  const original = proto.query as (...args: unknown[]) => unknown;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === "string" ? first : String((first as { text?: unknown })?.text ?? "");
    recording?.push(text.replace(/\s+/g, " ").trim());
    return original.apply(this, args);
  };
}

/** Runs `work` and answers what it answered with the statements sent meanwhile. */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  recording = statements;
  try {
    return { result: await work(), statements };
  } finally {
    recording = undefined;
  }
}
