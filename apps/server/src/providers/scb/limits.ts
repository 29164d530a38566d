/**
 * The SCB connector's fixed limits, named with their unit last. They live beside the connector
 * rather than in lib/limits.ts because each one restates a rule of SCB's published API
 * (docs/providers/scb.md), not a rule of the service.
 */

/** Biller ids are 15 digits (QR create: "BILLERID length must be 15 digits"). */
export const SCB_BILLER_ID_LENGTH = 15;
/** ref1, ref2 and ref3 of a tag-30 QR: "A-Z" or "0-9", at most 20 characters. */
export const SCB_REFERENCE_LENGTH_MAX = 20;
export const SCB_REFERENCE_PATTERN = /^[A-Z0-9]{1,20}$/;
/** partnerTransactionID of a credit initiate: String(25). */
export const SCB_PARTNER_TRANSACTION_ID_LENGTH = 25;
/** tokenizerId: String(35). */
export const SCB_TOKENIZER_ID_LENGTH_MAX = 35;
/** corporateId: String(35); payer.taxId: String(13); a THB payer account: 10 digits. */
export const SCB_TAX_ID_LENGTH = 13;
/** Cross-bank and PromptPay transfers: "up to 2,000,000 baht". */
export const SCB_TRANSFER_AMOUNT_MAX_SATANG = 2_000_000n * 100n;
/** The transfer inquiry's date range "should be less than or equal to 3 days". */
export const SCB_TRANSFER_INQUIRY_RANGE_DAYS = 3;
/** SCB's code for a successful call, in `status.code` of every answer. */
export const SCB_SUCCESS_CODE = 1000;
/** Slip verification's `sendingBank` for SCB ("Use 014 for SCB"), and SCB's own bank code. */
export const SCB_BANK_CODE = "014";
/** The bill payment inquiry's event code for Thai QR tag 30 (C scan B). */
export const SCB_EVENT_CODE_QR30 = "00300100";
/** Thailand's time zone offset: SCB's dates and channelDateTime are Bangkok time (GMT+7). */
export { BANGKOK_OFFSET_MS } from "../../lib/bangkok-time.ts";
/** At most this many bytes of an SCB answer are read; anything longer is refused as malformed. */
export const SCB_RESPONSE_BODY_MAX_BYTES = 1024 * 1024;
/** A payment confirmation body larger than this is not read. */
export const SCB_CONFIRMATION_BODY_MAX_BYTES = 16 * 1024;
/** Longest transaction id accepted from a confirmation or an answer. */
export const SCB_TRANSACTION_ID_LENGTH_MAX = 64;
/**
 * After a failed access token fetch, no caller asks SCB's token endpoint again for this long
 * (they share the failure): 1 s after the first failure in a row, doubling with each further
 * failure, never more than 60 s. These are the service's own bounds, not SCB's: an outage costs
 * SCB at most one token request a minute per process instead of one per call.
 */
export const SCB_TOKEN_BACKOFF_MIN_MS = 1_000;
export const SCB_TOKEN_BACKOFF_MAX_MS = 60_000;

/**
 * SCB's "duplicated" answer, given to an initiate whose partner transaction id an earlier
 * initiate used: it says an earlier initiate reached SCB, not that this transfer is refused.
 */
export const SCB_DUPLICATED_CODE = 1111;
