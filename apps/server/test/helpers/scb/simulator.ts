/**
 * A local SCB: the partner API endpoints the connector uses, built from SCB's published pages
 * (docs/providers/scb.md), with its own state and switches that make it misbehave the ways a
 * real bank can. Tests start one on port 0 and point the connector's base URL at it.
 *
 * State: issued access tokens, bill payments made by simulated customers (each one sends a
 * payment confirmation to `callbackUrl`), and transfers by tokenizer id and partner id.
 *
 * Switches: `expireTokens` (tokens stop working before their stated expiry), `failNext` (a
 * timeout that executes or not, a documented failure answer, a 401), `transferOutcome` (what a
 * confirm leads to), `pay({ resend })` (confirmations re-sent) and `sendConfirmation` (a forged
 * or altered confirmation).
 */
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { billPayment as readBillPayment } from "promptparse/validate";
import { formatThb, parseThb } from "../../../src/lib/money.ts";

export type SimOperation =
  | "token"
  | "bill_payment_inquiry"
  | "slip_verification"
  | "credit_initiate"
  | "credit_confirm"
  | "transfer_inquiry";

export type SimFailure =
  /**
   * The request is carried out, but the answer only comes after `holdMs` (past the client's
   * timeout), or after this failure's own `holdMs` (a slow answer).
   */
  | { kind: "timeout_but_execute"; holdMs?: number }
  /** Nothing is done and the answer only comes after `holdMs`. */
  | { kind: "timeout" }
  /**
   * SCB answers this (documented) failure, with `headers` (e.g. Retry-After on a 429). With
   * `execute`, it still carries the request out.
   */
  | {
      kind: "answer";
      httpStatus: number;
      code: number;
      description: string;
      execute?: boolean;
      /** The answer's `data` (null when absent). */
      data?: unknown;
      headers?: Record<string, string>;
    }
  /** 401 as for an expired token. */
  | { kind: "unauthorized" };

export type SimTransferStatus =
  | "INITIATE_COMPLETED"
  | "CONFIRM_COMPLETED"
  | "CONFIRM_FAILED"
  | "CONFIRM_PROCESSING"
  | "CANCELED";

export interface SimTransfer {
  tokenizerId: string;
  partnerTransactionId: string;
  amount: number;
  payee: unknown;
  status: SimTransferStatus;
  legacyCode: string | null;
  legacyDescription: string | null;
  /** Confirms received for this tokenizer, and how many moved money (never more than one). */
  confirmsReceived: number;
  executions: number;
  initiatedDate: string;
}

export interface SimBillPayment {
  transactionId: string;
  billerId: string;
  ref1: string;
  ref2: string | null;
  /** Tag 62.07 of the QR paid, or null when it had none. */
  ref3: string | null;
  amount: string;
  transactionDateandTime: string;
  sendingBankCode: string;
  payerName: string;
  payerAccountNumber: string;
  /** Before this (bank) time the inquiry does not show it yet, though its confirmation was sent. */
  visibleAt?: Date | null;
}

export interface SimRequest {
  operation: SimOperation;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface SimConfirmationDelivery {
  body: Record<string, unknown>;
  status: number | null;
  response: unknown;
}

export interface SimulatorOptions {
  apiKey: string;
  apiSecret: string;
  billerId: string;
  /** expiresIn of issued tokens, in seconds (SCB: 30 minutes). */
  tokenLifetimeS?: number;
  /** How long a "timeout" holds its answer. */
  holdMs?: number;
  /** Wait between confirmation re-sends (SCB: 12 s). */
  confirmationRetryMs?: number;
  /** The clock the bank reads (bill payment times, token expiry). */
  now?: () => Date;
  /**
   * The "Reference 3 prefix" the confirmation endpoint is registered for. SCB routes a QR 30
   * confirmation by biller id and this prefix: when set, a payment whose ref3 does not start
   * with it is booked (the inquiry shows it) but no confirmation is sent.
   */
  ref3Prefix?: string;
}

/** The simulator's answer to an expired or unknown token (SCB's own code is not published). */
export const SIM_TOKEN_EXPIRED = { code: 9300, description: "Access token is expired or invalid" } as const;
/** The part of a reply the endpoints use, so an answer can be captured and sent late. */
interface Reply {
  code(status: number): Reply;
  send(payload: unknown): unknown;
}

class CapturedReply implements Reply {
  statusCode = 200;
  payload: unknown = null;

