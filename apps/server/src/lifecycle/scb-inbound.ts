/**
 * Every payment confirmation SCB posts (with the right callback token) is recorded as an
 * exchange, direction `inbound`, beside the calls to SCB (docs/providers/scb.md, "What the
 * operator can see"): its headers that matter, its body redacted as the client redacts its
 * calls, and what the service answered, so a confirmation and the inquiry that checked it can be
 * read side by side. A post with a wrong token is not recorded: it is a stranger's, and would
 * let anyone write to the table.
 *
 * The record is written after the answer is decided and never changes it; a record that cannot
 * be kept is reported to the connector's `onRecorderError`.
 */
import type { IncomingHttpHeaders } from "node:http";
import { DATABASE_RETRY_AFTER_S, databaseFault } from "../db/faults.ts";
import { errorBody } from "../http/envelope.ts";
import { AppError, isAppError } from "../lib/errors.ts";
import type { ScbConnector } from "../providers/scb/connector.ts";
import { SCB_CONFIRMATION_BODY_MAX_BYTES } from "../providers/scb/limits.ts";
import { inboundConfirmation } from "../providers/scb/recorder.ts";
import type { ConfirmationAck } from "../providers/scb/types.ts";
import type { LifecycleContext } from "./context.ts";
import { receiveScbConfirmation } from "./scb-collection.ts";

export interface ReceivedConfirmation {
  rawBody: string;
  headers: IncomingHttpHeaders;
}

interface Answer {
  status: number;
  body: unknown;
  error: string | null;
}

/** What the service answered a confirmation that failed, as the error handler will answer it. */
function failureOf(error: unknown): Answer {
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

async function record(
  scb: ScbConnector,
  request: ReceivedConfirmation,
  started: { at: Date; ms: number },
  answer: Answer,
): Promise<void> {
  try {
    const exchange = inboundConfirmation({
      headers: request.headers,
      rawBody: request.rawBody,
      bodyMaxBytes: SCB_CONFIRMATION_BODY_MAX_BYTES,
      startedAt: started.at,
      durationMs: performance.now() - started.ms,
      responseStatus: answer.status,
      responseBody: answer.body,
      error: answer.error,
    });
    // A confirmation that could not be read is answered 400 (SCB sends it again) and counted
    // with the answers the connector could not read.
    const unreadable = answer.status === 400 ? answer.error : null;
    const id = await scb.recorder.record({ ...exchange, unreadable });
    if (unreadable !== null) {
      await scb.unreadable.report({
        operation: "payment_confirmation",
        exchangeId: typeof id === "string" ? id : null,
        reason: unreadable,
      });
    }
  } catch (error) {
    scb.onRecorderError?.(error);
  }
}

/** Receives a confirmation (scb-collection.ts) and records it with the answer it got. */
export async function receiveRecordedConfirmation(
  ctx: LifecycleContext,
  request: ReceivedConfirmation,
): Promise<ConfirmationAck> {
  const scb = ctx.scb;
  if (!scb) return receiveScbConfirmation(ctx, request.rawBody);
  const started = { at: scb.clock.now(), ms: performance.now() };
  let ack: ConfirmationAck;
  try {
    ack = await receiveScbConfirmation(ctx, request.rawBody);
  } catch (error) {
    await record(scb, request, started, failureOf(error));
    throw error;
  }
  await record(scb, request, started, { status: 200, body: ack, error: null });
  return ack;
}
