/**
 * One page of SCB's recorded exchanges for the operator (exchanges.ts), with its filters. Apart
 * from the transfer store (store.ts) so that what builds the connector does not load the list
 * machinery.
 */
import type { Db } from "../../db/handles.ts";
import { selectPage } from "../../db/pages.ts";
import { scbTables } from "./db.ts";
import type { ExchangeRow } from "./store.ts";
import type { ScbExchangeDirection } from "./tables.ts";

/** What the operator's list of exchanges narrows by; every given filter must hold. */
export interface ExchangeFilters {
  direction?: ScbExchangeDirection | undefined;
  operation?: string | undefined;
  paymentId?: string | undefined;
  withdrawId?: string | undefined;
  /** A ref1, partner transaction id, tokenizer id or transRef: exchanges naming it. */
  reference?: string | undefined;
  /** Only the answers the connector could not read (true), or only the others (false). */
  unreadable?: boolean | undefined;
  /** started_at in [dateFrom, dateTo). */
  dateFrom?: Date | undefined;
  dateTo?: Date | undefined;
}

/** One page of exchanges, newest first (ties by id), and how many match. */
export function listExchanges(
  db: Db,
  filters: ExchangeFilters,
  window: { offset: number; limit: number },
): Promise<{ rows: ExchangeRow[]; total: number }> {
  let query = scbTables(db).selectFrom("scb_exchanges");
  if (filters.direction !== undefined) query = query.where("direction", "=", filters.direction);
  if (filters.operation !== undefined) query = query.where("operation", "=", filters.operation);
  if (filters.paymentId !== undefined) query = query.where("payment_id", "=", filters.paymentId);
  if (filters.withdrawId !== undefined) query = query.where("withdraw_id", "=", filters.withdrawId);
  const reference = filters.reference;
  if (reference !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb("ref1", "=", reference),
        eb("partner_transaction_id", "=", reference),
        eb("tokenizer_id", "=", reference),
        eb("trans_ref", "=", reference),
      ]),
    );
  }
  if (filters.unreadable !== undefined)
    query = query.where("unreadable", filters.unreadable ? "is not" : "is", null);
  if (filters.dateFrom !== undefined) query = query.where("started_at", ">=", filters.dateFrom);
  if (filters.dateTo !== undefined) query = query.where("started_at", "<", filters.dateTo);
  return selectPage(query, window, { column: "started_at", direction: "desc" });
}
