/**
 * How many deliveries one endpoint may have in flight: a limit per endpoint that adapts to how
 * the receiver answers (additive increase, multiplicative decrease, as TCP does with its
 * window).
 *
 * - A fast success (2xx within `fastMs`) while the endpoint uses at least half its limit
 *   (the most it had in flight since it was last idle) raises the limit: by one per success
 *   until the endpoint first shows trouble (slow start), then by one per limit's worth of
 *   successes (about one per round).
 * - A sign of overload (a timeout, a 5xx, a 429, a refused or reset connection) halves the
 *   limit, at most once per round: the sends that started before a decrease and fail after it
 *   do not halve it again, so one burst of failures counts once.
 * - Other answers (a 4xx, a redirect, a refused URL, a DNS or TLS failure) say nothing about
 *   load and leave the limit alone; so does a slow success.
 *
 * The limit stays within `min` and `max`, so a hanging receiver holds at most `max` of the
 * process's slots for one timeout, then fewer and fewer, and other endpoints keep theirs. The
 * state belongs to one dispatcher (one process); the claim (events/store.ts) counts the leases
 * every process holds against it.
 */

export interface ConcurrencyBounds {
  min: number;
  initial: number;
  max: number;
  /** A success slower than this does not raise the limit. */
  fastMs: number;
}

/** What one attempt said about the receiver's load. */
export type LoadSignal = "fast" | "slow" | "overloaded" | "neutral";

interface EndpointState {
  limit: number;
  slowStart: boolean;
  /** Fast successes counted toward the next step after slow start. */
  credits: number;
  inFlight: number;
  /** The most sends in flight at once since the endpoint was last idle. */
  peak: number;
  /** Sends started up to this ticket were already in flight at the last decrease. */
  decreasedAtTicket: number;
}

/** Endpoints remembered at most; the oldest unused one is forgotten first. */
const TRACKED_ENDPOINTS_MAX = 10_000;

export class AdaptiveConcurrency {
  private readonly endpoints = new Map<string, EndpointState>();
  private tickets = 0;

  constructor(private readonly bounds: ConcurrencyBounds) {}

  /** The endpoint's current limit (within the bounds). */
  limitOf(endpointId: string): number {
    const state = this.endpoints.get(endpointId);
    return state === undefined ? this.bounds.initial : state.limit;
  }

  /** The limits that differ from the initial one, for the claim. */
  adjusted(): Array<{ endpointId: string; limit: number }> {
    const out: Array<{ endpointId: string; limit: number }> = [];
    for (const [endpointId, { limit }] of this.endpoints) {
      if (limit !== this.bounds.initial) out.push({ endpointId, limit });
    }
    return out;
  }

  /** A send to the endpoint starts; the ticket goes back with its outcome. */
  started(endpointId: string): number {
    const state = this.stateOf(endpointId);
    if (state.inFlight === 0) state.peak = 0;
    state.inFlight += 1;
    state.peak = Math.max(state.peak, state.inFlight);
    this.tickets += 1;
    return this.tickets;
  }

  finished(endpointId: string, ticket: number, signal: LoadSignal): void {
    const state = this.stateOf(endpointId);
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (signal === "fast") {
      if (state.peak * 2 < state.limit) return;
      if (!state.slowStart) {
        state.credits += 1;
        if (state.credits < state.limit) return;
        state.credits = 0;
      }
      state.limit = Math.min(this.bounds.max, state.limit + 1);
    } else if (signal === "overloaded") {
      if (ticket <= state.decreasedAtTicket) return;
      state.slowStart = false;
      state.credits = 0;
      state.limit = Math.max(this.bounds.min, Math.floor(state.limit / 2));
      state.decreasedAtTicket = this.tickets;
    }
  }

  private stateOf(endpointId: string): EndpointState {
    let state = this.endpoints.get(endpointId);
    if (state === undefined) {
      state = {
        limit: this.bounds.initial,
        slowStart: true,
        credits: 0,
        inFlight: 0,
        peak: 0,
        decreasedAtTicket: 0,
      };
      if (this.endpoints.size >= TRACKED_ENDPOINTS_MAX) this.forgetOneIdle();
    } else {
      this.endpoints.delete(endpointId);
    }
    // Re-inserting keeps the map in least-recently-used order.
    this.endpoints.set(endpointId, state);
    return state;
  }

  private forgetOneIdle(): void {
    for (const [endpointId, state] of this.endpoints) {
      if (state.inFlight === 0) {
        this.endpoints.delete(endpointId);
        return;
      }
    }
  }
}