  code(status: number): Reply {
    this.statusCode = status;
    return this;
  }

  send(payload: unknown): unknown {
    this.payload = payload;
    return this;
  }
}

const SUCCESS = { code: 1000, description: "Success" } as const;
const BANGKOK_MS = 7 * 3_600_000;

const bangkokIso = (at: Date) => `${new Date(at.getTime() + BANGKOK_MS).toISOString().slice(0, 19)}+07:00`;
const bangkokDay = (at: Date) => new Date(at.getTime() + BANGKOK_MS).toISOString().slice(0, 10);
const CHANNEL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

export class ScbSimulator {
  readonly requests: SimRequest[] = [];
  readonly transfers = new Map<string, SimTransfer>();
  readonly billPayments: SimBillPayment[] = [];
  readonly confirmations: SimConfirmationDelivery[] = [];
  readonly initiatesByPartnerId = new Map<string, number>();
  tokensIssued = 0;
  /** Where confirmations go; null sends none. */
  callbackUrl: string | null = null;
  /** The status a confirm moves a transfer to. */
  transferOutcome: { status: SimTransferStatus; legacyCode?: string; legacyDescription?: string } = {
    status: "CONFIRM_COMPLETED",
  };
  url = "";
  /** How the inquiry prints each row (SCB's real forms may differ from the pages'); identity by default. */
  inquiryRowForm: (row: Record<string, unknown>) => unknown = (row) => row;
  /** How the token answer states its expiry: both as numbers (default), only expiresIn as a string, or only expiresAt. */
  tokenExpiryForm: "number" | "string" | "expiresAtOnly" = "number";
  /** Token answers also carry the OAuth names `access_token`, `refresh_token` and an `id_token` JWT. */
  tokenOAuthFields = false;
  /** Every token value issued (access, refresh, id), so a test can look for them in records and logs. */
  readonly secretsIssued: string[] = [];

  private readonly app: FastifyInstance;
  private readonly tokens = new Map<string, { expiresAtMs: number }>();
  private readonly failures = new Map<SimOperation, SimFailure[]>();
  private readonly holds = new Set<() => void>();
  private transactionCounter = 0;

  private constructor(private readonly options: SimulatorOptions) {
    this.app = Fastify({ logger: false, forceCloseConnections: true });
    this.routes();
  }

  static async start(options: SimulatorOptions): Promise<ScbSimulator> {
    const sim = new ScbSimulator(options);
    const address = await sim.app.listen({ host: "127.0.0.1", port: 0 });
    sim.url = address;
    return sim;
  }

  async close(): Promise<void> {
    for (const release of this.holds) release();
    await this.app.close();
  }

  // Switches.

  /** Every token issued so far stops working now, whatever its stated expiry. */
  expireTokens(): void {
    for (const token of this.tokens.values()) token.expiresAtMs = 0;
  }

  /** The next `times` calls of `operation` fail this way. */
  failNext(operation: SimOperation, failure: SimFailure, times = 1): void {
    const queue = this.failures.get(operation) ?? [];
    for (let i = 0; i < times; i += 1) queue.push(failure);
    this.failures.set(operation, queue);
  }

  /** Every failure still waiting from `failNext` is dropped: SCB answers again. */
  clearFailures(): void {
    this.failures.clear();
  }

  of(operation: SimOperation): SimRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  /** The transfers for one partner transaction id. */
  transfersOf(partnerTransactionId: string): SimTransfer[] {
    return [...this.transfers.values()].filter((t) => t.partnerTransactionId === partnerTransactionId);
  }

  setTransferStatus(
    tokenizerId: string,
    status: SimTransferStatus,
    legacy?: { code: string; description: string },
  ) {
    const transfer = this.transfers.get(tokenizerId);
    if (!transfer) throw new Error("no such transfer");
    transfer.status = status;
    transfer.legacyCode = legacy?.code ?? null;
    transfer.legacyDescription = legacy?.description ?? null;
  }

  // Customers.

