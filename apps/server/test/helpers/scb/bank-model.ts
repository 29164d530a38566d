/**
 * An in-process model of SCB's credit transfer, behind the connector's client interface (the
 * three calls ScbPayouts makes), for the payout money-safety property test. Each call takes the
 * next fault from a queue the test generates: answer normally, time out (with or without
 * carrying the request out), answer only after the caller's bound (carrying it out), never come
 * back (the calling process died there), answer 5xx or 4xx (with or without carrying it out),
 * 429, or fail before leaving (no access token).
 *
 * The model keeps the bank's truth: every transfer by tokenizer and partner id, and how many
 * times money moved for each partner id, which the test compares with the ledger.
 */
import { randomBytes } from "node:crypto";
import { type ScbAnswer, ScbCallError, type ScbClient } from "../../../src/providers/scb/client.ts";
import type {
  CreditConfirmRequest,
  CreditInitiateRequest,
  TransferInquiryRequest,
} from "../../../src/providers/scb/types.ts";

export const BANK_FAULTS = [
  "ok",
  "timeout",
  "timeout_exec",
  "late_exec",
  "hang",
  "5xx",
  "5xx_exec",
  "4xx",
  "429",
  "not_sent",
] as const;
export type BankFault = (typeof BANK_FAULTS)[number];

interface ModelTransfer {
  tokenizerId: string;
  partnerId: string;
  amount: number;
  status: "INITIATE_COMPLETED" | "CONFIRM_COMPLETED" | "CONFIRM_FAILED";
}

export class BankModel {
  readonly transfers = new Map<string, ModelTransfer>();
  /** Money moved, by partner transaction id: the number of transfers that completed. */
  readonly executions = new Map<string, number>();
  /** Amount moved, by partner id, in satang. */
  readonly moved = new Map<string, bigint>();
  faults: BankFault[] = [];
  /** What a second initiate under one partner id gets: SCB's "duplicated", or a new tokenizer. */
  duplicates: "refuse" | "accept" = "refuse";
  /** Whether a confirm fails the transfer (CONFIRM_FAILED) instead of completing it. */
  confirmFails = false;

  constructor(private readonly lateMs: number) {}

  private next(): BankFault {
    return this.faults.shift() ?? "ok";
  }

  client(): ScbClient {
    return {
      creditInitiate: (body: CreditInitiateRequest, signal?: AbortSignal) =>
        this.call(signal, () => this.initiate(body)),
      creditConfirm: (body: CreditConfirmRequest, signal?: AbortSignal) =>
        this.call(signal, () => this.confirm(body)),
      transferInquiry: (body: TransferInquiryRequest, signal?: AbortSignal) =>
        this.call(signal, () => this.inquiry(body), true),
    } as unknown as ScbClient;
  }

  private async call<T>(
    signal: AbortSignal | undefined,
    act: () => ScbAnswer<T>,
    readOnly = false,
  ): Promise<ScbAnswer<T>> {
    const fault = this.next();
    if (signal?.aborted || fault === "not_sent") {
      throw new ScbCallError("token", false, "no SCB access token (model)");
    }
    // Give the other worker a turn, as a network round trip would.
    await new Promise((resolve) => setImmediate(resolve));
    switch (fault) {
      case "ok":
        return act();
      case "timeout":
        throw new ScbCallError("timeout", true, "SCB did not answer in time (model)");
      case "timeout_exec":
        act();
        throw new ScbCallError("timeout", true, "SCB did not answer in time (model, carried out)");
      case "late_exec": {
        const answer = act();
        // The answer comes after the caller's bound: the caller's abort ends the wait.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.lateMs);
          signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (signal?.aborted)
          throw new ScbCallError("timeout", true, "SCB did not answer in time (model, late)");
        return answer;
      }
      case "hang":
        // The calling process died here: nothing after this call ever runs.
        return new Promise<never>(() => {});
      case "5xx":
        return {
          httpStatus: 503,
          code: 9999,
          description: "Service unavailable (model)",
          data: undefined,
          exchangeId: null,
          retryAfterMs: null,
        };
      case "5xx_exec":
        if (!readOnly) act();
        return {
          httpStatus: 503,
          code: 9999,
          description: "Service unavailable (model, carried out)",
          data: undefined,
          exchangeId: null,
          retryAfterMs: null,
        };
      case "4xx":
        return {
          httpStatus: 400,
          code: 8101,
          description: "VF0003 Validation Fail (model)",
          data: undefined,
          exchangeId: null,
          retryAfterMs: null,
        };
      case "429":
        return {
          httpStatus: 429,
          code: 9999,
          description: "Too many requests (model)",
          data: undefined,
          exchangeId: null,
          retryAfterMs: null,
        };
    }
  }

