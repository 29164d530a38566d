/**
 * A notice a connector's provider posted to `POST /providers/{name}/confirmations/{token}`
 * (notice-routes.ts): read by the connector (`readNotice`), recorded and checked by the
 * collections flow (collections.ts), answered with the connector's acknowledgment. A body the
 * connector cannot read (or, for a connector that signs its notices, a forged one) answers
 * 400 VALIDATION_ERROR and credits nothing; a notice about something that is not a payment is
 * acknowledged and left alone. The answer is the acknowledgment also when the provider could not
 * be asked (the reconciler checks it again) and for a re-send (checked once).
 *
 * The token keeps strangers out (a wrong one answers 404, compared in constant time); it is not
 * what makes a payment count: only the connector's `inquire` can. Each notice with the right
 * token is offered to the connector's `recordNotice`, with the answer it got.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { DATABASE_RETRY_AFTER_S, databaseFault } from "../db/faults.ts";
import { errorBody } from "../http/envelope.ts";
import { AppError, isAppError } from "../lib/errors.ts";
import type { AnsweredNotice, Connector } from "../providers/port.ts";
import { type CollectionsContext, type Collector, receiveClaim } from "./collections.ts";

export interface ReceivedNotice {
  rawBody: string;
  headers: IncomingHttpHeaders;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * The collecting connector whose notices come to `name` with this token: constant time over the
 * token, whatever the lengths; undefined for an unknown name or a wrong token.
 */
export function noticeConnector(
  ctx: Pick<CollectionsContext, "connectors">,
  name: string,
  token: string,
): Collector | undefined {
  const connector = ctx.connectors.byName(name);
  const expected = connector?.callbackToken;
  // The comparison runs for an unknown name too, so its answer takes the same time.
  const matches = timingSafeEqual(digest(expected ?? ""), digest(token));
  if (!connector || !expected || !matches || !connector.collection) return undefined;
  return connector as Collector;
}

/** What the service answered a notice that failed, as the error handler will answer it. */
function failureOf(error: unknown): AnsweredNotice["answer"] {
  if (isAppError(error)) return { status: error.status, body: errorBody(error), error: error.message };
  const fault = databaseFault(error);
  const known = fault
    ? new AppError("SERVICE_UNAVAILABLE", "The database is not reachable; retry later", {
        reason: fault,
        retryAfter: DATABASE_RETRY_AFTER_S[fault],
      })
    : new AppError("INTERNAL_ERROR", "Internal server error");
  return { status: known.status, body: errorBody(known), error: known.message };
}

async function readAndAct(ctx: CollectionsContext, connector: Collector, notice: ReceivedNotice) {
  const reading = await connector.collection.readNotice(notice);
  if (reading.status === "malformed") {
    throw new AppError("VALIDATION_ERROR", `Not a payment confirmation: ${reading.error}`);
  }
  if (reading.status === "claim") await receiveClaim(ctx, connector, reading.claim);
  return reading.acknowledgment;
}

/** Receives one notice for `connector` and offers it, with its answer, to the connector's record. */
export async function receiveNotice(
  ctx: CollectionsContext,
  connector: Collector,
  notice: ReceivedNotice,
): Promise<unknown> {
  const startedAt = ctx.wallClock.now();
  const startedMs = performance.now();
  const record = async (answer: AnsweredNotice["answer"]) => {
    if (!connector.recordNotice) return;
    await connector.recordNotice({
      headers: notice.headers,
      rawBody: notice.rawBody,
      startedAt,
      durationMs: performance.now() - startedMs,
      answer,
    });
  };
  let acknowledgment: unknown;
  try {
    acknowledgment = await readAndAct(ctx, connector, notice);
  } catch (error) {
    await record(failureOf(error));
    throw error;
  }
  await record({ status: 200, body: acknowledgment, error: null });
  return acknowledgment;
}

/** Whether any connector of the deployment takes notices. */
export function takesNotices(connectors: readonly Connector[]): boolean {
  return connectors.some((c) => c.collection !== undefined && c.callbackToken !== undefined);
}
