/**
 * Database conditions the service expects and answers with 503 SERVICE_UNAVAILABLE and
 * Retry-After instead of 500 (CONTRACT 14): the database is unreachable or lost the connection,
 * a bound was hit (lock wait, statement time, wait for a pool connection), or a serialization
 * failure or deadlock outlived its retries, or a statement prepared before a migration no longer
 * fits the schema. Everything else is unexpected.
 */

/** Why a database error is expected; undefined for anything else. */
export type DatabaseFault = "unavailable" | "busy" | "conflict";

/** What `Retry-After` says for each fault, in seconds. */
export const DATABASE_RETRY_AFTER_S: Record<DatabaseFault, number> = {
  unavailable: 2,
  busy: 1,
  conflict: 1,
};

/** Thrown when no pool connection came free within DB_POOL_ACQUIRE_TIMEOUT_MS. */
export class PoolAcquireTimeoutError extends Error {
  readonly code = "POOL_ACQUIRE_TIMEOUT";
  constructor(timeoutMs: number) {
    super(`no database connection came free within ${timeoutMs} ms`);
    this.name = "PoolAcquireTimeoutError";
  }
}

/**
 * Thrown when a multi-host DATABASE_URL names no host that is a primary right now (a failover
 * is under way, db/primary.ts): the database is unavailable for the moment.
 */
export class NoPrimaryError extends Error {
  readonly code = "NO_PRIMARY";
  constructor(readonly reasons: string[]) {
    super(`no database host is a primary now (${reasons.join("; ")})`);
    this.name = "NoPrimaryError";
  }
}

/** Serialization failure and deadlock: the whole transaction may be run again. */
const RETRYABLE_SQLSTATES = new Set(["40001", "40P01"]);

/**
 * A named prepared statement (db/prepared.ts) whose result no longer fits the schema: a
 * migration changed a table it reads (a column added to a `select *`) while this process held
 * it prepared, as during a rolling deploy where another release migrates first. PostgreSQL
 * refuses it (feature_not_supported, 0A000, with this message) rather than answer rows of a
 * shape the statement was not prepared for; the connection is closed (db/pg-driver.ts) and the
 * whole transaction may be run again on another, which prepares it anew.
 */
export function stalePlan(error: unknown): boolean {
  return (
    codeOf(error) === "0A000" &&
    error instanceof Error &&
    error.message.includes("cached plan must not change result type")
  );
}

/**
 * SQLSTATEs of a bound hit: lock_not_available (lock_timeout, NOWAIT), query_canceled
 * (statement_timeout), idle_in_transaction_session_timeout, too many connections.
 */
const BUSY_SQLSTATES = new Set(["55P03", "57014", "25P03", "53300", "53400"]);

/**
 * SQLSTATEs of a database that is going away or not there yet: connection exceptions (class
 * 08), admin/crash shutdown, cannot connect now, database dropped, insufficient resources,
 * a write refused by a standby (25006, read_only_sql_transaction: a connection that reached
 * a node a failover has just demoted), and the server's own storage failing (class 58:
 * io_error, a data file gone).
 */
function unavailableState(code: string): boolean {
  return (
    code.startsWith("08") ||
    code.startsWith("58") ||
    code === "25006" ||
    ["57P01", "57P02", "57P03", "57P04", "57P05", "53000", "53100", "53200"].includes(code)
  );
}

/**
 * A data file the server cannot open (its disk or data directory failing, as on a primary that
 * is being lost): PostgreSQL reports EACCES on its own files as insufficient_privilege (42501),
 * the same SQLSTATE as a missing grant, but with "could not open file ..." (or read, write,
 * access) instead of "permission denied for table ...". Only the former is the database's
 * storage; a missing grant stays unexpected.
 */
function storageRefused(code: string, message: string): boolean {
  return code === "42501" && /^could not (open|read|write|access|create|stat|fsync)/.test(message);
}

/**
 * A database that refuses new connections for now (`ALTER DATABASE ... ALLOW_CONNECTIONS false`,
 * as an operator does before a restore or a move): PostgreSQL reports it as
 * object_not_in_prerequisite_state (55000), a SQLSTATE it also uses for a statement's own
 * mistakes (a sequence's currval before nextval), so only that message is the database's state.
 */
function connectionsRefused(code: string, message: string): boolean {
  return code === "55000" && /is not currently accepting connections/.test(message);
}

/** Node's socket errors and pg's own messages when the connection is gone or never came. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "connection terminated",
  "Client has encountered a connection error",
  "Client was closed and is not queryable",
  "Connection ended",
  "terminating connection",
];
const BUSY_MESSAGES = ["timeout exceeded when trying to connect"];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function classifyOne(error: unknown): DatabaseFault | undefined {
  if (error instanceof PoolAcquireTimeoutError) return "busy";
  if (error instanceof NoPrimaryError) return "unavailable";
  const code = codeOf(error);
  if (code !== undefined) {
    if (RETRYABLE_SQLSTATES.has(code) || stalePlan(error)) return "conflict";
    if (BUSY_SQLSTATES.has(code)) return "busy";
    if (unavailableState(code) || NETWORK_CODES.has(code)) return "unavailable";
  }
  const message = error instanceof Error ? error.message : "";
  if (code !== undefined && (storageRefused(code, message) || connectionsRefused(code, message))) {
    return "unavailable";
  }
  if (BUSY_MESSAGES.some((text) => message.includes(text))) return "busy";
  if (UNAVAILABLE_MESSAGES.some((text) => message.includes(text))) return "unavailable";
  return undefined;
}

/**
 * The fault a thrown value stands for, looking through `cause` and AggregateError (pg reports
 * a refused connection to a host with several addresses as one).
 */
export function databaseFault(error: unknown, depth = 0): DatabaseFault | undefined {
  if (error === null || typeof error !== "object" || depth > 4) return undefined;
  const own = classifyOne(error);
  if (own) return own;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const fault = databaseFault(inner, depth + 1);
      if (fault) return fault;
    }
  }
  return databaseFault((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * Whether running the whole transaction again may succeed (serialization failure, deadlock, a
 * prepared statement a migration made stale).
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (RETRYABLE_SQLSTATES.has(code) || stalePlan(error));
}
