/** Connectors made up for the router's tests: each answers its instructs as it is told. */
import type { PaymentMethod } from "../../src/db/types.ts";
import type { CollectionPort, Connector, InstructInput, Instruction } from "../../src/providers/port.ts";

export type Behaviour = "instructed" | "unavailable" | "hang" | "throw";

export interface Fake extends Connector {
  calls: InstructInput[];
  behaviour: Behaviour;
}

export function fake(
  name: string,
  methods: PaymentMethod[] = ["promptpay"],
  behaviour: Behaviour = "instructed",
): Fake {
  const self: Fake = {
    name,
    callbackToken: undefined,
    payouts: undefined,
    calls: [],
    behaviour,
    collection: {
      methods,
      instruct: async (input: InstructInput): Promise<Instruction> => {
        self.calls.push(input);
        if (self.behaviour === "unavailable") return { status: "unavailable", error: `${name} is down` };
        if (self.behaviour === "throw") throw new Error(`${name} broke`);
        if (self.behaviour === "hang") {
          return new Promise((resolve) => {
            input.signal?.addEventListener("abort", () =>
              resolve({ status: "unavailable", error: "aborted" }),
            );
          });
        }
        return {
          status: "instructed",
          providerPaymentId: `${name}_1`,
          qrPayload: `qr:${name}`,
          qrImageUrl: null,
        };
      },
      readNotice: () => ({ status: "malformed", error: "unused" }),
      inquire: async () => ({ status: "malformed", error: "unused" }),
      find: async () => ({ status: "unavailable", error: "unused" }),
    } satisfies CollectionPort,
  };
  return self;
}
