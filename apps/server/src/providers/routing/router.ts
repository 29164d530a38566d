/**
 * Which connector takes a new payment (CONTRACT 15, docs/providers/routing.md). The router holds
 * the deployment's collecting connectors in SATANG_PROVIDER's order, each with its circuit
 * breaker, and gives a new payment to the first one that
 *
 * 1. collects the payment's method,
 * 2. is not skipped by its breaker (closed, or half-open and this call is the probe), and
 * 3. answers `instructed` within CONNECTOR_INSTRUCT_TIMEOUT_MS.
 *
 * An `unavailable` answer, a timeout or a thrown error counts as a failure on that connector's
 * breaker and the next one is tried. A merchant pinned to a connector is given that one only.
 * When none takes it the caller makes no payment (503 PROVIDER_UNAVAILABLE). The router only
 * chooses for new payments: a payment or a transfer already made stays with the connector that
 * made it, which the lifecycle reaches by name through the registry.
 */
import type { PaymentMethod } from "../../db/types.ts";
import type { Clock } from "../../lib/clock.ts";
import { CONNECTOR_INSTRUCT_TIMEOUT_MS } from "../../lib/limits.ts";
import type { Connector, InstructInput, Instruction } from "../port.ts";
import { BREAKER_STATE_GAUGE, type BreakerOptions, type BreakerState, CircuitBreaker } from "./breaker.ts";
import { observedConnector } from "./observed.ts";
import type { SharedBreakerView } from "./shared.ts";

export type Instructed = Extract<Instruction, { status: "instructed" }>;

/** Why one connector did not take the payment. */
export interface Refusal {
  connector: string;
  reason: "method" | "breaker_open" | "unavailable" | "timeout" | "error" | "not_configured";
  detail: string | null;
}

export type Routing =
  | { status: "instructed"; connector: string; instruction: Instructed }
  | { status: "unavailable"; refusals: Refusal[] };

export interface RouterOptions {
  clock: Clock;
  /** The bound of one `instruct`; CONNECTOR_INSTRUCT_TIMEOUT_MS unless a test shortens it. */
  instructTimeoutMs?: number;
  breaker?: Omit<BreakerOptions, "clock" | "onChange">;
  /** The breakers other processes recorded (shared.ts); without it, this process's alone. */
  shared?: SharedBreakerView;
}

export interface ConnectorHealth {
  connector: string;
  state: BreakerState;
}

class InstructTimeout extends Error {}

export class Router {
  private readonly connectors: readonly Connector[];
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly instructTimeoutMs: number;
  private readonly shared: SharedBreakerView | undefined;

  constructor(connectors: readonly Connector[], options: RouterOptions) {
    this.connectors = connectors;
    this.instructTimeoutMs = options.instructTimeoutMs ?? CONNECTOR_INSTRUCT_TIMEOUT_MS;
    this.shared = options.shared;
    for (const connector of connectors) {
      if (this.breakers.has(connector.name)) throw new Error(`connector ${connector.name} is listed twice`);
      const shared = options.shared;
      this.breakers.set(
        connector.name,
        new CircuitBreaker({
          ...options.breaker,
          clock: options.clock,
          ...(shared ? { onChange: (open: boolean) => shared.record(connector.name, open) } : {}),
        }),
      );
    }
  }

  /**
   * Whether a new payment may be offered to the connector: its breaker lets it (closed, or the
   * half-open probe), and while that breaker is closed no other process recorded it open.
   */
  private mayOffer(name: string, breaker: CircuitBreaker | undefined): breaker is CircuitBreaker {
    if (!breaker) return false;
    if (breaker.state() === "closed" && this.shared?.isOpen(name)) return false;
    return breaker.tryAcquire();
  }

  /** A breaker's state, with another process's open record over a closed breaker of this one. */
  private stateOf(name: string): BreakerState {
    const state = this.breakers.get(name)?.state() ?? "closed";
    return state === "closed" && this.shared?.isOpen(name) ? "open" : state;
  }

  /** The connectors' names, in failover order. */
  /**
   * The connectors as the rest of the process uses them: the same objects, whose collection
   * answers (the reconciler's and the notices' questions) feed their breakers (observed.ts).
   */
  observed(): Connector[] {
    return this.connectors.map((connector) => {
      const breaker = this.breakers.get(connector.name);
      return breaker ? observedConnector(connector, breaker) : connector;
    });
  }

