/**
 * An SCB connector pointed at a fresh local simulator, sharing one manual clock with it so that
 * token expiry and Bangkok dates move only when a test says so.
 */
import { ManualClock } from "../../../src/lib/clock.ts";
import { ScbClient } from "../../../src/providers/scb/client.ts";
import { ScbCollection } from "../../../src/providers/scb/collection.ts";
import { ScbPayouts } from "../../../src/providers/scb/payouts.ts";
import { MemoryRecorder } from "../../../src/providers/scb/recorder.ts";
import { ScbSimulator } from "./simulator.ts";

export const SCB_TEST = {
  apiKey: "l7testapikey0123456789abcdef",
  apiSecret: "test-api-secret-0123456789abcdef",
  billerId: "010556012345678",
  payer: { accountNumber: "1112223334", taxId: "0105560999999", corporateId: "SATANGCORP" },
  inquiryDelayMs: 2_700_000,
} as const;

/**
 * What a live start needs besides SECRET_KEY (CONTRACT 15: live names its connector): SCB,
 * pointed at a loopback port where nothing listens (a call to SCB fails at once), withdraws
 * paid from the manual payout desk. For tests of live behaviour that is not SCB's.
 */
export const LIVE_PROVIDER_ENV: Readonly<Record<string, string>> = {
  SATANG_PROVIDER: "scb",
  SCB_API_BASE_URL: "http://127.0.0.1:9",
  SCB_API_KEY: SCB_TEST.apiKey,
  SCB_API_SECRET: SCB_TEST.apiSecret,
  SCB_BILLER_ID: SCB_TEST.billerId,
  SCB_CALLBACK_TOKEN: "live_test_callback_token_0123456789abcdef",
  SATANG_PAYOUTS: "manual",
};

export interface ScbRig {
  clock: ManualClock;
  sim: ScbSimulator;
  recorder: MemoryRecorder;
  client: ScbClient;
  collection: ScbCollection;
  payouts: ScbPayouts;
  close(): Promise<void>;
}

export async function startScbRig(
  options: {
    timeoutMs?: number;
    tokenLifetimeS?: number;
    refreshMarginMs?: number;
    ref2?: string | null;
    ref3Prefix?: string | null;
  } = {},
): Promise<ScbRig> {
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 5, 0, 0));
  const sim = await ScbSimulator.start({
    apiKey: SCB_TEST.apiKey,
    apiSecret: SCB_TEST.apiSecret,
    billerId: SCB_TEST.billerId,
    tokenLifetimeS: options.tokenLifetimeS,
    // A held answer outlasts any client timeout; closing the simulator releases it.
    holdMs: 120_000,
    now: () => clock.now(),
  });
  const recorder = new MemoryRecorder();
  const client = new ScbClient({
    baseUrl: sim.url,
    apiKey: SCB_TEST.apiKey,
    apiSecret: SCB_TEST.apiSecret,
    // Generous, so that a loaded machine never turns a slow answer into a timeout.
    timeoutMs: options.timeoutMs ?? 20_000,
    tokenRefreshMarginMs: options.refreshMarginMs ?? 120_000,
    clock,
    recorder,
  });
  const collection = new ScbCollection(
    client,
    { billerId: SCB_TEST.billerId, ref2: options.ref2 ?? null, ref3Prefix: options.ref3Prefix ?? null },
    clock,
  );
  const payouts = new ScbPayouts(
    client,
    { payer: SCB_TEST.payer, inquiryDelayMs: SCB_TEST.inquiryDelayMs },
    clock,
  );
  return { clock, sim, recorder, client, collection, payouts, close: () => sim.close() };
}
