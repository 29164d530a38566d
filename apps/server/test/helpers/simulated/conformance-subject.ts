/**
 * The simulated connector as a conformance subject (test/providers/conformance.ts): the sandbox's
 * simulated bank over a fresh test store, with its failure switches (providers/simulated/faults.ts)
 * in the test's hands.
 */
import { createHmac, randomUUID } from "node:crypto";
import { systemClock } from "../../../src/lib/clock.ts";
import { SecretBox } from "../../../src/lib/crypto.ts";
import { createSimulatedConnector } from "../../../src/providers/simulated/connector.ts";
import type { SimulatedFaults, TransferFault } from "../../../src/providers/simulated/faults.ts";
import type { ConformanceRun, ConformanceSubject } from "../../providers/conformance.ts";
import { openTestStore } from "../store.ts";

/** The switches a test flips; the bank reads them on every call. */
export class SimulatedSwitches implements SimulatedFaults {
  private isDown = false;
  private readonly next: TransferFault[] = [];

  goDown(): void {
    this.isDown = true;
  }

  recover(): void {
    this.isDown = false;
  }

  /** The next transfer is carried out, and its answer is lost. */
  executeButDropAnswer(): void {
    this.next.push({ kind: "drop_answer" });
  }

  /** The next transfer is refused with `code`. */
  refuseNext(code: string): void {
    this.next.push({ kind: "refuse", code });
  }

  down(): boolean {
    return this.isDown;
  }

  transfer(): TransferFault {
    return this.next.shift() ?? { kind: "answer" };
  }
}

const REFUSAL_CODE = "account_closed";

export const simulatedSubject: ConformanceSubject = {
  name: "simulated",
  async start(): Promise<ConformanceRun> {
    const store = await openTestStore();
    const switches = new SimulatedSwitches();
    const connector = createSimulatedConnector({
      db: store.db,
      clock: systemClock,
      wallClock: systemClock,
      secrets: new SecretBox(Buffer.alloc(32, 7)),
      faults: switches,
    });
    const { bank } = connector;
    return {
      connector,
      instructWhileDown: "unavailable",
      now: () => systemClock.now(),
      payment: (amountSatang) => ({
        paymentId: randomUUID(),
        merchantId: randomUUID(),
        method: "promptpay",
        amountSatang,
        reference: `SBX${randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`,
        expiresAt: new Date(Date.now() + 15 * 60_000),
        payee: { promptpayId: "0812345678", collectionAccount: null },
      }),
      async payOnProvider(given, _instruction, amountSatang) {
        const { payment, notice } = await bank.pay({
          paymentId: given.paymentId,
          reference: given.reference,
          amountSatang,
        });
        return { transactionId: payment.transactionId, notice };
      },
      async forgedNotice(given) {
        const rawBody = JSON.stringify({
          id: `sbx_cb_${randomUUID()}`,
          type: "payment.succeeded",
          data: {
            paymentId: given.paymentId,
            transactionId: `sbx_txn_${randomUUID()}`,
            reference: given.reference,
            amountSatang: String(given.amountSatang),
          },
          createdAt: new Date().toISOString(),
        });
        const timestamp = String(Date.now());
        const signature = createHmac("sha256", "not the bank's secret")
          .update(`${timestamp}.${rawBody}`)
          .digest("hex");
        return {
          headers: {
            "sandbox-signature": `t=${timestamp},v1=${signature}`,
            "content-type": "application/json",
          },
          rawBody,
        };
      },
      malformedNotice: () => bank.signBody(JSON.stringify({ id: "x1", type: "payment.refunded", data: {} })),
      goDown: () => switches.goDown(),
      recover: () => switches.recover(),
      async newPayout(amountSatang) {
        return {
          idempotencyKey: randomUUID(),
          merchantId: randomUUID(),
          amountSatang,
          destinationType: "bank_account",
          bankCode: "004",
          accountNumber: "1234567890",
          accountName: "Somchai Jaidee",
        };
      },
      async transfersAt(input) {
        const rows = await store.db
          .selectFrom("sandbox_payouts")
          .select("payout_key")
          .where("payout_key", "=", input.idempotencyKey)
          .execute();
        return rows.length;
      },
      lostTransferAnswer: "indeterminate",
      executeButDropAnswer: () => switches.executeButDropAnswer(),
      refuseNextTransfer() {
        switches.refuseNext(REFUSAL_CODE);
        return REFUSAL_CODE;
      },
      close: () => store.close(),
    };
  },
};
