/**
 * Which connector takes a new live payment, and what it gives the payment (its QR): the first
 * connector of the deployment, in SATANG_PROVIDER's order, that collects the method. Made
 * payments stay with their connector, always (`payments.provider`). The composition root hands
 * the payments service this choice as its `LiveCollection` (payments/collector.ts).
 */
import type { PaymentMethod } from "../db/types.ts";
import { AppError } from "../lib/errors.ts";
import { newId, shortReference } from "../lib/ids.ts";
import { COLLECTION_REFERENCE_LENGTH, type LiveCollection } from "../payments/collector.ts";
import type { CollectionPort, Connector } from "../providers/port.ts";
import type { Connectors } from "../providers/registry.ts";

/** How long a caller waits before asking again when no connector could take a payment. */
const PROVIDER_RETRY_AFTER_S = 5;

/** The connector a new payment by `method` goes to, or undefined when none collects it. */
export function connectorFor(
  connectors: Connectors | undefined,
  method: PaymentMethod,
): (Connector & { collection: CollectionPort }) | undefined {
  const found = connectors?.all.find((c) => c.collection?.methods.includes(method));
  return found as (Connector & { collection: CollectionPort }) | undefined;
}

/** The payments service's view of the connectors: the first one that collects the method. */
export function liveCollectionOf(connectors: Connectors): LiveCollection | undefined {
  if (!connectors.all.some((c) => c.collection)) return undefined;
  return {
    takes: (method) => connectorFor(connectors, method) !== undefined,
    async instruct(input) {
      const connector = connectorFor(connectors, input.method);
      const unavailable = () =>
        new AppError("SERVICE_UNAVAILABLE", "The payment provider could not take the payment; retry later", {
          reason: "unavailable",
          retryAfter: PROVIDER_RETRY_AFTER_S,
        });
      if (!connector) throw unavailable();
      const paymentId = newId();
      const reference = shortReference(COLLECTION_REFERENCE_LENGTH);
      const instruction = await connector.collection.instruct({ ...input, paymentId, reference });
      if (instruction.status === "unavailable") throw unavailable();
      return {
        paymentId,
        reference,
        provider: connector.name,
        providerPaymentId: instruction.providerPaymentId,
        qrPayload: instruction.qrPayload,
      };
    },
  };
}
