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
import type { AnsweredNotice } from "../port.ts";
import { SCB_CONFIRMATION_BODY_MAX_BYTES } from "./limits.ts";
import { inboundConfirmation, type ScbRecorder } from "./recorder.ts";
import type { UnreadableAnswers } from "./unreadable.ts";

export async function recordInboundConfirmation(
  scb: {
    recorder: ScbRecorder;
    unreadable: UnreadableAnswers;
    onRecorderError: ((error: unknown) => void) | undefined;
  },
  notice: AnsweredNotice,
): Promise<void> {
  try {
    const exchange = inboundConfirmation({
      headers: notice.headers as Readonly<Record<string, string | string[] | undefined>>,
      rawBody: notice.rawBody,
      bodyMaxBytes: SCB_CONFIRMATION_BODY_MAX_BYTES,
      startedAt: notice.startedAt,
      durationMs: notice.durationMs,
      responseStatus: notice.answer.status,
      responseBody: notice.answer.body,
      error: notice.answer.error,
    });
    // A confirmation that could not be read is answered 400 (SCB sends it again) and counted
    // with the answers the connector could not read.
    const unreadable = notice.answer.status === 400 ? notice.answer.error : null;
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
