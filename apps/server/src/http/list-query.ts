/**
 * The shared shape of list endpoints (CONTRACT 11): `page`, `limit`, `dateFrom`, `dateTo`,
 * `sortBy`, `sortOrder` in the query string, and the list envelope with `totalPages`.
 *
 * A list module composes its query schema from the properties below in the order of its
 * parameter table (that order decides which invalid parameter is reported first), adds its
 * own filters, and turns the validated query into `ListParams` with `parseListQuery`.
 * Invalid values are 400 VALIDATION_ERROR with `metadata.field`: the schema catches the shape,
 * `parseListQuery` catches dates that match the shape but name no day (2026-02-30), and reads
 * an instant outside LIST_DATE_MIN..LIST_DATE_MAX as the nearest of them (year 0 is no
 * timestamp PostgreSQL accepts, and no record is created outside them).
 * Every list, the operator's and the dashboard's included, takes `page` and `limit` from here.
 */
import { type Static, Type } from "typebox";
import { fieldError } from "../lib/errors.ts";
import { LIST_DATE_MAX, LIST_DATE_MIN, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../lib/limits.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { type Page, page } from "./envelope.ts";

export const SORT_ORDERS = ["asc", "desc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/**
 * ISO 8601 instants: a calendar date (read as midnight UTC), or a date and time, with an offset
 * or without one (then read as UTC, as every timestamp the API answers with is, never in the
 * server's own time zone).
 */
const ISO_INSTANT_PATTERN =
  "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])" +
  "(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,9})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?)?$";

/** A date and time written without an offset (read as UTC). */
const WITHOUT_OFFSET = /T[0-9:.]+$/;

export const pageProperty = Type.Integer({
  minimum: 1,
  // The largest page a JSON number holds exactly: the answer echoes the page asked for, and a
  // larger one would come back as another number (or, past a double's range, as none).
  maximum: Number.MAX_SAFE_INTEGER,
  default: 1,
  description: "Page number, from 1 to 9007199254740991. A page beyond the last is empty.",
});

export const limitProperty = Type.Integer({
  minimum: 1,
  maximum: PAGE_SIZE_MAX,
  default: PAGE_SIZE_DEFAULT,
  description: `Page size, 1 to ${PAGE_SIZE_MAX}.`,
});

export const dateFromProperty = Type.String({
  pattern: ISO_INSTANT_PATTERN,
  "x-error-message": "must be an ISO 8601 date or date-time, such as 2026-01-15 or 2026-01-15T00:00:00.000Z",
  // No example value: Swagger UI fills "Try it out" with a parameter's example, and a date filter
  // filled in unasked narrows the list to one old day, which then looks empty.
  description:
    "ISO 8601 instant, such as 2026-01-15 or 2026-01-15T00:00:00.000Z (a date or a time without an offset is UTC); records created at or after it (inclusive).",
});

export const dateToProperty = Type.String({
  pattern: ISO_INSTANT_PATTERN,
  "x-error-message": "must be an ISO 8601 date or date-time, such as 2026-01-15 or 2026-01-15T00:00:00.000Z",
  description:
    "ISO 8601 instant, such as 2026-01-16 or 2026-01-16T00:00:00.000Z (a date or a time without an offset is UTC); records created before it (exclusive).",
});

/** The paging of a list without other parameters: `{ page, limit }`, both optional. */
export const pageQueryProperties = {
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
};

export const PageQuery = Type.Object(pageQueryProperties, { additionalProperties: false });
export type PageQuery = Static<typeof PageQuery>;

/** A closed list of strings, published as `{ type: "string", enum: [...] }`. */
export function stringEnum<const S extends string>(
  values: readonly S[],
  options: Record<string, unknown> = {},
) {
  return Type.Enum([...values], { type: "string", ...options });
}

export function sortByProperty<const S extends string>(fields: readonly S[], fallback: S) {
  return stringEnum(fields, {
    default: fallback,
    description: `Sort field; default ${fallback}. Ties are broken by id.`,
  });
}

export const sortOrderProperty = stringEnum(SORT_ORDERS, {
  default: "desc",
  description: "asc or desc (default desc). Empty timestamps sort last either way.",
});

/** The list parameters as the query schema hands them over (defaults already applied). */
interface ListQueryInput<S extends string> {
  page?: number;
  limit?: number;
  dateFrom?: string;
  dateTo?: string;
  sortBy?: S;
  sortOrder?: SortOrder;
}

export interface ListParams<S extends string> {
  page: number;
  limit: number;
  offset: number;
  dateFrom: Date | undefined;
  dateTo: Date | undefined;
  sortBy: S;
  sortOrder: SortOrder;
}

const DATE_MIN_MS = Date.parse(LIST_DATE_MIN);
const DATE_MAX_MS = Date.parse(LIST_DATE_MAX);

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an instant that already matched ISO_INSTANT_PATTERN; undefined when no such day. An
 * instant before LIST_DATE_MIN or after LIST_DATE_MAX is read as that bound: every record is
 * created between them, so `createdAt >= bound` and `createdAt < bound` select what they would
 * against the instant as written.
 *
 * A Date holds whole milliseconds and `Date.parse` drops the digits past them, which would make
 * `dateFrom=…33.3691Z` keep a record created at 33.369. A bound with a fraction past the
 * millisecond is rounded up to the next whole millisecond instead: every stored createdAt is a
 * whole millisecond, so `createdAt >= bound` and `createdAt < bound` then answer exactly as they
 * would against the instant as written, for dateFrom and dateTo alike.
 */
function parseInstant(written: string): Date | undefined {
  // Date.parse reads a date-time without an offset in the process's time zone: made UTC here.
  const text = WITHOUT_OFFSET.test(written) ? `${written}Z` : written;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (day > daysInMonth(year, month)) return undefined;
  const truncated = Date.parse(text);
  if (Number.isNaN(truncated)) return undefined;
  const pastMillisecond = /\.[0-9]{3}([0-9]+)/.exec(text)?.[1] ?? "";
  return new Date(/[1-9]/.test(pastMillisecond) ? truncated + 1 : truncated);
}

/** The instant as written (not yet brought within LIST_DATE_MIN..LIST_DATE_MAX), or a 400. */
export function writtenInstantOf(text: string | undefined, field: string): Date | undefined {
  if (text === undefined) return undefined;
  const at = parseInstant(text);
  if (!at) {
    throw fieldError("VALIDATION_ERROR", field, `${field} is not a valid ISO 8601 date or time: no such day`);
  }
  return at;
}

/** An instant outside LIST_DATE_MIN..LIST_DATE_MAX as the nearest of them (parseInstant's note). */
export function withinListDates(at: Date): Date {
  return new Date(Math.min(Math.max(at.getTime(), DATE_MIN_MS), DATE_MAX_MS));
}

function instantOf(text: string | undefined, field: string): Date | undefined {
  const at = writtenInstantOf(text, field);
  return at && withinListDates(at);
}

export function parseListQuery<S extends string>(query: ListQueryInput<S>, defaultSort: S): ListParams<S> {
  const pageNumber = query.page ?? 1;
  const limit = query.limit ?? PAGE_SIZE_DEFAULT;
  return {
    page: pageNumber,
    limit,
    offset: pageOffset(pageNumber, limit),
    dateFrom: instantOf(query.dateFrom, "dateFrom"),
    dateTo: instantOf(query.dateTo, "dateTo"),
    sortBy: query.sortBy ?? defaultSort,
    sortOrder: query.sortOrder ?? "desc",
  };
}

/** The list envelope's `data` for one page: `{ data, total, page, limit, totalPages }`. */
export function listPage<T>(
  records: T[],
  total: number,
  params: Pick<ListParams<string>, "page" | "limit">,
): Page<T> {
  return page(records, total, params.page, params.limit);
}

/** TypeBox schema of the list envelope's `data`, for response schemas and OpenAPI. */
export function pageSchema<T extends Parameters<typeof Type.Array>[0]>(record: T) {
  return Type.Object({
    data: Type.Array(record),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1 }),
    totalPages: Type.Integer({ minimum: 0 }),
  });
}
