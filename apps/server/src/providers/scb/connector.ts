/**
 * The SCB connector of a deployment, built from its configuration: one client (one access
 * token), the collection side behind the port (collection-port.ts: the bill payment QR, SCB's
 * confirmations and inquiry) and, when payouts go through SCB, its `Provider` (credit transfers).
 * The composition root builds it once per process through the registry (providers/registry.ts).
 */
import type { ScbConfig } from "../../config.ts";
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Connector } from "../port.ts";
import type { Provider } from "../provider.ts";
import { ScbClient } from "./client.ts";
import { ScbCollectionPort } from "./collection-port.ts";
import { recordInboundConfirmation } from "./inbound.ts";
import { SCB_PROVIDER_NAME } from "./names.ts";
import { ScbPayouts } from "./payouts.ts";
import { ScbProvider } from "./provider.ts";
import type { ScbRecorder } from "./recorder.ts";
import { UnreadableAnswers } from "./unreadable.ts";

export interface ScbConnector extends Connector {
  readonly callbackToken: string;
  client: ScbClient;
  collection: ScbCollectionPort;
  /** SCB's `Provider` (credit transfers); undefined when SATANG_PAYOUTS=manual. */
  payouts: Provider | undefined;
  /** The credit transfer calls; null when SATANG_PAYOUTS=manual: the payout desk pays. */
  transfers: ScbPayouts | null;
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

export interface ScbConnectorDeps {
  db: Db;
  /**
   * Real time (Deps.wallClock): token expiry, `channelDateTime` and the Bangkok dates SCB is
   * asked about are bank time, which a sandbox test clock must never move.
   */
  clock: Clock;
  recorder: ScbRecorder;
  onRecorderError?: (error: unknown) => void;
}

export function createScbConnector(config: ScbConfig, deps: ScbConnectorDeps): ScbConnector {
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
  const collection = new ScbCollectionPort(
    client,
    { billerId: config.billerId, ref2: config.ref2, ref3Prefix: config.ref3Prefix },
    deps.clock,
    (answer) => unreadable.report(answer),
  );
  const inbound = { recorder: deps.recorder, unreadable, onRecorderError: deps.onRecorderError };
  const transfers = config.payer
    ? new ScbPayouts(client, { payer: config.payer, inquiryDelayMs: config.inquiryDelayMs }, deps.clock)
    : null;
  const payouts = transfers
    ? new ScbProvider({
        db: deps.db,
        clock: deps.clock,
        collection,
        payouts: transfers,
        reconcileIntervalMs: config.reconcileIntervalMs,
      })
    : undefined;
  return {
    name: SCB_PROVIDER_NAME,
    callbackToken: config.callbackToken,
    client,
    collection,
    payouts,
    heldPayouts: payouts,
    transfers,
    confirmationPath: `/providers/${SCB_PROVIDER_NAME}/confirmations/${config.callbackToken}`,
    recorder: deps.recorder,
    clock: deps.clock,
    onRecorderError: deps.onRecorderError,
    unreadable,
    recordNotice: (notice) => recordInboundConfirmation(inbound, notice),
  };
}
