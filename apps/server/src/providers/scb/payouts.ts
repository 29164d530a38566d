/**
 * Payouts through SCB's API credit transfer: initiate (SCB checks the transfer and answers a
 * tokenizer id; no money moves), confirm (the money moves), inquiry (what became of it).
 *
 * The two steps are separate calls so that the caller stores the tokenizer id, in the same
 * database transaction as its attempt record, before the confirm that moves money. The rules
 * that keep one withdraw from being paid twice:
 *
 * - Only a confirm moves money, and only for a tokenizer id the caller holds. An initiate whose
 *   answer was lost may have left a tokenizer at SCB that nobody knows; it is never confirmed,
 *   so initiating again (with the same partner transaction id) cannot pay twice.
 * - A confirm that may have reached SCB is never sent again. Its outcome is read with the
 *   inquiry: paid only on CONFIRM_COMPLETED for the expected amount, failed only on
 *   CONFIRM_FAILED or CANCELED. Everything else stays unknown and is asked again, after the
 *   45 minutes SCB's answers ask for (SCB_INQUIRY_DELAY_S).
 * - SCB has no cancel: a transfer handed over cannot be recalled.
 */
import type { ScbPayerConfig } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import { formatThb } from "../../lib/money.ts";
import { refundSubject } from "../../lib/payout-subjects.ts";
import { type ScbAnswer, ScbCallError, type ScbClient } from "./client.ts";
import { scbAmount } from "./collection.ts";
import {
  SCB_BANK_CODE,
  SCB_DUPLICATED_CODE,
  SCB_SUCCESS_CODE,
  SCB_TAX_ID_LENGTH,
  SCB_TOKENIZER_ID_LENGTH_MAX,
  SCB_TRANSFER_AMOUNT_MAX_SATANG,
  SCB_TRANSFER_INQUIRY_RANGE_DAYS,
} from "./limits.ts";
import { partnerTransactionId, partnerTransactionIdOf } from "./references.ts";
import { addDays, bangkokDate, channelDateTime } from "./time.ts";
import {
  type CreditInitiateRequest,
  TRANSFER_STATUSES,
  type TransferInquiryData,
  type TransferStatus,
} from "./types.ts";

export interface ScbPayoutSettings {
  payer: ScbPayerConfig;
  /** How long an uncertain transfer waits before it is asked about (SCB_INQUIRY_DELAY_S). */
  inquiryDelayMs: number;
}

export interface ScbPayoutInput {
  withdrawId: string;
  amountSatang: bigint;
  destinationType: "bank_account" | "wallet";
  bankCode: string;
  accountNumber: string;
  accountName: string;
}

/** A refund's transfer: the same details, and its own partner transaction id. */
export type ScbRefundPayoutInput = Omit<ScbPayoutInput, "withdrawId"> & { refundId: string };

/** What one transfer pays: a withdraw or a refund. */
export type ScbTransferInput = ScbPayoutInput | ScbRefundPayoutInput;

/** The partner transaction id of the transfer `input` pays. */
function partnerIdOf(input: ScbTransferInput): string {
  return "refundId" in input
    ? partnerTransactionIdOf(refundSubject(input.refundId))
    : partnerTransactionId(input.withdrawId);
}

export type InitiateResult =
  /** SCB checked the transfer; confirm `tokenizerId` to move the money. */
  | { status: "initiated"; tokenizerId: string; partnerTransactionId: string; initiatedAt: Date }
  /** Refused, by SCB or before sending: no transfer exists that anyone can confirm. */
  | { status: "rejected"; reason: string; code: string | null; sent: boolean }
  /** No answer. No tokenizer id is known, so nothing can be paid; initiating again is safe. */
  | { status: "unknown"; error: string; sent: boolean };

export type PayoutOutcome =
  | { status: "paid"; scbStatus: "CONFIRM_COMPLETED"; amountSatang: bigint }
  | { status: "failed"; scbStatus: "CONFIRM_FAILED" | "CANCELED"; reason: string; code: string | null }
  /** SCB has the transfer and is processing it; ask again later. */
  | { status: "accepted"; scbStatus: "CONFIRM_PROCESSING" | null }
  /**
   * No decision. `scbStatus` INITIATE_COMPLETED means SCB has not run a confirm for this
   * tokenizer; `checkAfterMs` is the wait SCB asked for (0: the caller's own schedule).
   */
  | { status: "unknown"; scbStatus: TransferStatus | null; reason: string; checkAfterMs: number };

/** A confirm's result: an outcome, or the certainty that the confirm never left. */
export type ConfirmResult = PayoutOutcome | { status: "not_sent"; reason: string };

