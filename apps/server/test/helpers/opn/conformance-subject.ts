/**
 * Opn Payments as a conformance subject (test/providers/conformance.ts): the Opn connector as a
 * deployment builds it (createOpnConnector), pointed at a fresh local Opn simulator that signs
 * its webhooks, over a sandbox test service whose withdraws Opn pays (a transfer is created only
 * for a payout the lifecycle holds open, providers/payout-fence.ts).
 */
import { randomUUID } from "node:crypto";
import { opnConfigFrom } from "../../../src/config.ts";
import type { Db } from "../../../src/db/handles.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { formatAmount } from "../../../src/lib/money.ts";
import { opnSignature } from "../../../src/providers/opn/collection.ts";
import { createOpnConnector } from "../../../src/providers/opn/connector.ts";
import type { PayoutInput } from "../../../src/providers/provider.ts";
import type { ConformanceRun, ConformanceSubject } from "../../providers/conformance.ts";
import { startService } from "../harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../lifecycle.ts";
import { fundedMerchant } from "../withdraws.ts";
import { OpnSimulator } from "./simulator.ts";

const SECRET_KEY = "skey_test_conformance";
const WEBHOOK_SECRET = Buffer.from("opn-webhook-secret-of-the-conformance-suite").toString("base64");
const FORGER_SECRET = Buffer.from("a secret Opn never had").toString("base64");
const TIMEOUT_MS = 1_500;
const REFUSAL_CODE = "transfers_suspended";

export const opnSubject: ConformanceSubject = {
  name: "opn",
  async start(): Promise<ConformanceRun> {
    const sim = await OpnSimulator.start({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    // Opn pays only a withdraw the lifecycle handed over: a sandbox service makes them.
    const svc = await startService();
    const merchant = await fundedMerchant(svc, {}, 100_000_000n);
    const config = opnConfigFrom({
      OPN_SECRET_KEY: SECRET_KEY,
      OPN_CALLBACK_TOKEN: "c".repeat(40),
      OPN_API_BASE_URL: sim.url,
      OPN_WEBHOOK_SECRET: WEBHOOK_SECRET,
      OPN_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    const connector = createOpnConnector(config, { db: svc.deps.db as Db, clock: systemClock });
    const payouts = connector.payouts;
    if (!payouts) throw new Error("the Opn connector pays out");

    /**
     * Opn pays only to a recipient it has verified: the destination's recipient is made (by a
     * first payout of its own) and verified before the suite's payout is sent.
     */
    async function readyDestination(destination: Omit<PayoutInput, "idempotencyKey" | "amountSatang">) {
      await payouts?.sendPayout({ ...destination, idempotencyKey: randomUUID(), amountSatang: 2_000n });
      const recipient = [...sim.recipients.values()].at(-1);
      if (!recipient) throw new Error("Opn made no recipient");
      sim.verifyRecipient(recipient.id);
    }

    return {
      connector,
      instructWhileDown: "unavailable",
      now: () => systemClock.now(),
      payment: (amountSatang) => ({
        paymentId: randomUUID(),
        merchantId: randomUUID(),
        method: "promptpay",
        amountSatang,
        reference: `R${randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`,
        expiresAt: new Date(Date.now() + 15 * 60_000),
      }),
      async payOnProvider(_given, instruction, amountSatang) {
        const chargeId = instruction.providerPaymentId;
        if (chargeId === null) throw new Error("an Opn instruction names its charge");
        const charge = sim.charges.get(chargeId);
        if (!charge) throw new Error(`Opn has no charge ${chargeId}`);
        // The customer's bank paid another amount than the charge asked for.
        charge.amount = Number(amountSatang);
        const webhook = await sim.pay(chargeId);
        return { transactionId: chargeId, notice: { headers: webhook.headers, rawBody: webhook.rawBody } };
      },
      async forgedNotice(given, instruction) {
        const chargeId = instruction.providerPaymentId as string;
        const charge = { ...sim.charges.get(chargeId), status: "successful", paid: true };
        charge.metadata = { satang_payment_id: given.paymentId, satang_reference: given.reference };
        const webhook = sim.webhookFor(charge, { secret: FORGER_SECRET });
        return { headers: webhook.headers, rawBody: webhook.rawBody };
      },
      async malformedNotice() {
        const rawBody = JSON.stringify({ object: "list", data: [] });
        const timestamp = String(Math.floor(Date.now() / 1000));
        return {
          headers: {
            "content-type": "application/json",
            "omise-signature": opnSignature(WEBHOOK_SECRET, timestamp, rawBody),
            "omise-signature-timestamp": timestamp,
          },
          rawBody,
        };
      },
      goDown: () => sim.failNext({ status: 503, code: "service_unavailable", times: 1_000 }),
      recover: () => sim.clearFailures(),
      async newPayout(amountSatang) {
        const accountNumber = String(Math.floor(Math.random() * 1e10)).padStart(10, "0");
        const withdraw = await createWithdraw(svc, merchant, {
          amount: formatAmount(amountSatang),
          customerBankAccountNumber: accountNumber,
          customerBankCode: "004",
        });
        const handed = await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
        if (handed.status !== 200)
          throw new Error(`withdraw not handed over: ${JSON.stringify(handed.body)}`);
        const destination = {
          merchantId: merchant.merchantId,
          destinationType: "bank_account" as const,
          bankCode: "004",
          accountNumber,
          accountName: withdraw.bankAccountName as string,
        };
        await readyDestination(destination);
        return { ...destination, idempotencyKey: withdraw.id as string, amountSatang };
      },
      transfersAt: async (input) => sim.transfersFor(input.idempotencyKey).length,
      lostTransferAnswer: "indeterminate",
      executeButDropAnswer: () => sim.hangNextTransferCreate(TIMEOUT_MS * 3),
      refuseNextTransfer() {
        sim.failNext({ method: "POST", path: "/transfers", status: 400, code: REFUSAL_CODE });
        return REFUSAL_CODE;
      },
      async close() {
        await sim.close();
        await svc.close();
      },
    };
  },
};
