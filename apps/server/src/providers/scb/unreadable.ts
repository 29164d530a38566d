/**
 * Answers from SCB the connector could not read (docs/providers/scb.md, "Answers that cannot be
 * read"). A row without a readable transaction id, amount or time, or a body that is not JSON,
 * would otherwise read as "not paid": each one is marked on its exchange record (the operator's
 * list: GET /admin/v1/providers/scb/exchanges?unreadable=true), counted by the metric
 * `satang_scb_unreadable_answers` (read from those records), and logged as an error with the
 * exchange id.
 */
import type { UnreadableAnswer } from "./collection.ts";
import type { ScbRecorder } from "./recorder.ts";

export interface UnreadableLogger {
  error(details: object, message: string): void;
}

export class UnreadableAnswers {
  private log: UnreadableLogger | undefined;

  constructor(
    private readonly recorder: ScbRecorder,
    private readonly onRecorderError?: (error: unknown) => void,
  ) {}

  /** Where the error lines go: the process's logger, attached once the process has one. */
  attach(log: UnreadableLogger): void {
    this.log = log;
  }

  async report(answer: UnreadableAnswer): Promise<void> {
    this.log?.error(
      { scbExchangeId: answer.exchangeId, operation: answer.operation, reason: answer.reason },
      "SCB answer could not be read",
    );
    if (answer.exchangeId === null || !this.recorder.markUnreadable) return;
    try {
      await this.recorder.markUnreadable(answer.exchangeId, answer.reason);
    } catch (error) {
      this.onRecorderError?.(error);
    }
  }
}
