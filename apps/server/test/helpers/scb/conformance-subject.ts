/**
 * SCB as a conformance subject (test/providers/conformance.ts): SCB's classes as they are
 * (`ScbCollection`, `ScbPayouts`, `ScbProvider`) pointed at a fresh local SCB simulator, with a
 * manual bank clock, over a sandbox test service whose withdraws SCB pays.
 *
 * `scbConnectorOf` wraps them into the port's `Connector` for the suite. `createScbConnector`
 * will return a `Connector` itself; this wrapper then gives way to it.
 */
import { randomInt, randomUUID } from "node:crypto";
import type { Db } from "../../../src/db/handles.ts";
import { formatThb } from "../../../src/lib/money.ts";
import type {
  CollectionPort,
  CollectionSearch,
  CollectionVerdict,
  Connector,
  InstructInput,
  Instruction,
  NoticeClaim,
  NoticeReading,
  PaymentToCheck,
  ShownPayment,
} from "../../../src/providers/port.ts";
import type { IncomingCallback } from "../../../src/providers/provider.ts";
import {
  confirmationAck,
  parseConfirmation,
  type ScbCollection,
  type VerifiedPayment,
} from "../../../src/providers/scb/collection.ts";
import { SCB_PROVIDER_NAME } from "../../../src/providers/scb/names.ts";
import { ScbProvider } from "../../../src/providers/scb/provider.ts";
import { partnerTransactionId } from "../../../src/providers/scb/references.ts";
import type { ConformanceRun, ConformanceSubject } from "../../providers/conformance.ts";
import { startService } from "../harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../lifecycle.ts";
import { fundedMerchant } from "../withdraws.ts";
import { SCB_TEST, startScbRig } from "./setup.ts";
import type { SimOperation } from "./simulator.ts";

const TIMEOUT_MS = 1_500;
const REFUSAL = { code: 4101, description: "Invalid payee account" } as const;
const OPERATIONS: SimOperation[] = [
  "token",
  "bill_payment_inquiry",
  "slip_verification",
  "credit_initiate",
  "credit_confirm",
  "transfer_inquiry",
];

/** Satang as the API's amount text: whole satang ("250050.00"). */
function amountText(satang: bigint): string {
  return `${satang}.00`;
}

function shown(payment: VerifiedPayment): ShownPayment {
  return {
    transactionId: payment.transactionId,
    reference: payment.ref1,
    amountSatang: payment.amountSatang,
    paidAt: payment.paidAt,
  };
}

/** SCB's collection behind the port: the QR made locally, every verdict from SCB's inquiry. */
class ScbCollectionPort implements CollectionPort {
  readonly methods = ["promptpay"] as const;

  constructor(private readonly scb: ScbCollection) {}

  async instruct(input: InstructInput): Promise<Instruction> {
    if (input.method !== "promptpay") return { status: "unavailable", error: "SCB collects promptpay only" };
    const { qrPayload } = this.scb.instruction({ ref1: input.reference, amountSatang: input.amountSatang });
    return { status: "instructed", providerPaymentId: null, qrPayload, qrImageUrl: null };
  }

  readNotice(notice: IncomingCallback): NoticeReading {
    const parsed = parseConfirmation(notice.rawBody);
    if (!parsed.ok) return { status: "malformed", error: parsed.error };
    const { claim } = parsed;
    return {
      status: "claim",
      claim: {
        transactionId: claim.transactionId,
        reference: claim.ref1,
        amountSatang: claim.amountSatang,
        paidAt: claim.paidAt,
      },
      acknowledgment: confirmationAck(claim.transactionId),
    };
  }

  async inquire(claim: NoticeClaim): Promise<CollectionVerdict> {
    if (claim.reference === null) return { status: "not_found", claim, reason: "no ref1", retry: false };
    const search = await this.scb.findPayments({
      ref1: claim.reference,
      from: claim.paidAt,
      to: claim.paidAt,
    });
    if (search.status === "unavailable") return { status: "unavailable", claim, error: search.error };
    const payment = search.payments.find((p) => p.transactionId === claim.transactionId);
    if (!payment && search.unreadable.length > 0) {
      return { status: "unavailable", claim, error: search.unreadable.join("; ") };
    }
    if (!payment) return { status: "not_found", claim, reason: "SCB does not show it", retry: true };
    if (claim.amountSatang !== null && claim.amountSatang !== payment.amountSatang) {
      return { status: "mismatch", claim, payment: shown(payment), fields: ["amount"] };
    }
    return { status: "verified", claim, payment: shown(payment) };
  }

