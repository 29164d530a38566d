/**
 * The simulated bank's failure switches, for the connector conformance suite
 * (test/providers/conformance.ts). They are an option of the connector that only tests pass: the
 * sandbox builds its bank without one, and nothing in the public API can reach them.
 */

/** What the bank does with a transfer it is sent. */
export type TransferFault =
  /** Carries it out and answers as usual. */
  | { kind: "answer" }
  /** Carries it out, but the answer never reaches the caller (a timeout after execution). */
  | { kind: "drop_answer" }
  /** Refuses it: booked as failed, with the bank's failure code. */
  | { kind: "refuse"; code: string };

export interface SimulatedFaults {
  /** True while the bank answers nothing (a 5xx or no answer): nothing is made or booked. */
  down(): boolean;
  /** Asked once for every transfer the bank is sent (`sendPayout`). */
  transfer(idempotencyKey: string): TransferFault;
}

/** The bank of a sandbox: never down, every transfer answered. */
export const NO_FAULTS: SimulatedFaults = {
  down: () => false,
  transfer: () => ({ kind: "answer" }),
};
