/**
 * Hot statements built by Kysely once, not on every request. Building a query (the builder's
 * immutable nodes) and compiling it to SQL cost more CPU than the rest of a create's database
 * call; for a statement whose shape never changes only its parameters do.
 *
 * `cachedStatement(keys, build)` calls `build` once, on the first execution, with a marker
 * object in place of each named parameter; Kysely passes every value it does not recognise as
 * an expression through as a bind parameter, so the compiled query's parameters show where each
 * marker went. Each execution then sends the same SQL text with the markers replaced by that
 * call's values (constants the builder was given stay as they were).
 *
 * What the cached text skips is the per-build work and the plugins' `transformQuery`. The one
 * plugin of a store (db/changes.ts) only announces UPDATEs and DELETEs of watched tables, so
 * only SELECT and INSERT statements may be cached (a raw statement only when it is a SELECT that
 * names no writing command): `cachedStatement` refuses any other. Every
 * store compiles with Kysely's PostgreSQL compiler, so one text serves PostgreSQL and PGlite.
 */
import { type Compilable, type CompiledQuery, createQueryId, type QueryResult } from "kysely";
import type { Db } from "./handles.ts";

const MARKER = Symbol("cached statement parameter");

interface Marker {
  readonly [MARKER]: string;
}

function isMarker(value: unknown): value is Marker {
  return typeof value === "object" && value !== null && MARKER in value;
}

/**
 * Where a compiled parameter comes from: a named parameter of the call (with its place in the
 * statement's list of names), or a constant.
 */
type Slot<P> = { key: keyof P; index: number } | { constant: unknown };

interface Template<P> {
  compiled: CompiledQuery;
  slots: Slot<P>[];
}

const CACHEABLE_KINDS = new Set(["SelectQueryNode", "InsertQueryNode"]);

/** A raw statement that only reads: a SELECT that names no writing command anywhere. */
function isReadOnlyRaw(compiled: CompiledQuery): boolean {
  const text = compiled.sql.replace(/\/\*.*?\*\//gs, "").trim();
  return /^select\b/i.test(text) && !/\b(insert|update|delete|truncate|merge)\b/i.test(text);
}

/** A statement whose shape is fixed: built and compiled once, executed with new parameters. */
export interface CachedStatement<P, R> {
  /** The statement with `params`, compiled, for sending with others (db/pg-driver.ts). */
  compile(db: Db, params: P): CompiledQuery<R>;
  /**
   * The same with the parameters' values in the order of the names the statement was made with:
   * for a statement of hundreds of parameters (a group's), which a record of names would cost
   * more to build than the statement's text.
   */
  compileValues(db: Db, values: readonly unknown[]): CompiledQuery<R>;
  execute(db: Db, params: P): Promise<QueryResult<R>>;
  /** The first row, or undefined. */
  takeFirst(db: Db, params: P): Promise<R | undefined>;
}

export function cachedStatement<P extends Record<string, unknown>, R>(
  keys: readonly (keyof P & string)[],
  build: (db: Db, params: P) => Compilable<R>,
): CachedStatement<P, R> {
  let template: Template<P> | undefined;
  const compile = (db: Db): Template<P> => {
    const markers = Object.fromEntries(keys.map((key) => [key, { [MARKER]: key }])) as unknown as P;
    const compiled = build(db, markers).compile();
    if (
      !CACHEABLE_KINDS.has(compiled.query.kind) &&
      !(compiled.query.kind === "RawNode" && isReadOnlyRaw(compiled))
    ) {
      throw new Error(`only SELECT and INSERT statements are cached, not ${compiled.query.kind}`);
    }
    const places = new Map<unknown, number>(keys.map((key, index) => [key, index]));
    const slots = compiled.parameters.map((value): Slot<P> => {
      if (!isMarker(value)) return { constant: value };
      const key = value[MARKER];
      return { key: key as keyof P, index: places.get(key) as number };
    });
    const used = new Set(slots.flatMap((slot) => ("key" in slot ? [slot.key] : [])));
    const unused = keys.filter((key) => !used.has(key));
    if (unused.length > 0) throw new Error(`cached statement parameters never used: ${unused.join(", ")}`);
    return { compiled, slots };
  };
  const compiledWith = (db: Db, params: P): CompiledQuery<R> => {
    template ??= compile(db);
    const parameters = template.slots.map((slot) => ("key" in slot ? params[slot.key] : slot.constant));
    return { ...template.compiled, parameters, queryId: createQueryId() } as CompiledQuery<R>;
  };
  const compiledWithValues = (db: Db, values: readonly unknown[]): CompiledQuery<R> => {
    if (values.length !== keys.length)
      throw new Error(`${keys.length} values expected, not ${values.length}`);
    template ??= compile(db);
    const parameters = template.slots.map((slot) => ("key" in slot ? values[slot.index] : slot.constant));
    return { ...template.compiled, parameters, queryId: createQueryId() } as CompiledQuery<R>;
  };
  const execute = async (db: Db, params: P): Promise<QueryResult<R>> =>
    db.executeQuery(compiledWith(db, params));
  return {
    compile: compiledWith,
    compileValues: compiledWithValues,
    execute,
    takeFirst: async (db, params) => (await execute(db, params)).rows[0],
  };
}
