/**
 * What the simulated bank tells a customer to do: computed here, never fetched. The bank takes
 * payments straight to the merchant's own PromptPay id or collection account, so its QR is the
 * one payments/service.ts shows for a sandbox payment (the same payload, byte for byte).
 */
import { promptPayPayload, promptPayProxyOf } from "../../payments/qr.ts";
import type { PaymentInstruction, PaymentInstructionInput } from "../provider.ts";

/** The bank's own id of a payment it was asked to collect. */
export function simulatedPaymentIdOf(paymentId: string): string {
  return `sbx_pay_${paymentId}`;
}

/** The PromptPay payload for the merchant's PromptPay id, or null when it is not a valid one. */
export function simulatedQrPayload(promptpayId: string | null, amountSatang: bigint): string | null {
  const proxy = promptPayProxyOf(promptpayId);
  return proxy ? promptPayPayload(proxy, amountSatang) : null;
}

export function instructionOf(input: PaymentInstructionInput): PaymentInstruction {
  const providerReference = simulatedPaymentIdOf(input.paymentId);
  if (input.method === "promptpay") {
    const qrPayload = simulatedQrPayload(input.promptpayId, input.amountSatang);
    if (qrPayload === null) throw new Error("promptpay instruction needs a valid PromptPay id");
    return { providerReference, qrPayload, bankTransfer: null };
  }
  if (!input.collectionAccount) throw new Error("bank_transfer instruction needs a collection account");
  return { providerReference, qrPayload: null, bankTransfer: { ...input.collectionAccount } };
}
