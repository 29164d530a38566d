/**
 * Which provider a deployment uses. Sandbox: the simulated bank. Live: a real bank adapter,
 * which does not ship yet; until one is configured (Deps.provider), live has no payout provider
 * and the payout jobs leave pending withdraws where they are instead of guessing.
 */
import type { Deps } from "../deps.ts";
import { AppError } from "../lib/errors.ts";
import type { Provider } from "./provider.ts";
import { SandboxProvider } from "./sandbox.ts";

const sandboxes = new WeakMap<Deps, SandboxProvider>();

/** The simulated bank of this deployment; sandbox only. */
export function sandboxProvider(deps: Deps): SandboxProvider {
  if (deps.config.env !== "sandbox") {
    // Sandbox routes are not even registered in live; reaching this is a bug, answered as 404.
    throw new AppError("RESOURCE_NOT_FOUND", "Sandbox simulation is not available in live");
  }
  let provider = sandboxes.get(deps);
  if (!provider) {
    provider = new SandboxProvider(deps);
    sandboxes.set(deps, provider);
  }
  return provider;
}

/** The provider payouts go to, or undefined when the deployment has none. */
export function providerFor(deps: Deps): Provider | undefined {
  if (deps.provider) return deps.provider;
  return deps.config.env === "sandbox" ? sandboxProvider(deps) : undefined;
}
