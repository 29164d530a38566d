/**
 * The Satang client: `new Satang({ apiKey, apiSecret, baseUrl })` and one resource object per
 * part of the API. Every method is one API operation from routes.ts, except the `listAll`
 * iterators, which page through a list for you.
 */
import { randomUUID } from "node:crypto";
import {
  type Answer,
  type CallInput,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  HttpClient,
} from "./http.ts";
import { ROUTES, type RouteName } from "./routes.ts";
import type {
  Balance,
  CreatedPayment,
  CreatedRefund,
  CreatedWithdraw,
  CreatePaymentParams,
  CreateRefundParams,
  CreateWebhookEndpointParams,
  CreateWithdrawParams,
  EventWithDeliveries,
  ExactBalance,
  ListEventsParams,
  ListPaymentRefundsParams,
  ListPaymentsParams,
  ListRefundsParams,
  ListWithdrawsParams,
  Page,
  PageParams,
  Payment,
  RedeliverParams,
  Redelivery,
  Refund,
  RetrievePaymentParams,
  SandboxClock,
  SatangEvent,
  SettlementRun,
  SimulatedPaymentOutcome,
  SimulatedRefundOutcome,
  SimulatedWithdrawOutcome,
  UpdateWebhookEndpointParams,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  Withdraw,
} from "./types.ts";
import { webhooks } from "./webhooks.ts";

export interface SatangConfig {
  apiKey: string;
  apiSecret: string;
  /** The server's address; default http://127.0.0.1:3000 (a local sandbox). */
  baseUrl?: string;
  /** A fetch implementation; default the global fetch. Tests pass one that calls the app in-process. */
  fetch?: FetchLike;
  /** Retries after the first attempt; default 2. 0 turns retries off. */
  maxRetries?: number;
  /** Per attempt; default 30 000 ms. */
  timeoutMs?: number;
  /**
   * "v2" (the default) signs the method, the path with its query and the body (CONTRACT 3), so a
   * captured signature cannot be replayed on another route; "v1" signs the body only, for servers
   * older than signature v2.
   */
  signatureVersion?: "v1" | "v2";
  /** Waits between retries; tests pass one that records or skips the wait. */
  sleep?: (ms: number) => Promise<void>;
}

const PAGE_SIZE_MAX = 100;

/** What the iterators need of a list's records and its query. */
interface Listed {
  id: string;
  createdAt: string;
}
interface ListQuery {
  page?: number;
  limit?: number;
  sortBy?: string;
  sortOrder?: "asc" | "desc";
  dateFrom?: string | Date;
  dateTo?: string | Date;
}

/**
 * Every record of a list once, page after page (full pages of 100 unless `limit` says otherwise).
 *
 * Pages are numbered from the top of the list as it is when each page is read, so a walk by page
 * number repeats a record when newer records push the list down, and misses one when a record
 * leaves a filtered list (a payment that stops being `requires_action`). The iterator therefore
 * walks by creation time, which never changes: in the default order (`createdAt`, newest first)
 * each next request asks for the records created before the last one it yielded, and oldest
 * first for those created from it on (`dateTo` and `dateFrom`, CONTRACT 11), with the records of
 * that one millisecond read again and left out as already yielded. So each record created before
 * the walk and matching the filters throughout is yielded exactly once, and records made during
 * the walk are yielded (once) only oldest first.
 *
 * Ordered by another field (`amount`, `status`, ...), it pages by number and leaves out records
 * already yielded: no repeats, but a record whose sort field or filtered field changes during the
 * walk can be missed.
 */
async function* everyPage<T extends Listed, P extends ListQuery>(
  list: (params: P) => Promise<Page<T>>,
  params: P,
): AsyncGenerator<T> {
  // Every record once: a starting page would leave out the pages before it.
  if (params.page !== undefined) {
    throw new TypeError(
      "listAll reads the whole list from its first page: pass no page (list() reads one page)",
    );
  }
  const query = { ...params, limit: params.limit ?? PAGE_SIZE_MAX };
  if (query.sortBy === undefined || query.sortBy === "createdAt") yield* byCreationTime(list, query);
  else yield* byPageNumber(list, query);
}