  /**
   * A customer pays a tag-30 QR: the payment is booked and (unless `confirm` is false) SCB's
   * confirmation is posted to `callbackUrl`, re-sent until acknowledged (at most 3 re-sends),
   * plus `resend` extra copies.
   */
  async pay(input: {
    ref1: string;
    amountSatang: bigint;
    ref2?: string | null;
    ref3?: string | null;
    billerId?: string;
    at?: Date;
    sendingBankCode?: string;
    confirm?: boolean;
    resend?: number;
    /** The inquiry shows the payment only this long after it was made (its confirmation goes at once). */
    visibleAfterMs?: number;
    /** SCB's transaction id, when a test needs one of another form. */
    transactionId?: string;
  }): Promise<SimBillPayment> {
    this.transactionCounter += 1;
    const at = input.at ?? this.now();
    const payment: SimBillPayment = {
      transactionId:
        input.transactionId ??
        `${bangkokDay(at).replace(/-/g, "")}SIM${String(this.transactionCounter).padStart(8, "0")}`,
      billerId: input.billerId ?? this.options.billerId,
      ref1: input.ref1,
      ref2: input.ref2 ?? null,
      ref3: input.ref3 ?? null,
      amount: formatThb(input.amountSatang),
      transactionDateandTime: bangkokIso(at),
      sendingBankCode: input.sendingBankCode ?? "004",
      payerName: "SOMCHAI JAIDEE",
      payerAccountNumber: "1234567890",
      visibleAt: input.visibleAfterMs ? new Date(at.getTime() + input.visibleAfterMs) : null,
    };
    this.billPayments.push(payment);
    const prefix = this.options.ref3Prefix;
    const routed = prefix === undefined || (payment.ref3 ?? "").startsWith(prefix);
    if (input.confirm !== false && routed && this.callbackUrl) {
      await this.deliverUntilAcknowledged(this.confirmationBody(payment));
      for (let i = 0; i < (input.resend ?? 0); i += 1)
        await this.sendConfirmation(this.confirmationBody(payment));
    }
    return payment;
  }

  /** A customer scans and pays a tag-30 QR as it is shown: its biller, references and amount. */
  async payQr(payload: string, options: { at?: Date } = {}): Promise<SimBillPayment> {
    const qr = readBillPayment(payload);
    const amount = qr?.amount === undefined ? null : parseThb(qr.amount.toFixed(2));
    if (!qr || amount === null) throw new Error("not a bill payment QR with an amount");
    return this.pay({
      billerId: qr.billerId,
      ref1: qr.ref1,
      ref2: qr.ref2 ?? null,
      ref3: qr.ref3 ?? null,
      amountSatang: amount,
      at: options.at,
    });
  }

  /** The confirmation SCB sends for a bill payment (QR 30 fields). */
  confirmationBody(payment: SimBillPayment): Record<string, unknown> {
    return {
      payeeProxyId: payment.billerId,
      payeeProxyType: "BILLERID",
      payeeAccountNumber: "0987654321",
      payeeName: "SATANG OPERATOR",
      payerProxyId: "",
      payerProxyType: "",
      payerAccountNumber: payment.payerAccountNumber,
      payerName: payment.payerName,
      sendingBankCode: payment.sendingBankCode,
      receivingBankCode: "014",
      amount: payment.amount,
      transactionId: payment.transactionId,
      transactionDateandTime: payment.transactionDateandTime,
      billPaymentRef1: payment.ref1,
      billPaymentRef2: payment.ref2 ?? "",
      billPaymentRef3: payment.ref3 ?? "",
      currencyCode: "764",
      channelCode: "PMH",
      transactionType: "Domestic Transfer",
    };
  }

