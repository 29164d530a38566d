/**
 * A local Opn Payments: the API endpoints the connector uses, built from Opn's pages
 * (docs/providers/opn.md), answering in Opn's shapes (`object`, ids `chrg_test_`, `src_test_`,
 * `recp_test_`, `trsf_test_`, `evnt_test_`, `livemode: false`, error objects). Tests start one
 * on port 0 (node:http) and point OPN_API_BASE_URL at it.
 *
 * State: charges with a PromptPay source, recipients, transfers and the events of charges.
 * A charge is decided by the test: `pay` (also after its expiry: `payLate`), `expire`, `fail`;
 * each decision makes a `charge.complete` event that is delivered to `webhookUrl` (signed when
 * the simulator has a webhook secret), or lost (`loseWebhooks`), and can be re-sent (`resend`).
 * Recipients wait until `verifyRecipient` (or are rejected); transfers wait until
 * `markTransferSent` / `markTransferPaid` / `failTransfer`.
 *
 * Switches: `failNext` (5xx, 429 with Retry-After, or any error answer, on the next matching
 * calls), `hangNextTransferCreate` (the transfer is created, the answer comes too late) and
 * `replaceNextTransferAnswer` (the transfer is created, its answer replaced by another page).
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

export interface SimCharge extends Json {
  object: "charge";
  id: string;
  amount: number;
  currency: string;
  status: "pending" | "successful" | "failed" | "expired" | "reversed";
  paid: boolean;
  paid_at: string | null;
  expires_at: string;
  metadata: Json;
  failure_code: string | null;
}

export interface SimRecipient extends Json {
  object: "recipient";
  id: string;
  verified: boolean;
  active: boolean;
  failure_code: string | null;
  bank_account: Json;
}

export interface SimTransfer extends Json {
  object: "transfer";
  id: string;
  amount: number;
  recipient: string;
  sent: boolean;
  paid: boolean;
  failure_code: string | null;
  metadata: Json;
  created_at: string;
}

export interface SimWebhook {
  eventId: string;
  headers: Record<string, string>;
  rawBody: string;
  delivered: boolean;
}

export interface SimFailure {
  method?: string;
  /** Matches when the request path starts with it. */
  path?: string;
  status: number;
  code?: string;
  retryAfter?: string;
  /** How many calls it answers (default 1). */
  times?: number;
  /** How long the answer waits before it is sent (default at once). */
  delayMs?: number;
}

export interface OpnSimulatorOptions {
  secretKey?: string;
  /** Base64; when set, every webhook carries Omise-Signature and Omise-Signature-Timestamp. */
  webhookSecret?: string;
  webhookUrl?: string;
}

function id(prefix: string): string {
  return `${prefix}_test_${randomBytes(10)
    .toString("hex")
    .replace(/[^0-9a-z]/g, "")}`;
}

function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `a[b]=c` form fields as nested objects, the way Opn reads them. */
function readForm(body: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((part) => part !== "");
    let node = out;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== "object" || node[part] === null) node[part] = {};
      node = node[part] as Json;
    }
    node[parts[parts.length - 1] as string] = value;
  }
  return out;
}

function errorBody(code: string, message: string): Json {
  return {
    object: "error",
    location: `https://www.omise.co/api-errors#${code.replace(/_/g, "-")}`,
    code,
    message,
  };
}

export class OpnSimulator {
  readonly charges = new Map<string, SimCharge>();
  readonly recipients = new Map<string, SimRecipient>();
  readonly transfers = new Map<string, SimTransfer>();
  readonly webhooks: SimWebhook[] = [];
  /** Every request as it arrived: method, path and the headers the connector must send. */
  readonly requests: { method: string; path: string; headers: IncomingMessage["headers"]; body: Json }[] = [];
  webhookUrl: string | null;
  loseWebhooks = false;
  /** Transfers are made with `fail_fast: false` whatever the create asked (Opn retries them). */
  failFastIgnored = false;
  private failures: (SimFailure & { left: number })[] = [];
  private hangs = 0;
  private replacement: { status: number; body: string; contentType: string } | null = null;
  private hangMs = 0;
  private readonly secretKey: string;
  private readonly webhookSecret: string | null;
  private server!: Server;
  url = "";

  private constructor(options: OpnSimulatorOptions) {
    this.secretKey = options.secretKey ?? "skey_test_simulator";
    this.webhookSecret = options.webhookSecret ?? null;
    this.webhookUrl = options.webhookUrl ?? null;
  }

