/**
 * A live-mode service with Opn Payments among its connectors, pointed at a local Opn simulator:
 * the service listens on a local port so the simulator can post its webhooks to
 * `/providers/opn/confirmations/{OPN_CALLBACK_TOKEN}`. `env` adds to (or overrides) the
 * settings, e.g. `SATANG_PROVIDER: "scb,opn"` with SCB's settings for a failover order.
 */
import type { Deps } from "../../../src/deps.ts";
import { type Credentials, startService, type TestService } from "../harness.ts";
import { OpnSimulator } from "./simulator.ts";

export const OPN_CALLBACK_TOKEN = "opn_cb_token_0123456789abcdefghijklmnopqrst";
export const OPN_SECRET_KEY = "skey_test_satangsimulator";

export interface LiveOpn {
  svc: TestService;
  sim: OpnSimulator;
  merchant: Credentials;
  /** Another process's dependencies over the same database (a second worker). */
  otherProcess(): Deps;
  close(): Promise<void>;
}

export function opnEnv(sim: OpnSimulator): Record<string, string> {
  return {
    OPN_API_BASE_URL: sim.url,
    OPN_SECRET_KEY,
    OPN_CALLBACK_TOKEN,
    // Generous, so a loaded machine never turns a slow answer into a timeout.
    OPN_TIMEOUT_MS: "20000",
  };
}

export async function startLiveOpn(
  options: { env?: Record<string, string>; beforeStart?: (sim: OpnSimulator) => void } = {},
): Promise<LiveOpn> {
  const sim = await OpnSimulator.start({ secretKey: OPN_SECRET_KEY });
  options.beforeStart?.(sim);
  const svc = await startService({
    env: {
      SATANG_ENV: "live",
      SECRET_KEY: "cd".repeat(32),
      SATANG_PROVIDER: "opn",
      ...opnEnv(sim),
      ...options.env,
    },
  });
  const address = await svc.app.listen({ host: "127.0.0.1", port: 0 });
  sim.webhookUrl = `${address}/providers/opn/confirmations/${OPN_CALLBACK_TOKEN}`;
  const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
  return {
    svc,
    sim,
    merchant,
    otherProcess: () => svc.depsWith({}),
    async close() {
      await sim.close();
      await svc.close();
    },
  };
}