async function* byPageNumber<T extends Listed, P extends ListQuery>(
  list: (params: P) => Promise<Page<T>>,
  query: P & { limit: number },
): AsyncGenerator<T> {
  const yielded = new Set<string>();
  for (let page = 1; ; page += 1) {
    const result = await list({ ...query, page });
    for (const record of result.data) {
      if (yielded.has(record.id)) continue;
      yielded.add(record.id);
      yield record;
    }
    if (page >= result.totalPages || result.data.length === 0) return;
  }
}

async function* byCreationTime<T extends Listed, P extends ListQuery>(
  list: (params: P) => Promise<Page<T>>,
  first: P & { limit: number },
): AsyncGenerator<T> {
  const newestFirst = first.sortOrder !== "asc";
  let query = first;
  let page = 1;
  // The millisecond the next request starts from, and the records of it already yielded.
  let edge: number | undefined;
  let yieldedAtEdge = new Set<string>();
  for (;;) {
    const result = await list({ ...query, page });
    for (const record of result.data) {
      if (yieldedAtEdge.has(record.id)) continue;
      yield record;
    }
    if (result.data.length < query.limit) return;
    const lastAt = Date.parse(result.data.at(-1)!.createdAt);
    const atLast = result.data.filter((record) => Date.parse(record.createdAt) === lastAt).map((r) => r.id);
    if (lastAt === edge) {
      // A whole page of one millisecond: the next page of that millisecond's records.
      for (const id of atLast) yieldedAtEdge.add(id);
      page += 1;
      continue;
    }
    edge = lastAt;
    yieldedAtEdge = new Set(atLast);
    page = 1;
    query = newestFirst
      ? { ...query, dateTo: new Date(lastAt + 1).toISOString() }
      : { ...query, dateFrom: new Date(lastAt).toISOString() };
  }
}

class Resource {
  constructor(protected readonly http: HttpClient) {}

  protected call<T>(name: RouteName, input?: CallInput): Promise<T> {
    return this.http.call<T>(ROUTES[name], input);
  }

  protected answer<T>(name: RouteName, input?: CallInput): Promise<Answer<T>> {
    return this.http.answer<T>(ROUTES[name], input);
  }
}

/** A header the server sets to "true" to say something about its answer. */
function flag(headers: Headers, name: string): boolean {
  return headers.get(name)?.trim().toLowerCase() === "true";
}

export class Payments extends Resource {
  /**
   * Creates a payment. Safe to retry: the idempotency key (yours, or a UUID generated for this
   * call) travels with every attempt, so a repeat returns the first payment.
   *
   * Check `reused` before linking the answer to your order: a PromptPay create for the same
   * customer account and amount as an open payment answers that earlier payment (with its own
   * `referenceId`) instead of a new one, and `reused` is then true, also when the answer is a
   * replay (a retry of this call after a lost answer). `replayed` is true when an earlier
   * request with the same idempotency key made the payment or was answered with it.
   */
  async create(params: CreatePaymentParams): Promise<CreatedPayment> {
    const { data, headers } = await this.answer<Payment>("payments.create", {
      body: { ...params, idempotencyKey: params.idempotencyKey ?? randomUUID() },
    });
    return {
      ...data,
      // The header says so; the payment's own referenceId says so too, for a server that
      // answers a replay of a reused key without the header: a payment made for this call
      // carries the referenceId it sent.
      reused: flag(headers, "satang-payment-reused") || data.referenceId !== params.referenceId,
      replayed: flag(headers, "idempotent-replayed"),
    };
  }

  retrieve(id: string, params: RetrievePaymentParams = {}): Promise<Payment> {
    return this.call("payments.retrieve", { params: { payment_id: id }, query: params });
  }