  private initiate(body: CreditInitiateRequest): ScbAnswer<{ tokenizerId: string }> {
    const partnerId = body.partnerTransactionID;
    const seen = [...this.transfers.values()].some((t) => t.partnerId === partnerId);
    if (seen && this.duplicates === "refuse") {
      return {
        httpStatus: 400,
        code: 1111,
        description: "Duplicated transaction (model)",
        data: undefined,
        exchangeId: null,
        retryAfterMs: null,
      };
    }
    const tokenizerId = `MT${randomBytes(8).toString("hex").toUpperCase()}`;
    this.transfers.set(tokenizerId, {
      tokenizerId,
      partnerId,
      amount: body.tranAmount.amount,
      status: "INITIATE_COMPLETED",
    });
    return {
      httpStatus: 200,
      code: 1000,
      description: "Success",
      data: { tokenizerId },
      exchangeId: null,
      retryAfterMs: null,
    };
  }

  private confirm(body: CreditConfirmRequest): ScbAnswer<unknown> {
    const transfer = this.transfers.get(body.tokenizerId);
    if (!transfer)
      return {
        httpStatus: 409,
        code: 8101,
        description: "BU0001 Data not found",
        data: undefined,
        exchangeId: null,
        retryAfterMs: null,
      };
    if (transfer.status !== "INITIATE_COMPLETED") {
      return {
        httpStatus: 409,
        code: 8101,
        description: "BU9998 Business rule error",
        data: undefined,
        exchangeId: null,
        retryAfterMs: null,
      };
    }
    if (this.confirmFails) {
      transfer.status = "CONFIRM_FAILED";
    } else {
      transfer.status = "CONFIRM_COMPLETED";
      this.executions.set(transfer.partnerId, (this.executions.get(transfer.partnerId) ?? 0) + 1);
      const satang = BigInt(Math.round(transfer.amount * 100));
      this.moved.set(transfer.partnerId, (this.moved.get(transfer.partnerId) ?? 0n) + satang);
    }
    return {
      httpStatus: 200,
      code: 1000,
      description: "Success",
      data: { tokenizerId: transfer.tokenizerId },
      exchangeId: null,
      retryAfterMs: null,
    };
  }

  private inquiry(body: TransferInquiryRequest): ScbAnswer<Record<string, unknown>> {
    const transfer = this.transfers.get(body.tokenizerId);
    if (!transfer)
      return {
        httpStatus: 409,
        code: 8101,
        description: "BU0001 Data not found",
        data: undefined,
        exchangeId: null,
        retryAfterMs: null,
      };
    const data: Record<string, unknown> = {
      tokenizerId: transfer.tokenizerId,
      status: transfer.status,
      tranAmount: { amount: transfer.amount, currency: "THB" },
    };
    if (transfer.status === "CONFIRM_FAILED") {
      data.code = "112";
      data.description = "Invalid Account";
    }
    return {
      httpStatus: 200,
      code: 1000,
      description: "Success",
      data,
      exchangeId: null,
      retryAfterMs: null,
    };
  }
}
