/**
 * The `simulated` connector (CONTRACT 15: SATANG_PROVIDER's sandbox default): the sandbox's
 * simulated bank behind the connector port, like any bank. Its notifications reach the service
 * at POST /providers/sandbox/callbacks (CONTRACT 9), signed, not through a confirmation token.
 */
import type { Connector } from "../port.ts";
import { SimulatedBank, type SimulatedBankContext } from "./bank.ts";
import { SimulatedCollection } from "./collection.ts";
import { SIMULATED_CONNECTOR_NAME } from "./names.ts";

export { SIMULATED_CONNECTOR_NAME } from "./names.ts";

export interface SimulatedConnector extends Connector {
  readonly collection: SimulatedCollection;
  readonly payouts: SimulatedBank;
  /** The bank the sandbox's simulate routes drive (the same object as `payouts`). */
  readonly bank: SimulatedBank;
}

export function createSimulatedConnector(deps: SimulatedBankContext): SimulatedConnector {
  const bank = new SimulatedBank(deps);
  return {
    name: SIMULATED_CONNECTOR_NAME,
    callbackToken: undefined,
    collection: new SimulatedCollection(bank, deps.wallClock),
    payouts: bank,
    bank,
  };
}