  /** Posts one confirmation body as SCB would (also a forged or altered one). */
  async sendConfirmation(body: Record<string, unknown>): Promise<SimConfirmationDelivery> {
    if (!this.callbackUrl) throw new Error("no callbackUrl");
    const delivery: SimConfirmationDelivery = { body, status: null, response: null };
    try {
      const response = await fetch(this.callbackUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      delivery.status = response.status;
      const text = await response.text();
      try {
        delivery.response = JSON.parse(text);
      } catch {
        delivery.response = text;
      }
    } catch (error) {
      delivery.response = String(error);
    }
    this.confirmations.push(delivery);
    return delivery;
  }

  private async deliverUntilAcknowledged(body: Record<string, unknown>): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.options.confirmationRetryMs ?? 0));
      const delivery = await this.sendConfirmation(body);
      const ack = delivery.response as { resCode?: unknown } | null;
      if (delivery.status === 200 && ack?.resCode === "00") return;
    }
  }

  // The API.

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private routes(): void {
    const app = this.app;
    app.post("/v1/oauth/token", (req, reply) => this.handle("token", req, reply, (r) => this.token(req, r)));
    app.get("/v1/payment/billpayment/inquiry", (req, reply) =>
      this.handle("bill_payment_inquiry", req, reply, (r) => this.billInquiry(req, r)),
    );
    app.get("/v1/payment/billpayment/transactions/:transRef", (req, reply) =>
      this.handle("slip_verification", req, reply, (r) => this.slip(req, r)),
    );
    app.post("/v1/payment/transfer/fcd/credit/initiate", (req, reply) =>
      this.handle("credit_initiate", req, reply, (r) => this.initiate(req, r)),
    );
    app.post("/v1/payment/transfer/fcd/credit/confirm", (req, reply) =>
      this.handle("credit_confirm", req, reply, (r) => this.confirm(req, r)),
    );
    app.post("/v1/payment/transfer/fcd/inquiry", (req, reply) =>
      this.handle("transfer_inquiry", req, reply, (r) => this.transferInquiry(req, r)),
    );
  }

  /** Logs, checks the standard headers and the token, applies a queued failure, then acts. */
  private async handle(
    operation: SimOperation,
    req: FastifyRequest,
    reply: FastifyReply,
    act: (reply: Reply) => unknown,
  ): Promise<unknown> {
    this.requests.push({
      operation,
      method: req.method,
      url: req.url,
      headers: { ...req.headers },
      body: req.body,
    });
    const uid = req.headers.requestuid;
    if (
      req.headers.resourceownerid !== this.options.apiKey ||
      typeof uid !== "string" ||
      !/^[A-Za-z0-9-]{1,64}$/.test(uid)
    ) {
      return reply
        .code(400)
        .send({ status: { code: 8101, description: "VF0001 INVALID REQUEST (headers)" } });
    }
    if (operation !== "token" && !this.authorized(req.headers.authorization)) {
      return reply.code(401).send({ status: SIM_TOKEN_EXPIRED });
    }
    const failure = this.failures.get(operation)?.shift();
    if (!failure) return act(reply);
    switch (failure.kind) {
      case "unauthorized":
        return reply.code(401).send({ status: SIM_TOKEN_EXPIRED });
      case "answer":
        if (failure.execute) await act(new CapturedReply());
        for (const [name, value] of Object.entries(failure.headers ?? {})) reply.header(name, value);
        return reply.code(failure.httpStatus).send({
          status: { code: failure.code, description: failure.description },
          data: failure.data ?? null,
        });
      case "timeout_but_execute":
      case "timeout": {
        // The work is done at once; only the answer is late, after the client stopped waiting.
        const captured = new CapturedReply();
        if (failure.kind === "timeout_but_execute") await act(captured);
        await this.hold(failure.kind === "timeout_but_execute" ? failure.holdMs : undefined);
        if (failure.kind === "timeout")
          return reply.code(504).send({ status: { code: 9999, description: "timeout" } });
        return reply.code(captured.statusCode).send(captured.payload);
      }
    }
  }

  private hold(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.holds.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms ?? this.options.holdMs ?? 2_000);
      this.holds.add(release);
    });
  }

  private authorized(header: string | undefined): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? "");
    const token = match ? this.tokens.get(match[1]!) : undefined;
    return token !== undefined && token.expiresAtMs > this.now().getTime();
  }

  private token(req: FastifyRequest, reply: Reply) {
    const body = (req.body ?? {}) as { applicationKey?: unknown; applicationSecret?: unknown };
    if (body.applicationKey !== this.options.apiKey || body.applicationSecret !== this.options.apiSecret) {
      return reply
        .code(401)
        .send({ status: { code: 9500, description: "Invalid application key or secret" } });
    }
    const lifetime = this.options.tokenLifetimeS ?? 1800;
    const value = randomBytes(24).toString("hex");
    const expiresAtMs = this.now().getTime() + lifetime * 1000;
    this.tokens.set(value, { expiresAtMs });
    this.tokensIssued += 1;
    const refreshToken = randomBytes(24).toString("hex");
    const base64url = (json: unknown) => Buffer.from(JSON.stringify(json)).toString("base64url");
    const idToken = `${base64url({ alg: "HS256" })}.${base64url({ sub: randomBytes(8).toString("hex") })}.${randomBytes(16).toString("base64url")}`;
    this.secretsIssued.push(value, refreshToken, idToken);
    const oauth = this.tokenOAuthFields
      ? {
          access_token: value,
          refresh_token: refreshToken,
          id_token: idToken,
          note: `issued Bearer ${value}`,
        }
      : {};
    return reply.send({
      status: SUCCESS,
      data: {
        ...oauth,
        accessToken: value,
        tokenType: "Bearer",
        expiresIn:
          this.tokenExpiryForm === "number"
            ? lifetime
            : this.tokenExpiryForm === "string"
              ? String(lifetime)
              : undefined,
        expiresAt: this.tokenExpiryForm === "string" ? undefined : Math.floor(expiresAtMs / 1000),
        refreshToken,
        refreshExpiresIn: lifetime * 2,
      },
    });
  }

  private inquiryRow(payment: SimBillPayment): Record<string, unknown> {
    return this.confirmationBody(payment);
  }

  private billInquiry(req: FastifyRequest, reply: Reply) {
    const q = req.query as Record<string, string | undefined>;
    if (
      q.eventCode !== "00300100" ||
      !q.billerId ||
      !q.reference1 ||
      !/^\d{4}-\d{2}-\d{2}$/.test(q.transactionDate ?? "")
    ) {
      return reply.code(400).send({ status: { code: 8101, description: "VF0003 Validation Fail" } });
    }
    const rows = this.billPayments
      .filter(
        (p) =>
          p.billerId === q.billerId &&
          p.ref1 === q.reference1 &&
          p.transactionDateandTime.slice(0, 10) === q.transactionDate &&
          (q.reference2 === undefined || p.ref2 === q.reference2) &&
          (!p.visibleAt || p.visibleAt.getTime() <= this.now().getTime()),
      )
      .map((p) => this.inquiryRowForm(this.inquiryRow(p)));
    return reply.send({ status: SUCCESS, data: rows });
  }

  private slip(req: FastifyRequest, reply: Reply) {
    const { transRef } = req.params as { transRef: string };
    const payment = this.billPayments.find((p) => p.transactionId === transRef);
    if (!payment)
      return reply.code(404).send({ status: { code: 4101, description: "Transaction not found" } });
    const time = payment.transactionDateandTime;
    return reply.send({
      status: SUCCESS,
      data: {
        transRef: payment.transactionId,
        sendingBank: payment.sendingBankCode,
        receivingBank: "014",
        transDate: time.slice(0, 10).replace(/-/g, ""),
        transTime: time.slice(11, 19),
        sender: {
          displayName: "SOMCHAI J",
          name: payment.payerName,
          account: { type: "BANKAC", value: "xxx-x-x7890-x" },
        },
        receiver: {
          displayName: "SATANG",
          name: "SATANG OPERATOR",
          proxy: { type: "BILLERID", value: payment.billerId },
        },
        amount: payment.amount,
        paidLocalAmount: payment.amount,
        paidLocalCurrency: "764",
        countryCode: "TH",
        ref1: payment.ref1,
        ref2: payment.ref2 ?? "",
        ref3: payment.ref3 ?? "",
      },
    });
  }

  private invalid(reply: Reply, what: string) {
    return reply.code(400).send({ status: { code: 8101, description: `VF0003 Validation Fail: ${what}` } });
  }

  private initiate(req: FastifyRequest, reply: Reply) {
    const b = (req.body ?? {}) as Record<string, any>;
    if (!CHANNEL_DATE_TIME.test(b.channelDateTime ?? "")) return this.invalid(reply, "channelDateTime");
    if (typeof b.partnerTransactionID !== "string" || !/^[A-Za-z0-9]{1,25}$/.test(b.partnerTransactionID)) {
      return this.invalid(reply, "partnerTransactionID");
    }
    if (typeof b.corporateId !== "string" || b.corporateId.length === 0 || b.corporateId.length > 35) {
      return this.invalid(reply, "corporateId");
    }
    if (!/^\d{13}$/.test(b.payer?.taxId ?? "") || !/^\d{10}$/.test(b.payer?.accountInfo?.accountNo ?? "")) {
      return this.invalid(reply, "payer");
    }
    const payee = b.payee ?? {};
    const byAccount =
      /^\d{10,15}$/.test(payee.accountInfo?.accountNo ?? "") &&
      /^\d{3}$/.test(payee.accountInfo?.bankCode ?? "");
    const byProxy = payee.proxy?.type === "NATID" && /^\d{13}$/.test(payee.proxy?.value ?? "");
    if (!byAccount && !byProxy) return this.invalid(reply, "payee");
    const amount = b.tranAmount?.amount;
    if (typeof amount !== "number" || !(amount > 0) || b.tranAmount?.currency !== "THB") {
      return this.invalid(reply, "tranAmount");
    }
    const partnerId = b.partnerTransactionID as string;
    this.initiatesByPartnerId.set(partnerId, (this.initiatesByPartnerId.get(partnerId) ?? 0) + 1);
    const tokenizerId = `SIMT${Date.now().toString(36).toUpperCase()}${randomBytes(6).toString("hex").toUpperCase()}`;
    this.transfers.set(tokenizerId, {
      tokenizerId,
      partnerTransactionId: partnerId,
      amount,
      payee,
      status: "INITIATE_COMPLETED",
      legacyCode: null,
      legacyDescription: null,
      confirmsReceived: 0,
      executions: 0,
      initiatedDate: bangkokDay(this.now()),
    });
    return reply.send({
      status: SUCCESS,
      data: { tokenizerId, partnerTransactionID: partnerId, channelDateTime: b.channelDateTime },
    });
  }

  private confirm(req: FastifyRequest, reply: Reply) {
    const b = (req.body ?? {}) as Record<string, any>;
    if (!CHANNEL_DATE_TIME.test(b.channelDateTime ?? "")) return this.invalid(reply, "channelDateTime");
    const transfer = this.transfers.get(b.tokenizerId);
    if (!transfer)
      return reply.code(409).send({ status: { code: 8101, description: "BU0001 Data not found" } });
    transfer.confirmsReceived += 1;
    // A tokenizer is one transfer: a second confirm is refused, never carried out again.
    if (transfer.status !== "INITIATE_COMPLETED") {
      return reply.code(409).send({ status: { code: 8101, description: "BU9998 Business rule error" } });
    }
    transfer.executions += 1;
    transfer.status = this.transferOutcome.status;
    transfer.legacyCode = this.transferOutcome.legacyCode ?? null;
    transfer.legacyDescription = this.transferOutcome.legacyDescription ?? null;
    return reply.send({
      status: SUCCESS,
      data: { channelDateTime: b.channelDateTime, tokenizerId: transfer.tokenizerId },
    });
  }

  private transferInquiry(req: FastifyRequest, reply: Reply) {
    const b = (req.body ?? {}) as Record<string, any>;
    if (!CHANNEL_DATE_TIME.test(b.channelDateTime ?? "") || !/^\d{4}-\d{2}-\d{2}$/.test(b.dateFrom ?? "")) {
      return this.invalid(reply, "channelDateTime or dateFrom");
    }
    const dateTo = b.dateTo ?? b.dateFrom;
    const days = (Date.parse(dateTo) - Date.parse(b.dateFrom)) / 86_400_000;
    if (!(days >= 0 && days <= 2)) return this.invalid(reply, "date range over 3 days");
    const transfer = this.transfers.get(b.tokenizerId);
    if (!transfer || transfer.initiatedDate < b.dateFrom || transfer.initiatedDate > dateTo) {
      return reply.code(409).send({ status: { code: 8101, description: "BU0001 Data not found" } });
    }
    const data: Record<string, unknown> = {
      channelDateTime: b.channelDateTime,
      tokenizerId: transfer.tokenizerId,
      status: transfer.status,
      tranAmount: { amount: transfer.amount, currency: "THB" },
    };
    if (transfer.status === "CONFIRM_FAILED") {
      data.code = transfer.legacyCode ?? "112";
      data.description = transfer.legacyDescription ?? "Invalid Transaction";
    }
    return reply.send({ status: SUCCESS, data });
  }
}
