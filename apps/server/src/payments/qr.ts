/**
 * PromptPay QR codes (CONTRACT 6): a dynamic EMVCo payload with tag 29 naming the merchant's
 * PromptPay id, currency 764, the amount in THB, country TH and a CRC16-CCITT, built by
 * `promptparse` so that the payload is exactly what Thai banking apps parse; and the PNG image
 * of that payload.
 */
import { anyId } from "promptparse/generate";
import QRCode from "qrcode";
import { withoutSeparators } from "../lib/account-number.ts";
import { formatThb } from "../lib/money.ts";

type PromptPayProxyType = "MSISDN" | "NATID" | "EWALLETID";

export interface PromptPayProxy {
  type: PromptPayProxyType;
  target: string;
}

/**
 * Reads a merchant's PromptPay id: a 10-digit mobile number starting with 0, a 13-digit
 * national or tax id, or a 15-digit e-wallet id (dashes and spaces ignored). Null for anything
 * else, since a QR naming a wrong proxy would send the customer's money nowhere.
 */
export function promptPayProxyOf(promptpayId: string | null): PromptPayProxy | null {
  if (promptpayId === null) return null;
  const digits = withoutSeparators(promptpayId);
  if (!/^[0-9]+$/.test(digits)) return null;
  if (digits.length === 10 && digits.startsWith("0")) return { type: "MSISDN", target: digits };
  if (digits.length === 13) return { type: "NATID", target: digits };
  if (digits.length === 15) return { type: "EWALLETID", target: digits };
  return null;
}

/** The dynamic PromptPay payload for an amount of satang. */
export function promptPayPayload(proxy: PromptPayProxy, amountSatang: bigint): string {
  // The THB text "10.50" reads back as a double that prints as "10.50" again for every amount
  // the QR can hold (at most 13 characters), so no rounding slips in here.
  return anyId({ type: proxy.type, target: proxy.target, amount: Number(formatThb(amountSatang)) });
}

/** The QR image of a payload: a PNG with a quiet zone, large enough for a phone camera. */
export async function qrPng(payload: string): Promise<Buffer> {
  return QRCode.toBuffer(payload, { type: "png", errorCorrectionLevel: "M", margin: 4, scale: 8 });
}