type Payee = CreditInitiateRequest["payee"];

export class ScbPayouts {
  constructor(
    private readonly client: ScbClient,
    private readonly settings: ScbPayoutSettings,
    private readonly clock: Clock,
  ) {}

  /** SCB_INQUIRY_DELAY_S: how long after a confirm SCB's inquiry is its last word on it. */
  get inquiryDelayMs(): number {
    return this.settings.inquiryDelayMs;
  }

  /**
   * Where the money goes, as SCB documents it: SCB accounts by direct credit, other banks'
   * accounts cross-bank (THB, at most 2,000,000 baht), wallets by PromptPay to a 13-digit tax or
   * citizen id (at most 2,000,000 baht). Anything else is refused before SCB is called.
   */
  payeeOf(input: ScbTransferInput): { ok: true; payee: Payee } | { ok: false; reason: string } {
    const limited = input.destinationType === "wallet" || input.bankCode !== SCB_BANK_CODE;
    if (limited && input.amountSatang > SCB_TRANSFER_AMOUNT_MAX_SATANG) {
      return { ok: false, reason: "amount_above_scb_transfer_limit" };
    }
    if (input.destinationType === "wallet") {
      const id = new RegExp(`^[0-9]{${SCB_TAX_ID_LENGTH}}$`);
      if (!id.test(input.accountNumber)) return { ok: false, reason: "wallet_not_supported_by_scb" };
      return {
        ok: true,
        payee: { name: input.accountName, proxy: { type: "NATID", value: input.accountNumber } },
      };
    }
    if (!/^[0-9]{3}$/.test(input.bankCode) || !/^[0-9]{10,15}$/.test(input.accountNumber)) {
      return { ok: false, reason: "invalid_destination" };
    }
    return {
      ok: true,
      payee: {
        name: input.accountName,
        accountInfo: { accountNo: input.accountNumber, bankCode: input.bankCode },
      },
    };
  }

  /**
   * Step 1: credit initiate. Moves no money. A refusal that may only mean SCB could not take it
   * now (429), or that it already holds a transfer under this partner id (409 pending, 1111
   * duplicated), is not a refusal: the answer is `unknown`. Whether a refusal is final is the
   * caller's to decide: only the first and only initiate's is (provider.ts).
   */
  async initiatePayout(input: ScbTransferInput, signal?: AbortSignal): Promise<InitiateResult> {
    const payee = this.payeeOf(input);
    if (!payee.ok) return { status: "rejected", reason: payee.reason, code: null, sent: false };
    const partnerId = partnerIdOf(input);
    const initiatedAt = this.clock.now();
    let answer: ScbAnswer<{ tokenizerId?: unknown }>;
    try {
      answer = await this.client.creditInitiate(
        {
          channelDateTime: channelDateTime(initiatedAt),
          partnerTransactionID: partnerId,
          corporateId: this.settings.payer.corporateId,
          payer: {
            taxId: this.settings.payer.taxId,
            accountInfo: { accountNo: this.settings.payer.accountNumber, bankCode: SCB_BANK_CODE },
          },
          payee: payee.payee,
          tranAmount: { amount: Number(formatThb(input.amountSatang)), currency: "THB" },
        },
        signal,
      );
    } catch (error) {
      const sent = error instanceof ScbCallError ? error.sent : true;
      return { status: "unknown", error: (error as Error).message, sent };
    }
    const tokenizerId = answer.data?.tokenizerId;
    if (answer.code === SCB_SUCCESS_CODE && typeof tokenizerId === "string") {
      if (tokenizerId.length === 0 || tokenizerId.length > SCB_TOKENIZER_ID_LENGTH_MAX) {
        return {
          status: "unknown",
          error: "SCB answered a tokenizer id of an impossible length",
          sent: true,
        };
      }
      return { status: "initiated", tokenizerId, partnerTransactionId: partnerId, initiatedAt };
    }
    // SCB's gateway refuses a request over its rate before any service acts on it.
    if (answer.httpStatus === 429) return { status: "unknown", error: answerText(answer), sent: false };
    if (
      answer.httpStatus >= 500 ||
      answer.code === SCB_SUCCESS_CODE ||
      answer.httpStatus === 409 ||
      answer.code === SCB_DUPLICATED_CODE
    ) {
      return { status: "unknown", error: answerText(answer), sent: true };
    }
    return {
      status: "rejected",
      reason: answerText(answer),
      code: answer.code === null ? null : String(answer.code),
      sent: true,
    };
  }

