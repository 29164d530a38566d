/**
 * A live-mode service with SATANG_PROVIDER=scb pointed at a local SCB simulator: the service
 * listens on a local port so the simulator can post payment confirmations to it, and one
 * manual clock is the bank's time and the service's real time (`advance` moves it together with
 * the business clock), so token expiry, inquiry delays and reconcile intervals move only when a
 * test says so.
 */
import assert from "node:assert/strict";
import type { Deps } from "../../../src/deps.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { PROVIDER_CALL_TIMEOUT_MS } from "../../../src/lib/limits.ts";
import { SCB_CONFIRM_SETTLES_MS } from "../../../src/providers/scb/provider.ts";
import { type Credentials, startService, type TestService } from "../harness.ts";
import { SCB_TEST } from "./setup.ts";
import { ScbSimulator } from "./simulator.ts";

export const CALLBACK_TOKEN = "cb_token_0123456789abcdefghijklmnopqrstuv";
export const RECONCILE_INTERVAL_S = 2;
export const INQUIRY_DELAY_S = 5;

/**
 * How long after its confirm was sent an SCB transfer can no longer be on its way: the send's
 * bound, then SCB's 45 minutes ("please inquiry payment status after 45 minutes"), whatever
 * SCB_INQUIRY_DELAY_S (5 s here) says.
 */
export const CONFIRM_SETTLED_MS =
  PROVIDER_CALL_TIMEOUT_MS + Math.max(INQUIRY_DELAY_S * 1000, SCB_CONFIRM_SETTLES_MS);

/**
 * The operator's "failed" sent to `path` (a withdraw's or a refund's resolve route, its confirm
 * sent just now) 1 ms before CONFIRM_SETTLED_MS and at it; `between` runs after the first answer,
 * to check that nothing moved. Asserts the refusal (409 payout_in_flight) and the success.
 */
export async function resolveFailedAcrossSettlePoint(
  live: LiveScb,
  path: string,
  between: () => Promise<void>,
): Promise<{ resolved: { body: any } }> {
  live.advance(CONFIRM_SETTLED_MS - 1);
  const fail = { outcome: "failed", reason: "SCB support: the transfer was rejected" };
  const early = await live.svc.admin("POST", path, fail);
  assert.equal(early.status, 409, JSON.stringify(early.body));
  assert.equal(early.body.error.code, "STATE_CONFLICT");
  assert.equal(early.body.error.metadata.reason, "payout_in_flight");
  await between();
  live.advance(1);
  const resolved = await live.svc.admin("POST", path, fail);
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
  return { resolved };
}

export interface LiveScb {
  svc: TestService;
  sim: ScbSimulator;
  /** The bank's clock and the service's real time. */
  bank: ManualClock;
  merchant: Credentials;
  /** Moves the business clock and the bank's clock forward together. */
  advance(ms: number): void;
  /** Another process's dependencies over the same database and clocks (a second worker). */
  otherProcess(): Deps;
  close(): Promise<void>;
}

export async function startLiveScb(
  options: {
    timeoutMs?: number;
    tokenLifetimeS?: number;
    env?: Record<string, string>;
    /** SCB_REF3_PREFIX of the service, and the prefix the simulator routes confirmations by. */
    ref3Prefix?: string;
  } = {},
): Promise<LiveScb> {
  const bank = new ManualClock(Date.now());
  const sim = await ScbSimulator.start({
    apiKey: SCB_TEST.apiKey,
    apiSecret: SCB_TEST.apiSecret,
    billerId: SCB_TEST.billerId,
    tokenLifetimeS: options.tokenLifetimeS,
    // A held answer outlasts any client timeout; closing the simulator releases it.
    holdMs: 120_000,
    now: () => bank.now(),
    ref3Prefix: options.ref3Prefix,
  });
  // Exchanges go to the `scb_exchanges` table, as in a deployment, where the operator API reads them.
  const svc = await startService({
    env: {
      SATANG_ENV: "live",
      SECRET_KEY: "ab".repeat(32),
      SATANG_PROVIDER: "scb",
      SCB_API_BASE_URL: sim.url,
      SCB_API_KEY: SCB_TEST.apiKey,
      SCB_API_SECRET: SCB_TEST.apiSecret,
      SCB_BILLER_ID: SCB_TEST.billerId,
      SCB_CALLBACK_TOKEN: CALLBACK_TOKEN,
      SCB_PAYER_ACCOUNT_NUMBER: SCB_TEST.payer.accountNumber,
      SCB_PAYER_TAX_ID: SCB_TEST.payer.taxId,
      SCB_CORPORATE_ID: SCB_TEST.payer.corporateId,
      SCB_RECONCILE_INTERVAL_S: String(RECONCILE_INTERVAL_S),
      SCB_INQUIRY_DELAY_S: String(INQUIRY_DELAY_S),
      // Generous by default, so a loaded machine never turns a slow answer into a timeout.
      SCB_TIMEOUT_MS: String(options.timeoutMs ?? 20_000),
      ...(options.ref3Prefix === undefined ? {} : { SCB_REF3_PREFIX: options.ref3Prefix }),
      ...options.env,
    },
    deps: { wallClock: bank },
  });
  const address = await svc.app.listen({ host: "127.0.0.1", port: 0 });
  sim.callbackUrl = `${address}/providers/scb/confirmations/${CALLBACK_TOKEN}`;
  const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
  return {
    svc,
    sim,
    bank,
    merchant,
    advance(ms) {
      svc.clock.advance(ms);
      bank.advance(ms);
    },
    otherProcess: () => svc.depsWith({}),
    async close() {
      await sim.close();
      await svc.close();
    },
  };
}
