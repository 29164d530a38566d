/**
 * The SCB connector of a deployment, built from its configuration: one client (one access
 * token), the collection side and, when payouts go through SCB, the payout side. The
 * composition root calls this once; nothing here is wired into the lifecycle yet.
 */
import type { ScbConfig } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import { ScbClient } from "./client.ts";
import { ScbCollection } from "./collection.ts";
import { ScbPayouts } from "./payouts.ts";
import type { ScbRecorder } from "./recorder.ts";
import { UnreadableAnswers } from "./unreadable.ts";

export interface ScbConnector {
  client: ScbClient;
  collection: ScbCollection;
  /** Null when SATANG_PAYOUTS=manual: withdraws are paid from the payout desk. */
  payouts: ScbPayouts | null;
  /** The path SCB posts payment confirmations to (CONTRACT 15). */
  confirmationPath: string;
  /** Where exchanges are recorded: the client's calls, and the confirmations SCB posts. */
  recorder: ScbRecorder;
  /** Real time, which stamps the records. */
  clock: Clock;
  /** Told when a record could not be kept; nothing else changes. */
  onRecorderError: ((error: unknown) => void) | undefined;
  /** Answers SCB gave that the connector could not read: marked, counted, logged. */
  unreadable: UnreadableAnswers;
}

export { SCB_PROVIDER_NAME } from "./names.ts";

/**
 * `clock` is real time (Deps.wallClock): token expiry, `channelDateTime` and the Bangkok dates
 * SCB is asked about are bank time, which a sandbox test clock must never move.
 */
export function createScbConnector(
  config: ScbConfig,
  deps: { clock: Clock; recorder: ScbRecorder; onRecorderError?: (error: unknown) => void },
): ScbConnector {
  const client = new ScbClient({
    baseUrl: config.apiBaseUrl,
    apiKey: config.apiKey,
    apiSecret: config.apiSecret,
    timeoutMs: config.requestTimeoutMs,
    tokenRefreshMarginMs: config.tokenRefreshMarginMs,
    clock: deps.clock,
    recorder: deps.recorder,
    onRecorderError: deps.onRecorderError,
  });
  const unreadable = new UnreadableAnswers(deps.recorder, deps.onRecorderError);
  return {
    client,
    collection: new ScbCollection(
      client,
      { billerId: config.billerId, ref2: config.ref2, ref3Prefix: config.ref3Prefix },
      deps.clock,
      (answer) => unreadable.report(answer),
    ),
    payouts: config.payer
      ? new ScbPayouts(client, { payer: config.payer, inquiryDelayMs: config.inquiryDelayMs }, deps.clock)
      : null,
    confirmationPath: `/providers/scb/confirmations/${config.callbackToken}`,
    recorder: deps.recorder,
    clock: deps.clock,
    onRecorderError: deps.onRecorderError,
    unreadable,
  };
}