  /** By the referenceId you sent at create. */
  retrieveByReference(referenceId: string, params: RetrievePaymentParams = {}): Promise<Payment> {
    return this.call("payments.retrieveByReference", { params: { referenceId }, query: params });
  }

  /** Cancels a payment that is not final yet; the customer can then no longer pay it. */
  cancel(id: string): Promise<Payment> {
    return this.call("payments.cancel", { params: { payment_id: id } });
  }

  list(params: ListPaymentsParams = {}): Promise<Page<Payment>> {
    return this.call("payments.list", { query: params });
  }

  /** Every payment matching the filters, page after page: `for await (const p of ...listAll())`. */
  listAll(params: Omit<ListPaymentsParams, "page"> = {}): AsyncGenerator<Payment> {
    return everyPage((p) => this.list(p), params);
  }
}

export class Refunds extends Resource {
  /**
   * Refunds a succeeded payment, in whole or in part; retries reuse the call's idempotency key,
   * as for payments. `replayed` is true when an earlier request with the same key made the refund.
   */
  async create(paymentId: string, params: CreateRefundParams): Promise<CreatedRefund> {
    const { data, headers } = await this.answer<Refund>("refunds.create", {
      params: { payment_id: paymentId },
      body: { ...params, idempotencyKey: params.idempotencyKey ?? randomUUID() },
    });
    return { ...data, replayed: flag(headers, "idempotent-replayed") };
  }

  retrieve(id: string): Promise<Refund> {
    return this.call("refunds.retrieve", { params: { refund_id: id } });
  }

  /** Cancels a pending refund; its amount becomes refundable again. */
  cancel(id: string): Promise<Refund> {
    return this.call("refunds.cancel", { params: { refund_id: id } });
  }

  list(params: ListRefundsParams = {}): Promise<Page<Refund>> {
    return this.call("refunds.list", { query: params });
  }

  /** The refunds of one payment. */
  listForPayment(paymentId: string, params: ListPaymentRefundsParams = {}): Promise<Page<Refund>> {
    return this.call("refunds.listForPayment", { params: { payment_id: paymentId }, query: params });
  }

  listAll(params: Omit<ListRefundsParams, "page"> = {}): AsyncGenerator<Refund> {
    return everyPage((p) => this.list(p), params);
  }
}

export class Withdraws extends Resource {
  /**
   * Creates a withdraw; retries reuse the call's idempotency key, as for payments. `replayed` is
   * true when an earlier request with the same key made the withdraw (nothing more was held).
   */
  async create(params: CreateWithdrawParams): Promise<CreatedWithdraw> {
    const { data, headers } = await this.answer<Withdraw>("withdraws.create", {
      body: { ...params, idempotencyKey: params.idempotencyKey ?? randomUUID() },
    });
    return { ...data, replayed: flag(headers, "idempotent-replayed") };
  }

  retrieve(id: string): Promise<Withdraw> {
    return this.call("withdraws.retrieve", { params: { withdraw_id: id } });
  }

  retrieveByReference(referenceId: string): Promise<Withdraw> {
    return this.call("withdraws.retrieveByReference", { params: { referenceId } });
  }

  cancel(id: string): Promise<Withdraw> {
    return this.call("withdraws.cancel", { params: { withdraw_id: id } });
  }

  list(params: ListWithdrawsParams = {}): Promise<Page<Withdraw>> {
    return this.call("withdraws.list", { query: params });
  }

  listAll(params: Omit<ListWithdrawsParams, "page"> = {}): AsyncGenerator<Withdraw> {
    return everyPage((p) => this.list(p), params);
  }
}

export class BalanceResource extends Resource {
  /**
   * Wallet and settlement balances, as JSON numbers of satang. A figure past 2^53 - 1 satang
   * (about 90 trillion THB) cannot be a number exactly: then this throws a RangeError rather
   * than answer a figure a satang or more off; `retrieveExact()` reads it.
   */
  async retrieve(): Promise<Balance> {
    const { data, text } = await this.answer<Balance>("balance.retrieve");
    for (const field of BALANCE_FIGURES) {
      if (!Number.isSafeInteger(data[field])) {
        const exact = exactFigures(text)[field];
        throw new RangeError(
          `balance.${field} (${exact ?? String(data[field])} satang) is not a whole number a JavaScript number holds exactly; read it with balance.retrieveExact()`,
        );
      }
    }
    return data;
  }