  async find(payment: PaymentToCheck, from: Date, to: Date): Promise<CollectionSearch> {
    const search = await this.scb.findPayments({ ref1: payment.reference, from, to });
    if (search.status === "unavailable") return search;
    return { status: "answered", payments: search.payments.map(shown), unreadable: search.unreadable };
  }
}

/** SCB's classes as one `Connector` (until `createScbConnector` returns one). */
export function scbConnectorOf(provider: ScbProvider, collection: ScbCollection): Connector {
  return {
    name: SCB_PROVIDER_NAME,
    callbackToken: "scb_conformance_callback_token_0123456789",
    collection: new ScbCollectionPort(collection),
    payouts: provider,
  };
}

export const scbSubject: ConformanceSubject = {
  name: "scb",
  async start(): Promise<ConformanceRun> {
    const rig = await startScbRig({ timeoutMs: TIMEOUT_MS });
    // SCB pays only a withdraw the lifecycle handed over: a sandbox service makes them.
    const svc = await startService();
    const merchant = await fundedMerchant(svc, {}, 100_000_000n);
    const provider = new ScbProvider({
      db: svc.deps.db as Db,
      clock: rig.clock,
      collection: rig.collection,
      payouts: rig.payouts,
      reconcileIntervalMs: 60_000,
    });
    const { sim, clock } = rig;
    return {
      connector: scbConnectorOf(provider, rig.collection),
      // SCB's QR is the operator's biller id and the payment's ref1: made here, SCB is not asked.
      instructWhileDown: "instructed",
      now: () => clock.now(),
      payment: (amountSatang) => ({
        paymentId: randomUUID(),
        merchantId: merchant.merchantId,
        method: "promptpay",
        amountSatang,
        reference: `C${randomUUID().replace(/-/g, "").slice(0, 11).toUpperCase()}`,
        expiresAt: new Date(clock.now().getTime() + 15 * 60_000),
      }),
      async payOnProvider(given, _instruction, amountSatang) {
        const payment = await sim.pay({ ref1: given.reference, amountSatang, confirm: false });
        const notice = { headers: {}, rawBody: JSON.stringify(sim.confirmationBody(payment)) };
        return { transactionId: payment.transactionId, notice };
      },
      async forgedNotice(given) {
        // A body of SCB's shape naming a transaction SCB never booked.
        const template = await sim.pay({ ref1: "TEMPLATE", amountSatang: 1n, confirm: false });
        sim.billPayments.pop();
        const forged = {
          ...template,
          transactionId: `FORGED${randomInt(1e9)}`,
          ref1: given.reference,
          amount: formatThb(given.amountSatang),
        };
        return { headers: {}, rawBody: JSON.stringify(sim.confirmationBody(forged)) };
      },
      malformedNotice: async () => ({ headers: {}, rawBody: JSON.stringify({ resCode: "00" }) }),
      goDown() {
        for (const operation of OPERATIONS) {
          sim.failNext(
            operation,
            { kind: "answer", httpStatus: 503, code: 9500, description: "Service unavailable" },
            1_000,
          );
        }
      },
      recover: () => sim.clearFailures(),
      async newPayout(amountSatang) {
        const accountNumber = String(randomInt(1e9, 1e10));
        const withdraw = await createWithdraw(svc, merchant, {
          amount: amountText(amountSatang),
          customerBankAccountNumber: accountNumber,
          customerBankCode: "004",
        });
        const handed = await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
        if (handed.status !== 200)
          throw new Error(`withdraw not handed over: ${JSON.stringify(handed.body)}`);
        return {
          idempotencyKey: withdraw.id,
          merchantId: merchant.merchantId,
          amountSatang,
          destinationType: "bank_account",
          bankCode: "004",
          accountNumber,
          accountName: withdraw.customerBankAccountName,
        };
      },
      // Transfers that moved money at SCB (a confirm carried out) under the withdraw's partner id.
      transfersAt: async (input) =>
        sim
          .transfersOf(partnerTransactionId(input.idempotencyKey))
          .reduce((moved, transfer) => moved + transfer.executions, 0),
      // The lost answer was the confirm's: the tokenizer id SCB gave before it is the reference.
      lostTransferAnswer: "accepted",
      executeButDropAnswer: () => sim.failNext("credit_confirm", { kind: "timeout_but_execute" }),
      refuseNextTransfer() {
        sim.failNext("credit_initiate", { kind: "answer", httpStatus: 400, ...REFUSAL });
        return String(REFUSAL.code);
      },
      // SCB is asked about an uncertain transfer only past SCB_INQUIRY_DELAY_S.
      settleLostTransfer: async () => clock.advance(SCB_TEST.inquiryDelayMs + 1_000),
      async close() {
        await svc.close();
        await rig.close();
      },
    };
  },
};
