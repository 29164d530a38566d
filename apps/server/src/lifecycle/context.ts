/**
 * What the lifecycle's orchestration uses: the database, the business clock, the settings that
 * decide who picks payouts up, and the providers the composition root (deps.ts) chose.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { Provider } from "../providers/provider.ts";
import type { SandboxBank } from "../providers/sandbox-bank.ts";

export interface LifecycleContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "env" | "payoutPickup" | "payouts" | "publicBaseUrl"> &
    Partial<Pick<Config, "payoutUndecidedAlertMs">>;
  /**
   * Where payouts go: the simulated bank in sandbox, the configured bank adapter in live, or
   * undefined when the deployment has none, and then the payout jobs leave pending withdraws
   * where they are instead of guessing.
   */
  provider: Provider | undefined;
  /**
   * The provider that holds a payout already sent, by the name its attempt records (which may
   * not be where new payouts go, after SATANG_PAYOUT_PROVIDER changed or with the manual desk);
   * undefined when no configured connector has that name. Absent: only `provider` holds any.
   */
  heldPayouts?: ((name: string) => Provider | undefined) | undefined;
  /** The sandbox's simulated bank, which the simulate routes drive; undefined in live. */
  simulator: SandboxBank | undefined;
  /**
   * The bound of one provider call (a send or a lookup); PROVIDER_CALL_TIMEOUT_MS unless a test
   * (the payout property test's bank model) shortens it.
   */
  payoutCallTimeoutMs?: number | undefined;
}

/** The simulated bank; sandbox only. */
export function simulatorOf(ctx: Pick<LifecycleContext, "simulator">): SandboxBank {
  // Sandbox routes are not even registered in live; reaching this is a bug, answered as 404.
  if (!ctx.simulator) throw new AppError("RESOURCE_NOT_FOUND", "Sandbox simulation is not available in live");
  return ctx.simulator;
}

/**
 * The provider a payout attempt recorded under `name` stays with: asked about, sent again and
 * fenced only through it, never through another connector that now takes new payouts.
 */
export function providerHolding(
  ctx: Pick<LifecycleContext, "provider" | "heldPayouts">,
  name: string,
): Provider | undefined {
  if (ctx.provider?.name === name) return ctx.provider;
  return ctx.heldPayouts?.(name);
}