  static async start(options: OpnSimulatorOptions = {}): Promise<OpnSimulator> {
    const sim = new OpnSimulator(options);
    sim.server = createServer((req, res) => {
      sim.handle(req, res).catch((error: Error) => {
        res.statusCode = 500;
        res.end(JSON.stringify(errorBody("internal_error", error.message)));
      });
    });
    await new Promise<void>((resolve) => sim.server.listen(0, "127.0.0.1", resolve));
    sim.url = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
    return sim;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  failNext(failure: SimFailure): void {
    this.failures.push({ ...failure, left: failure.times ?? 1 });
  }

  /** Every failure still waiting from `failNext` is dropped: Opn answers again. */
  clearFailures(): void {
    this.failures = [];
  }

  /**
   * The next transfer create is carried out, but its answer is replaced on the way back by a
   * page of something in front of Opn (a proxy, a firewall): `status` with `body` as `contentType`.
   */
  replaceNextTransferAnswer(status: number, body: string, contentType = "text/html"): void {
    this.replacement = { status, body, contentType };
  }

  /** The next `count` transfer creates are carried out, but answered only after `holdMs`. */
  hangNextTransferCreate(holdMs: number, count = 1): void {
    this.hangs = count;
    this.hangMs = holdMs;
  }

  // --- charges -------------------------------------------------------------------------------

  pay(chargeId: string, options: { late?: boolean } = {}): Promise<SimWebhook> {
    const charge = this.charge(chargeId);
    if (charge.status !== "pending" && !(options.late && charge.status === "expired")) {
      throw new Error(`charge ${chargeId} is ${charge.status}`);
    }
    Object.assign(charge, { status: "successful", paid: true, paid_at: nowIso(), expired: false });
    return this.complete(charge);
  }

  /** A payment the customer's bank made after the charge expired, which Opn still took. */
  payLate(chargeId: string): Promise<SimWebhook> {
    const charge = this.charge(chargeId);
    Object.assign(charge, { status: "expired", expired: true, expires_at: nowIso() });
    return this.pay(chargeId, { late: true });
  }

  expire(chargeId: string): Promise<SimWebhook> {
    const charge = this.charge(chargeId);
    Object.assign(charge, { status: "expired", expired: true, failure_code: "expired_charge" });
    return this.complete(charge);
  }

  fail(chargeId: string, code = "payment_rejected"): Promise<SimWebhook> {
    const charge = this.charge(chargeId);
    Object.assign(charge, { status: "failed", failure_code: code, failure_message: code.replace(/_/g, " ") });
    return this.complete(charge);
  }

  /** Delivers an event again, byte for byte, as Opn's retries do. */
  async resend(eventId: string): Promise<SimWebhook> {
    const first = this.webhooks.find((webhook) => webhook.eventId === eventId);
    if (!first) throw new Error(`no event ${eventId}`);
    const again = { ...first, delivered: false };
    this.webhooks.push(again);
    await this.deliver(again);
    return again;
  }

  /** A webhook body for `charge` as Opn would sign it now (or with `secret` instead of Opn's). */
  webhookFor(charge: Json, options: { key?: string; secret?: string } = {}): SimWebhook {
    const event = {
      object: "event",
      id: id("evnt"),
      livemode: false,
      location: "",
      key: options.key ?? "charge.complete",
      created_at: nowIso(),
      data: charge,
    };
    event.location = `/events/${event.id}`;
    const rawBody = JSON.stringify(event);
    const headers: Record<string, string> = { "content-type": "application/json" };
    const secret = options.secret ?? this.webhookSecret;
    if (secret !== null) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      headers["omise-signature"] = createHmac("sha256", Buffer.from(secret, "base64"))
        .update(`${timestamp}.${rawBody}`)
        .digest("hex");
      headers["omise-signature-timestamp"] = timestamp;
    }
    return { eventId: event.id, headers, rawBody, delivered: false };
  }

  private async complete(charge: SimCharge): Promise<SimWebhook> {
    const webhook = this.webhookFor(structuredClone(charge));
    this.webhooks.push(webhook);
    await this.deliver(webhook);
    return webhook;
  }

  private async deliver(webhook: SimWebhook): Promise<void> {
    if (this.loseWebhooks || this.webhookUrl === null) return;
    try {
      const response = await fetch(this.webhookUrl, {
        method: "POST",
        headers: webhook.headers,
        body: webhook.rawBody,
      });
      webhook.delivered = response.ok;
    } catch {
      webhook.delivered = false;
    }
  }

  private charge(chargeId: string): SimCharge {
    const charge = this.charges.get(chargeId);
    if (!charge) throw new Error(`no charge ${chargeId}`);
    return charge;
  }

  // --- recipients and transfers --------------------------------------------------------------

  verifyRecipient(recipientId: string, options: { active?: boolean } = {}): void {
    const recipient = this.recipients.get(recipientId);
    if (!recipient) throw new Error(`no recipient ${recipientId}`);
    Object.assign(recipient, { verified: true, verified_at: nowIso() });
    if (options.active !== false) Object.assign(recipient, { active: true, activated_at: nowIso() });
  }

