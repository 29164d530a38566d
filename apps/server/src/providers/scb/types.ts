/**
 * SCB's messages as its partner API documents them (docs/providers/scb.md lists the pages).
 * Answers are typed loosely on purpose (every field optional, `unknown` where SCB's own pages
 * disagree on number or string): nothing is believed until the parsers in collection.ts and
 * payouts.ts have checked it.
 */

/** Every answer: `{ status: { code, description }, data }`. */
export interface ScbEnvelope<T> {
  status?: { code?: unknown; description?: unknown };
  data?: T;
}

/** POST /v1/oauth/token, credentials in the body. */
export interface TokenRequest {
  applicationKey: string;
  applicationSecret: string;
}

export interface TokenData {
  accessToken?: unknown;
  tokenType?: unknown;
  /** Seconds until the access token expires. */
  expiresIn?: unknown;
  /** Unix seconds of the expiry. */
  expiresAt?: unknown;
  refreshToken?: unknown;
  refreshExpiresIn?: unknown;
}

/** GET /v1/payment/billpayment/inquiry query (Thai QR tag 30). */
export interface BillPaymentInquiryQuery {
  eventCode: string;
  /** Bangkok date, "yyyy-MM-dd". */
  transactionDate: string;
  billerId: string;
  reference1: string;
  reference2?: string;
  /** THB, two decimals. */
  amount?: string;
}

/**
 * One paid bill payment, in the fields SCB's payment confirmation and bill payment inquiry
 * carry for QR 30. The confirmation page lists transactionId, amount, transactionDateandTime
 * (GMT+7), currencyCode and transactionType; the remaining names are those of the same
 * message as integrators receive it (the stored page is cut off before them).
 */
export interface BillPaymentRecord {
  transactionId?: unknown;
  amount?: unknown;
  transactionDateandTime?: unknown;
  currencyCode?: unknown;
  transactionType?: unknown;
  payeeProxyId?: unknown;
  payeeProxyType?: unknown;
  payeeAccountNumber?: unknown;
  payeeName?: unknown;
  payerProxyId?: unknown;
  payerProxyType?: unknown;
  payerAccountNumber?: unknown;
  payerName?: unknown;
  sendingBankCode?: unknown;
  receivingBankCode?: unknown;
  billPaymentRef1?: unknown;
  billPaymentRef2?: unknown;
  billPaymentRef3?: unknown;
  channelCode?: unknown;
}

/** The acknowledgment a merchant answers a payment confirmation with. */
export interface ConfirmationAck {
  resCode: string;
  resDesc: string;
  transactionId: string;
}

/** GET /v1/payment/billpayment/transactions/{transRef}?sendingBank= (slip verification). */
export interface SlipParty {
  displayName?: unknown;
  name?: unknown;
  proxy?: { type?: unknown; value?: unknown };
  account?: { type?: unknown; value?: unknown };
}

export interface SlipData {
  transRef?: unknown;
  sendingBank?: unknown;
  receivingBank?: unknown;
  transDate?: unknown;
  transTime?: unknown;
  sender?: SlipParty;
  receiver?: SlipParty;
  amount?: unknown;
  paidLocalAmount?: unknown;
  paidLocalCurrency?: unknown;
  countryCode?: unknown;
  ref1?: unknown;
  ref2?: unknown;
  ref3?: unknown;
}

/** POST /v1/payment/transfer/fcd/credit/initiate. */
export interface CreditInitiateRequest {
  channelDateTime: string;
  partnerTransactionID: string;
  corporateId: string;
  payer: {
    taxId: string;
    accountInfo: { accountNo: string; bankCode: string };
  };
  /**
   * The payee. The stored page is cut off after `payee.taxId`; this layout mirrors the
   * documented payer (accountInfo.accountNo, accountInfo.bankCode) and adds a PromptPay proxy
   * for transfers to a tax or citizen id (docs/providers/scb.md, "Readings").
   */
  payee: {
    name: string;
    accountInfo?: { accountNo: string; bankCode: string };
    proxy?: { type: "NATID"; value: string };
  };
  /** A JSON number of baht, as in the documented inquiry answer ("amount": 20000.00). */
  tranAmount: { amount: number; currency: "THB" };
}

export interface CreditInitiateData {
  tokenizerId?: unknown;
  partnerTransactionID?: unknown;
  channelDateTime?: unknown;
}

/** POST /v1/payment/transfer/fcd/credit/confirm. */
export interface CreditConfirmRequest {
  channelDateTime: string;
  tokenizerId: string;
}

export interface CreditConfirmData {
  channelDateTime?: unknown;
  tokenizerId?: unknown;
}

/** POST /v1/payment/transfer/fcd/inquiry: by tokenizer id, a date range of at most 3 days. */
export interface TransferInquiryRequest {
  channelDateTime: string;
  tokenizerId: string;
  dateFrom: string;
  dateTo: string;
}

export const TRANSFER_STATUSES = [
  "INITIATE_COMPLETED",
  "CONFIRM_COMPLETED",
  "CONFIRM_FAILED",
  "CONFIRM_PROCESSING",
  "CANCELED",
] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export interface TransferInquiryData {
  channelDateTime?: unknown;
  tokenizerId?: unknown;
  status?: unknown;
  tranAmount?: { amount?: unknown; currency?: unknown };
  /** With CONFIRM_FAILED: the legacy error code and its description. */
  code?: unknown;
  description?: unknown;
}