  /** The balances as bigints of satang, exact at any size. */
  async retrieveExact(): Promise<ExactBalance> {
    const { data, text } = await this.answer<Balance>("balance.retrieve");
    const exact = exactFigures(text);
    const figure = (field: (typeof BALANCE_FIGURES)[number]): bigint => {
      const value = exact[field];
      if (value === undefined)
        throw new RangeError(`the balance answer has no whole number of satang for ${field}`);
      return value;
    };
    return {
      ...data,
      walletBalance: figure("walletBalance"),
      settlementBalance: figure("settlementBalance"),
    };
  }
}

const BALANCE_FIGURES = ["walletBalance", "settlementBalance"] as const;

/**
 * The balance figures of an answer as bigints, read as JSON.parse reads the answer (the
 * envelope's `data`, the last of a repeated member): each whole number of 16 digits or more
 * outside a string is read as its digits, not as the nearest double. A figure that is not a
 * whole number is left out.
 */
function exactFigures(text: string): Partial<Record<(typeof BALANCE_FIGURES)[number], bigint>> {
  const data = (JSON.parse(longIntegersQuoted(text)) as { data?: Record<string, unknown> }).data ?? {};
  const out: Partial<Record<(typeof BALANCE_FIGURES)[number], bigint>> = {};
  for (const field of BALANCE_FIGURES) {
    const value = data[field];
    if (typeof value === "string" && /^-?\d+$/.test(value)) out[field] = BigInt(value);
    else if (typeof value === "number" && Number.isSafeInteger(value)) out[field] = BigInt(value);
  }
  return out;
}

/** The JSON text with each whole-number token of 16 digits or more, outside strings, in quotes. */
function longIntegersQuoted(text: string): string {
  let out = "";
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"') {
      // Skip the string, escapes included.
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i += 1;
      continue;
    }
    if (char === "-" || (char >= "0" && char <= "9")) {
      const token = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400))?.[0] ?? char;
      if (/^-?\d{16,}$/.test(token)) {
        out += `${text.slice(from, i)}"${token}"`;
        from = i + token.length;
      }
      i += token.length;
      continue;
    }
    i += 1;
  }
  return out + text.slice(from);
}

export class WebhookEndpoints extends Resource {
  /** The answer carries the endpoint's signing secret, shown only here. */
  create(params: CreateWebhookEndpointParams): Promise<WebhookEndpointWithSecret> {
    return this.call("webhookEndpoints.create", { body: params });
  }

  list(params: PageParams = {}): Promise<Page<WebhookEndpoint>> {
    return this.call("webhookEndpoints.list", { query: params });
  }

  retrieve(id: string): Promise<WebhookEndpoint> {
    return this.call("webhookEndpoints.retrieve", { params: { id } });
  }

  /**
   * `{ disabled: true }` stops deliveries to the endpoint at once (its pending deliveries are
   * canceled; nothing is queued for it while disabled); `{ disabled: false }` resumes them for
   * new events. The endpoint keeps its URL and secret.
   */
  update(id: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
    return this.call("webhookEndpoints.update", { params: { id }, body: params });
  }

  /** Stops deliveries to the endpoint at once. */
  delete(id: string): Promise<WebhookEndpoint> {
    return this.call("webhookEndpoints.delete", { params: { id } });
  }

  /** A new secret; for 24 hours deliveries are signed with both, so receivers switch without failures. */
  rotateSecret(id: string): Promise<WebhookEndpointWithSecret> {
    return this.call("webhookEndpoints.rotateSecret", { params: { id } });
  }
}

export class Events extends Resource {
  list(params: ListEventsParams = {}): Promise<Page<SatangEvent>> {
    return this.call("events.list", { query: params });
  }

