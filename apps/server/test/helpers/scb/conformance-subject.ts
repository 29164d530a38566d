/**
 * SCB as a conformance subject (test/providers/conformance.ts): the connector
 * `createScbConnector` builds, pointed at a fresh local SCB simulator, with a manual bank clock,
 * over a sandbox test service whose withdraws SCB pays.
 */
import { randomInt, randomUUID } from "node:crypto";
import type { Db } from "../../../src/db/handles.ts";
import { formatAmount, formatThb } from "../../../src/lib/money.ts";
import { createScbConnector } from "../../../src/providers/scb/connector.ts";
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

export const scbSubject: ConformanceSubject = {
  name: "scb",
  async start(): Promise<ConformanceRun> {
    const rig = await startScbRig({ timeoutMs: TIMEOUT_MS });
    // SCB pays only a withdraw the lifecycle handed over: a sandbox service makes them.
    const svc = await startService();
    const merchant = await fundedMerchant(svc, {}, 100_000_000n);
    const { sim, clock } = rig;
    const connector = createScbConnector(
      {
        apiBaseUrl: sim.url,
        apiKey: SCB_TEST.apiKey,
        apiSecret: SCB_TEST.apiSecret,
        billerId: SCB_TEST.billerId,
        callbackToken: "scb_conformance_callback_token_0123456789",
        ref2: null,
        ref3Prefix: null,
        payer: SCB_TEST.payer,
        reconcileIntervalMs: 60_000,
        inquiryDelayMs: SCB_TEST.inquiryDelayMs,
        requestTimeoutMs: TIMEOUT_MS,
        tokenRefreshMarginMs: 120_000,
      },
      { db: svc.deps.db as Db, clock, recorder: rig.recorder },
    );
    return {
      // The connector a deployment builds (providers/registry.ts), pointed at the local SCB.
      connector,
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
          amount: formatAmount(amountSatang),
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
          accountName: withdraw.bankAccountName as string,
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