  /**
   * Step 2: credit confirm, then the inquiry that turns SCB's word into an outcome. Send it
   * once per tokenizer id; after anything but `not_sent`, only `inquirePayout` may follow.
   */
  async confirmPayout(
    input: { tokenizerId: string; initiatedAt: Date; amountSatang: bigint },
    signal?: AbortSignal,
  ): Promise<ConfirmResult> {
    let answer: ScbAnswer<unknown>;
    try {
      answer = await this.client.creditConfirm(
        {
          channelDateTime: channelDateTime(this.clock.now()),
          tokenizerId: input.tokenizerId,
        },
        signal,
      );
    } catch (error) {
      if (error instanceof ScbCallError && !error.sent) return { status: "not_sent", reason: error.message };
      return {
        status: "unknown",
        scbStatus: null,
        reason: `the confirm's answer was lost: ${(error as Error).message}`,
        checkAfterMs: this.settings.inquiryDelayMs,
      };
    }
    if (answer.code !== SCB_SUCCESS_CODE) {
      // SCB's confirm answers: "please inquiry payment status after 45 minutes".
      return {
        status: "unknown",
        scbStatus: null,
        reason: answerText(answer),
        checkAfterMs: this.settings.inquiryDelayMs,
      };
    }
    const outcome = await this.inquirePayout(input, signal);
    // SCB said the confirm succeeded; until the inquiry agrees, the transfer is taken, not paid.
    return outcome.status === "unknown" ? { status: "accepted", scbStatus: null } : outcome;
  }

  /** The transfer's state by its tokenizer id, over the dates since it was initiated (at most 3). */
  async inquirePayout(
    input: { tokenizerId: string; initiatedAt: Date; amountSatang: bigint },
    signal?: AbortSignal,
  ): Promise<PayoutOutcome> {
    const dateFrom = bangkokDate(input.initiatedAt);
    const today = bangkokDate(this.clock.now());
    const last = addDays(dateFrom, SCB_TRANSFER_INQUIRY_RANGE_DAYS - 1);
    let answer: ScbAnswer<TransferInquiryData>;
    try {
      answer = await this.client.transferInquiry(
        {
          channelDateTime: channelDateTime(this.clock.now()),
          tokenizerId: input.tokenizerId,
          dateFrom,
          // Today, kept within [dateFrom, dateFrom + 2 days]: the middle of the three dates.
          dateTo: [dateFrom, today, last].sort()[1]!,
        },
        signal,
      );
    } catch (error) {
      return { status: "unknown", scbStatus: null, reason: (error as Error).message, checkAfterMs: 0 };
    }
    if (answer.code !== SCB_SUCCESS_CODE || !answer.data) {
      const wait = answer.httpStatus === 409 ? this.settings.inquiryDelayMs : 0;
      return { status: "unknown", scbStatus: null, reason: answerText(answer), checkAfterMs: wait };
    }
    return this.outcomeOf(answer.data, input.amountSatang);
  }

  private outcomeOf(data: TransferInquiryData, expected: bigint): PayoutOutcome {
    const status = (TRANSFER_STATUSES as readonly unknown[]).includes(data.status)
      ? (data.status as TransferStatus)
      : null;
    const legacy = typeof data.code === "string" || typeof data.code === "number" ? String(data.code) : null;
    const detail = typeof data.description === "string" ? data.description : null;
    switch (status) {
      case "CONFIRM_COMPLETED": {
        const amount = scbAmount(data.tranAmount?.amount);
        if (amount !== expected) {
          return {
            status: "unknown",
            scbStatus: status,
            reason: "SCB shows the transfer completed for another amount than the payout's",
            checkAfterMs: 0,
          };
        }
        return { status: "paid", scbStatus: status, amountSatang: amount };
      }
      case "CONFIRM_FAILED":
        return {
          status: "failed",
          scbStatus: status,
          code: legacy,
          reason: `SCB failed the transfer${legacy ? ` (${legacy}${detail ? ` ${detail}` : ""})` : ""}`,
        };
      case "CANCELED":
        return { status: "failed", scbStatus: status, code: legacy, reason: "SCB canceled the transfer" };
      case "CONFIRM_PROCESSING":
        return { status: "accepted", scbStatus: status };
      case "INITIATE_COMPLETED":
        return {
          status: "unknown",
          scbStatus: status,
          reason: "SCB has not run a confirm for this transfer",
          checkAfterMs: 0,
        };
      default:
        return {
          status: "unknown",
          scbStatus: null,
          reason: "SCB answered a transfer status it does not document",
          checkAfterMs: 0,
        };
    }
  }
}

function answerText(answer: ScbAnswer<unknown>): string {
  return `HTTP ${answer.httpStatus}, code ${answer.code ?? "none"}: ${answer.description ?? "no description"}`;
}
