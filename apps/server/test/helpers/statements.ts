/**
 * The statements the database drivers are sent (BEGIN and COMMIT included), counted at the
 * drivers as bench/count.ts counts them. The drivers are wrapped when this module is first
 * imported, which must be before the test's store opens: a pooled PostgreSQL connection keeps
 * the query function it was given when it connected (db/prepared.ts names statements per
 * connection).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

let recording: { statements: string[]; roundTrips: string[][] } | undefined;

const CONNECTION_SETUP = /^set lock_timeout = '\d+ms'$/;

/** Whether a pg client has a query sent and not yet answered (pipeline mode, db/pg-driver.ts). */
function inFlight(client: unknown): boolean {
  const state = client as { _activeQuery?: unknown; _sentQueryQueue?: unknown[] };
  return Boolean(state._activeQuery) || (state._sentQueryQueue?.length ?? 0) > 0;
}

for (const proto of [pg.Client.prototype, PGlite.prototype] as unknown as Record<string, unknown>[]) {
  const original = proto.query as (...args: unknown[]) => unknown;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === "string" ? first : String((first as { text?: unknown })?.text ?? "");
    // A new connection's own lock bound (db/connect.ts), sent once when it connects: not the
    // measured work's, and sent by whichever work first needed a new connection.
    if (recording && !CONNECTION_SETUP.test(text)) {
      const statement = text.replace(/\s+/g, " ").trim();
      recording.statements.push(statement);
      // A statement sent while another is unanswered on the same connection shares its round trip.
      const last = recording.roundTrips.at(-1);
      if (last && inFlight(this)) last.push(statement);
      else recording.roundTrips.push([statement]);
    }
    return original.apply(this, args);
  };
}

/**
 * Runs `work` and answers what it answered with the statements sent meanwhile, and the same
 * statements grouped by the round trip they went in (on the embedded store, one each).
 */
export async function statementsOf<T>(
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[]; roundTrips: string[][] }> {
  const statements: string[] = [];
  const roundTrips: string[][] = [];
  recording = { statements, roundTrips };
  try {
    return { result: await work(), statements, roundTrips };
  } finally {
    recording = undefined;
  }
}
