/**
 * A connector whose collection answers feed its circuit breaker (docs/providers/routing.md). The
 * router sees its own `instruct` calls; a connector that makes its QR locally (SCB's bill payment
 * QR) never fails one, so the breaker would never learn that its provider is down. The
 * collections flow's questions (`inquire`, `find`) are the calls that reach the provider: an
 * `unavailable` answer or a thrown error counts as a failure, any other answer as a success.
 * Nothing else about the connector changes: the wrapped object answers exactly as the connector.
 */
import type { CollectionPort, Connector } from "../port.ts";
import type { CircuitBreaker } from "./breaker.ts";

async function observing<T extends { status: string }>(
  breaker: CircuitBreaker,
  call: () => Promise<T>,
): Promise<T> {
  let answer: T;
  try {
    answer = await call();
  } catch (error) {
    breaker.observe(false);
    throw error;
  }
  breaker.observe(answer.status !== "unavailable");
  return answer;
}

function observedCollection(collection: CollectionPort, breaker: CircuitBreaker): CollectionPort {
  return new Proxy(collection, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "inquire") {
        return (...args: Parameters<CollectionPort["inquire"]>) =>
          observing(breaker, () => target.inquire(...args));
      }
      if (property === "find") {
        return (...args: Parameters<CollectionPort["find"]>) =>
          observing(breaker, () => target.find(...args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `connector` with its collection's answers feeding `breaker`. */
export function observedConnector<C extends Connector>(connector: C, breaker: CircuitBreaker): C {
  const collection = connector.collection;
  if (!collection) return connector;
  const wrapped = observedCollection(collection, breaker);
  return new Proxy(connector, {
    get(target, property) {
      if (property === "collection") return wrapped;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