  listAll(params: Omit<ListEventsParams, "page"> = {}): AsyncGenerator<SatangEvent> {
    return everyPage((p) => this.list(p), params);
  }

  /** The event with every delivery and its attempts. */
  retrieve(id: string): Promise<EventWithDeliveries> {
    return this.call("events.retrieve", { params: { id } });
  }

  /** Sends the event again, now, to every subscribed endpoint or to `endpointId`. */
  redeliver(id: string, params: RedeliverParams = {}): Promise<Redelivery> {
    return this.call("events.redeliver", {
      params: { id },
      ...(params.endpointId === undefined ? {} : { body: params }),
    });
  }
}

/** Sandbox only (CONTRACT 9): what the simulated bank reports, and the merchant's test clock. */
export class Sandbox extends Resource {
  /** "succeeded" pays the payment (payment.received); "failed" fails it (payment.failed). */
  simulatePayment(id: string, outcome: SimulatedPaymentOutcome): Promise<Payment> {
    return this.call("sandbox.simulatePayment", { params: { id }, body: { outcome } });
  }

  /** "processing", "paid", "failed", or "indeterminate" (the bank's answer is lost). */
  simulateWithdraw(id: string, outcome: SimulatedWithdrawOutcome): Promise<Withdraw> {
    return this.call("sandbox.simulateWithdraw", { params: { id }, body: { outcome } });
  }

  simulateRefund(id: string, outcome: SimulatedRefundOutcome): Promise<Refund> {
    return this.call("sandbox.simulateRefund", { params: { refund_id: id }, body: { outcome } });
  }

  /** Settles every succeeded payment whose settlement delay has passed, into the wallet. */
  runSettlements(): Promise<SettlementRun> {
    return this.call("sandbox.runSettlements");
  }

  /** Moves this merchant's business time forward; work that falls due (expiry, settlement) is done first. */
  advanceClock(seconds: number): Promise<SandboxClock> {
    return this.call("sandbox.advanceClock", { body: { seconds } });
  }

  /**
   * Brings this merchant's business time back to wall-clock time. Records already made keep their
   * times; an open payment still expires at its expiresAt.
   */
  resetClock(): Promise<SandboxClock> {
    return this.call("sandbox.resetClock");
  }

  /** This merchant's business time and how far (offsetSeconds) it runs ahead of real time. */
  clock(): Promise<SandboxClock> {
    return this.call("sandbox.clock");
  }
}

export class Satang {
  /** Webhook verification and test headers; needs no client. */
  static readonly webhooks = webhooks;
  readonly webhooks = webhooks;

  readonly payments: Payments;
  readonly withdraws: Withdraws;
  readonly refunds: Refunds;
  readonly balance: BalanceResource;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly sandbox: Sandbox;

  constructor(config: SatangConfig) {
    if (!config.apiKey || !config.apiSecret) throw new TypeError("Satang needs an apiKey and an apiSecret");
    const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new TypeError("maxRetries must be a whole number");
    const signatureVersion = config.signatureVersion ?? "v2";
    // A misspelt version must not quietly sign v1, which leaves the method, path and query unsigned.
    if (signatureVersion !== "v1" && signatureVersion !== "v2") {
      throw new TypeError(`signatureVersion must be "v1" or "v2", got ${JSON.stringify(signatureVersion)}`);
    }
    const fetchImpl = config.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
    const http = new HttpClient({
      apiKey: config.apiKey,
      apiSecret: config.apiSecret,
      baseUrl: config.baseUrl ?? DEFAULT_BASE_URL,
      fetch: fetchImpl,
      maxRetries,
      timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signatureVersion,
      sleep: config.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: Math.random,
    });
    this.payments = new Payments(http);
    this.withdraws = new Withdraws(http);
    this.refunds = new Refunds(http);
    this.balance = new BalanceResource(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.events = new Events(http);
    this.sandbox = new Sandbox(http);
  }
}