  rejectRecipient(recipientId: string, code = "name_mismatch"): void {
    const recipient = this.recipients.get(recipientId);
    if (!recipient) throw new Error(`no recipient ${recipientId}`);
    Object.assign(recipient, { failure_code: code });
  }

  markTransferSent(transferId: string): void {
    Object.assign(this.transfer(transferId), { sent: true, sent_at: nowIso(), sendable: false });
  }

  markTransferPaid(transferId: string): void {
    this.markTransferSent(transferId);
    // A transfer Opn retried after a failure and then paid no longer shows the failure.
    Object.assign(this.transfer(transferId), {
      paid: true,
      paid_at: nowIso(),
      failure_code: null,
      failure_message: null,
    });
  }

  failTransfer(transferId: string, code = "transfer_failed"): void {
    Object.assign(this.transfer(transferId), {
      failure_code: code,
      failure_message: code.replace(/_/g, " "),
    });
  }

  /** Transfers whose `metadata.satang_key` is `key`: the count a test proves "never twice" with. */
  transfersFor(key: string): SimTransfer[] {
    return [...this.transfers.values()].filter((transfer) => transfer.metadata.satang_key === key);
  }

  private transfer(transferId: string): SimTransfer {
    const transfer = this.transfers.get(transferId);
    if (!transfer) throw new Error(`no transfer ${transferId}`);
    return transfer;
  }

  // --- HTTP ----------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://sim");
    const method = req.method ?? "GET";
    const body = method === "POST" ? readForm(raw) : {};
    this.requests.push({ method, path: url.pathname, headers: req.headers, body });
    const send = (status: number, payload: Json, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    const expected = `Basic ${Buffer.from(`${this.secretKey}:`).toString("base64")}`;
    if (req.headers.authorization !== expected) {
      return send(401, errorBody("authentication_failure", "authentication failed"));
    }
    const failure = this.failures.find(
      (f) => f.left > 0 && (!f.method || f.method === method) && (!f.path || url.pathname.startsWith(f.path)),
    );
    if (failure) {
      failure.left -= 1;
      this.failures = this.failures.filter((f) => f.left > 0);
      const headers: Record<string, string> = failure.retryAfter ? { "retry-after": failure.retryAfter } : {};
      if (failure.delayMs) await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
      return send(failure.status, errorBody(failure.code ?? "internal_error", "simulated failure"), headers);
    }
    const [, resource, resourceId] = url.pathname.split("/");
    if (resource === "charges" && method === "POST" && !resourceId) return send(...this.createCharge(body));
    if (resource === "charges" && method === "POST" && resourceId && url.pathname.endsWith("/expire")) {
      const charge = this.charges.get(resourceId);
      if (!charge) return send(404, errorBody("not_found", `charge ${resourceId} was not found`));
      if (charge.status !== "pending") {
        return send(400, errorBody("failed_expire", `charge ${resourceId} is ${charge.status}`));
      }
      Object.assign(charge, { status: "expired", expired: true, expired_at: nowIso() });
      return send(200, charge);
    }
    if (resource === "charges" && method === "GET" && resourceId) {
      const charge = this.charges.get(resourceId);
      return charge
        ? send(200, charge)
        : send(404, errorBody("not_found", `charge ${resourceId} was not found`));
    }
    if (resource === "recipients" && method === "POST" && !resourceId)
      return send(...this.createRecipient(body));
    if (resource === "recipients" && method === "GET" && resourceId) {
      const recipient = this.recipients.get(resourceId);
      return recipient
        ? send(200, recipient)
        : send(404, errorBody("not_found", `recipient ${resourceId} was not found`));
    }
    if (resource === "transfers" && method === "POST" && !resourceId) {
      const [status, payload] = this.createTransfer(body);
      if (status === 200 && this.hangs > 0) {
        this.hangs -= 1;
        await new Promise((resolve) => setTimeout(resolve, this.hangMs));
      }
      if (res.destroyed) return;
      if (status === 200 && this.replacement) {
        const { status: replaced, body: page, contentType } = this.replacement;
        this.replacement = null;
        res.writeHead(replaced, { "content-type": contentType });
        res.end(page);
        return;
      }
      return send(status, payload);
    }
    if (resource === "transfers" && method === "GET" && resourceId) {
      const transfer = this.transfers.get(resourceId);
      return transfer
        ? send(200, transfer)
        : send(404, errorBody("not_found", `transfer ${resourceId} was not found`));
    }
    if (resource === "transfers" && method === "GET") return send(200, this.listTransfers(url.searchParams));
    return send(404, errorBody("not_found", `${url.pathname} was not found`));
  }

