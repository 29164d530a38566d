/**
 * The times a status change stamps on its record, so a record's times never go backwards and
 * its `updatedAt` strictly orders its changes (CONTRACT 10: after a sandbox clock reset nothing
 * moves backwards for a record; CONTRACT 12: webhook receivers compare `updatedAt`). A sandbox
 * merchant whose test clock was reset may act on a record made while its clock ran ahead, and
 * two changes may fall in one millisecond. The column names in the expressions are the row's
 * values before the UPDATE.
 */
import { sql } from "kysely";

/** A stamp of the change (paidAt, canceledAt, ...): the move's time, or the last change's if later. */
export const notBeforeLastChange = (at: Date) => sql<Date>`greatest(${at}::timestamptz, updated_at)`;

/**
 * The record's new `updatedAt`: the move's time, or a millisecond after its last change when
 * that is not earlier, so two events of one record never carry the same `updatedAt`.
 */
export const afterLastChange = (at: Date) =>
  sql<Date>`greatest(${at}::timestamptz, updated_at + interval '1 millisecond')`;