  names(): string[] {
    return this.connectors.map((connector) => connector.name);
  }

  /** A connector's breaker, for calls made elsewhere to feed (`observe`), or undefined. */
  breaker(name: string): CircuitBreaker | undefined {
    return this.breakers.get(name);
  }

  /** Each connector's breaker state, in failover order (metrics, /readyz's detail). */
  health(): ConnectorHealth[] {
    return this.connectors.map((connector) => ({
      connector: connector.name,
      state: this.stateOf(connector.name),
    }));
  }

  /** The longest one `instruct` can take: every connector tried, each to its timeout. */
  instructBoundMs(): number {
    return this.connectors.length * this.instructTimeoutMs;
  }

  /** Whether some connector (the pinned one, when pinned) collects this method at all. */
  collects(method: PaymentMethod, pinned: string | null): boolean {
    return this.candidates(pinned).some((connector) => connector.collection?.methods.includes(method));
  }

  /** Gives a new payment to the first connector that takes it; see the module's comment. */
  async instruct(input: InstructInput, pinned: string | null): Promise<Routing> {
    const refusals: Refusal[] = [];
    const candidates = this.candidates(pinned);
    if (pinned !== null && candidates.length === 0) {
      return {
        status: "unavailable",
        refusals: [{ connector: pinned, reason: "not_configured", detail: null }],
      };
    }
    for (const connector of candidates) {
      const collection = connector.collection;
      if (!collection?.methods.includes(input.method)) {
        refusals.push({ connector: connector.name, reason: "method", detail: null });
        continue;
      }
      const breaker = this.breakers.get(connector.name);
      if (!this.mayOffer(connector.name, breaker)) {
        refusals.push({ connector: connector.name, reason: "breaker_open", detail: null });
        continue;
      }
      const answer = await this.bounded(input, (signal) => collection.instruct({ ...input, signal }));
      if (answer.status === "instructed") {
        breaker.observe(true);
        return { status: "instructed", connector: connector.name, instruction: answer };
      }
      breaker.observe(false);
      refusals.push({ connector: connector.name, reason: answer.reason, detail: answer.detail });
    }
    return { status: "unavailable", refusals };
  }

  /**
   * Ends a canceled payment's charge at the connector that made it, within the instruct bound:
   * null when it did (or the connector has no charge to end), otherwise why not. Never throws.
   */
  async revoke(name: string, providerPaymentId: string): Promise<string | null> {
    const collection = this.connectors.find((connector) => connector.name === name)?.collection;
    if (!collection?.revoke) return null;
    // A connector found down is not waited for: the cancel answers at once.
    if (this.stateOf(name) === "open") return "the connector's breaker is open: not asked";
    try {
      await this.withinBound((signal) => collection.revoke!(providerPaymentId, signal));
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private candidates(pinned: string | null): readonly Connector[] {
    if (pinned === null) return this.connectors;
    return this.connectors.filter((connector) => connector.name === pinned);
  }

  /** One instruct within the timeout; the connector's signal is aborted when the bound passes. */
  private async bounded(
    input: InstructInput,
    call: (signal: AbortSignal) => Promise<Instruction>,
  ): Promise<Instructed | { status: "failed"; reason: "unavailable" | "timeout" | "error"; detail: string }> {
    try {
      const answer = await this.withinBound(call, input.signal);
      if (answer.status === "instructed") return answer;
      return { status: "failed", reason: "unavailable", detail: answer.error };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { status: "failed", reason: error instanceof InstructTimeout ? "timeout" : "error", detail };
    }
  }

  /**
   * `call` within the instruct bound: past it, the call's signal is aborted and the answer is an
   * InstructTimeout, whether or not the call heeds its signal. `outer` aborting aborts it too.
   */
  private async withinBound<T>(call: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new InstructTimeout(`no answer within ${this.instructTimeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, this.instructTimeoutMs);
    });
    try {
      return await Promise.race([call(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    }
  }
}

/** The breakers as the metrics and /readyz show them, with the gauge's value of each state. */
export function connectorBreakersOf(
  router: Router | undefined,
): Array<{ connector: string; state: BreakerState; gauge: number }> {
  return (router?.health() ?? []).map((health) => ({ ...health, gauge: BREAKER_STATE_GAUGE[health.state] }));
}