  private createCharge(body: Json): [number, Json] {
    const amount = Number(body.amount);
    const source = body.source as Json | undefined;
    if (!Number.isSafeInteger(amount) || amount < 2000 || amount > 15_000_000_000) {
      return [400, errorBody("invalid_amount", "amount must be at least 2000")];
    }
    if (String(body.currency).toLowerCase() !== "thb")
      return [400, errorBody("invalid_charge", "currency is not supported")];
    if (source?.type !== "promptpay")
      return [400, errorBody("invalid_charge", "source type is not supported")];
    const chargeId = id("chrg");
    const sourceId = id("src");
    const created = nowIso();
    const charge: SimCharge = {
      object: "charge",
      id: chargeId,
      livemode: false,
      location: `/charges/${chargeId}`,
      amount,
      currency: "THB",
      status: "pending",
      paid: false,
      paid_at: null,
      expired: false,
      expires_at:
        typeof body.expires_at === "string"
          ? body.expires_at
          : new Date(Date.now() + 86_400_000).toISOString(),
      failure_code: null,
      failure_message: null,
      metadata: (body.metadata as Json | undefined) ?? {},
      source: {
        object: "source",
        id: sourceId,
        livemode: false,
        location: `/sources/${sourceId}`,
        amount,
        currency: "THB",
        type: "promptpay",
        flow: "offline",
        charge_status: "pending",
        scannable_code: {
          object: "barcode",
          type: "qr",
          image: {
            object: "document",
            livemode: false,
            id: id("docu"),
            filename: "qrcode.svg",
            download_uri: `${this.url}/charges/${chargeId}/documents/qrcode.svg`,
          },
        },
        created_at: created,
      },
      created_at: created,
    };
    this.charges.set(chargeId, charge);
    return [200, charge];
  }

  private createRecipient(body: Json): [number, Json] {
    const account = body.bank_account as Json | undefined;
    if (!account?.brand || !account.number || !account.name || !body.name) {
      return [400, errorBody("invalid_bank_account", "bank account is invalid")];
    }
    const recipientId = id("recp");
    const recipient: SimRecipient = {
      object: "recipient",
      id: recipientId,
      livemode: false,
      location: `/recipients/${recipientId}`,
      deleted: false,
      name: body.name,
      type: body.type ?? "individual",
      verified: false,
      active: false,
      failure_code: null,
      bank_account: {
        object: "bank_account",
        livemode: false,
        brand: account.brand,
        bank_code: account.brand,
        last_digits: String(account.number).slice(-4),
        name: account.name,
        created_at: nowIso(),
      },
      created_at: nowIso(),
    };
    this.recipients.set(recipientId, recipient);
    return [200, recipient];
  }

  private createTransfer(body: Json): [number, Json] {
    const amount = Number(body.amount);
    const recipient = this.recipients.get(String(body.recipient));
    if (!Number.isSafeInteger(amount) || amount <= 0)
      return [400, errorBody("invalid_amount", "amount is invalid")];
    if (!recipient) return [404, errorBody("not_found", `recipient ${String(body.recipient)} was not found`)];
    if (!recipient.verified || !recipient.active) {
      return [400, errorBody("bad_request", "recipient is not verified or not active")];
    }
    const transferId = id("trsf");
    const transfer: SimTransfer = {
      object: "transfer",
      id: transferId,
      livemode: false,
      location: `/transfers/${transferId}`,
      amount,
      currency: "THB",
      fee: 2500,
      recipient: recipient.id,
      bank_account: recipient.bank_account,
      sendable: true,
      sent: false,
      paid: false,
      sent_at: null,
      paid_at: null,
      deleted: false,
      // As Opn: true only when the create asked for it, unless the test says Opn ignores it.
      fail_fast: body.fail_fast === "true" && !this.failFastIgnored,
      failure_code: null,
      failure_message: null,
      metadata: (body.metadata as Json | undefined) ?? {},
      created_at: nowIso(),
    };
    this.transfers.set(transferId, transfer);
    return [200, transfer];
  }

  private listTransfers(params: URLSearchParams): Json {
    const from = params.get("from") ? Date.parse(params.get("from") as string) : 0;
    const limit = Math.min(100, Number(params.get("limit") ?? 20));
    const offset = Number(params.get("offset") ?? 0);
    const all = [...this.transfers.values()].filter((transfer) => Date.parse(transfer.created_at) >= from);
    if (params.get("order") === "reverse_chronological") all.reverse();
    return {
      object: "list",
      from: new Date(from).toISOString(),
      to: nowIso(),
      offset,
      limit,
      total: all.length,
      order: params.get("order") ?? "chronological",
      location: "/transfers",
      data: all.slice(offset, offset + limit),
    };
  }
}
