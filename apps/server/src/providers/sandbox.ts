/**
 * The sandbox provider: a simulated bank behind the `Provider` interface (CONTRACT 9).
 *
 * It reports nothing by itself. Payments stay as they are until a sandbox simulate route (or
 * the hosted page's sandbox button) has the bank send a signed callback; payouts it receives
 * stay `accepted` until a simulate route decides them. So a merchant's tests see exactly the
 * transitions they ask for, in the order they ask for them.
 *
 * The bank keeps its book of payouts in the `sandbox_payouts` table rather than in memory, so
 * every server and worker process of a deployment talks to one and the same bank, and the
 * reconciler of one process can ask about a payout another process sent.
 *
 * Callbacks are signed the way a real provider signs them: header
 * `Sandbox-Signature: t=<unix ms>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`, with a
 * per-deployment secret that is generated on first use and kept sealed (under SECRET_KEY) in
 * server_settings, so every process of a deployment verifies with the same secret.
 */
import { createHmac } from "node:crypto";
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import { type SecretBox, safeEqual } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid, newId, randomToken } from "../lib/ids.ts";
import { PROVIDER_CALLBACK_ID_LENGTH_MAX, PROVIDER_CALLBACK_TOLERANCE_MS } from "../lib/limits.ts";
import type { PaymentReportOutcome, PayoutReportOutcome } from "../lib/provider-reports.ts";
import { promptPayPayload, promptPayProxyOf } from "../payments/qr.ts";
import type {
  CallbackSource,
  CancelPayoutResult,
  IncomingCallback,
  PaymentInstruction,
  PaymentInstructionInput,
  PayoutInput,
  PayoutLookup,
  Provider,
  ProviderReport,
  SendPayoutResult,
} from "./provider.ts";

const SANDBOX_PROVIDER_NAME = "sandbox";
const SANDBOX_SIGNATURE_HEADER = "sandbox-signature";
const SECRET_SETTING = "sandbox_provider_callback_secret";
const SECRET_RANDOM_BYTES = 32;

/** The callback types the simulated bank sends, and what each reports. */
const CALLBACK_TYPES = {
  "payment.processing": { subject: "payment", outcome: "processing" },
  "payment.succeeded": { subject: "payment", outcome: "succeeded" },
  "payment.failed": { subject: "payment", outcome: "failed" },
  "payout.paid": { subject: "payout", outcome: "paid" },
  "payout.failed": { subject: "payout", outcome: "failed" },
} as const;
type SandboxCallbackType = keyof typeof CALLBACK_TYPES;

interface SandboxCallbackBody {
  id: string;
  type: SandboxCallbackType;
  data: { paymentId: string } | { payoutKey: string };
  createdAt: string;
}

const CALLBACK_ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;
const SIGNATURE_PATTERN = /^t=([0-9]{1,16}),v1=([0-9a-f]{64})$/;

const invalidSignature = () =>
  new AppError("INVALID_CREDENTIALS", "Invalid or missing provider callback signature");
const malformed = (field: string, message: string) => new AppError("VALIDATION_ERROR", message, { field });

/**
 * The secret of this deployment, created by whichever process needs it first. The insert is
 * `ON CONFLICT DO NOTHING` followed by a read, so two processes racing end up with one secret.
 */
async function loadOrCreateSecret(db: Db, secrets: SecretBox, at: Date): Promise<string> {
  await db
    .insertInto("server_settings")
    .values({ key: SECRET_SETTING, value: secrets.seal(randomToken(SECRET_RANDOM_BYTES)), created_at: at })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await db
    .selectFrom("server_settings")
    .select("value")
    .where("key", "=", SECRET_SETTING)
    .executeTakeFirstOrThrow();
  return secrets.open(row.value);
}

function sign(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

function headerText(headers: IncomingCallback["headers"], name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return typeof value === "string" ? value : undefined;
}

function parseBody(rawBody: string): ProviderReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw malformed("body", "Callback body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw malformed("body", "Callback body must be a JSON object");
  }
  const body = parsed as Record<string, unknown>;
  const id = body.id;
  if (
    typeof id !== "string" ||
    id.length > PROVIDER_CALLBACK_ID_LENGTH_MAX ||
    !CALLBACK_ID_PATTERN.test(id)
  ) {
    throw malformed("id", `id must be 1-${PROVIDER_CALLBACK_ID_LENGTH_MAX} letters, digits, _ . : -`);
  }
  const type = body.type;
  if (typeof type !== "string" || !Object.hasOwn(CALLBACK_TYPES, type)) {
    throw malformed("type", `type must be one of ${Object.keys(CALLBACK_TYPES).join(", ")}`);
  }
  const meaning = CALLBACK_TYPES[type as SandboxCallbackType];
  const data = body.data;
  if (typeof data !== "object" || data === null) throw malformed("data", "data must be an object");
  const fields = data as Record<string, unknown>;
  if (meaning.subject === "payment") {
    const paymentId = fields.paymentId;
    if (typeof paymentId !== "string" || !isUuid(paymentId)) {
      throw malformed("data.paymentId", "data.paymentId must be a payment UUID");
    }
    return {
      callbackId: id,
      subject: "payment",
      paymentId: paymentId.toLowerCase(),
      outcome: meaning.outcome as PaymentReportOutcome,
    };
  }
  const payoutKey = fields.payoutKey;
  if (typeof payoutKey !== "string" || payoutKey.length === 0 || payoutKey.length > 255) {
    throw malformed("data.payoutKey", "data.payoutKey must be the payout's idempotency key");
  }
  return { callbackId: id, subject: "payout", payoutKey, outcome: meaning.outcome as PayoutReportOutcome };
}

/** What the simulated bank keeps its book and signs its callbacks with. */
interface SandboxBankContext {
  db: Db;
  /** Business time: the bank's bookings and callback bodies. */
  clock: Clock;
  /** Real time: callback signatures, checked against the tolerance like a real provider's. */
  wallClock: Clock;
  secrets: SecretBox;
}

export class SandboxProvider implements Provider, CallbackSource {
  readonly name = SANDBOX_PROVIDER_NAME;
  /** The callback secret once read: it never changes, so each bank object reads it once. */
  private secret: Promise<string> | undefined;

  constructor(private readonly deps: SandboxBankContext) {}

  private callbackSecret(): Promise<string> {
    if (!this.secret) {
      const loading = loadOrCreateSecret(this.deps.db, this.deps.secrets, this.deps.clock.now());
      this.secret = loading;
      // A failure (the database was briefly away) must not be remembered for good.
      loading.catch(() => {
        if (this.secret === loading) this.secret = undefined;
      });
    }
    return this.secret;
  }

  /**
   * The instruction is computed, not fetched: the simulated bank takes payments straight to the
   * merchant's own PromptPay id or collection account, exactly as payments/service.ts builds
   * them at create. A live provider would return its own QR payload or virtual account here.
   */
  async createPaymentInstruction(input: PaymentInstructionInput): Promise<PaymentInstruction> {
    const providerReference = `sbx_pay_${input.paymentId}`;
    if (input.method === "promptpay") {
      const proxy = promptPayProxyOf(input.promptpayId);
      if (!proxy) throw new Error("promptpay instruction needs a valid PromptPay id");
      return {
        providerReference,
        qrPayload: promptPayPayload(proxy, input.amountSatang),
        bankTransfer: null,
      };
    }
    if (!input.collectionAccount) throw new Error("bank_transfer instruction needs a collection account");
    return { providerReference, qrPayload: null, bankTransfer: { ...input.collectionAccount } };
  }

  /**
   * The bank books the payout under its key, once: a repeated send with the same key only counts
   * the call (tests read `send_count`) and answers with what the bank already knows.
   */
  async sendPayout(input: PayoutInput): Promise<SendPayoutResult> {
    const at = this.deps.clock.now();
    const row = await this.deps.db
      .insertInto("sandbox_payouts")
      .values({
        payout_key: input.idempotencyKey,
        amount_satang: input.amountSatang,
        status: "accepted",
        send_count: 1,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc
          .column("payout_key")
          .doUpdateSet((eb) => ({ send_count: eb("sandbox_payouts.send_count", "+", 1) })),
      )
      .returning(["status"])
      .executeTakeFirstOrThrow();
    return { status: row.status, providerReference: referenceOf(input.idempotencyKey) };
  }

  async getPayout(idempotencyKey: string): Promise<PayoutLookup> {
    const row = await this.deps.db
      .selectFrom("sandbox_payouts")
      .select("status")
      .where("payout_key", "=", idempotencyKey)
      .executeTakeFirst();
    if (!row) return { status: "not_found" };
    return { status: row.status, providerReference: referenceOf(idempotencyKey) };
  }

  /**
   * The simulated bank, like many Thai payout rails, cannot recall a payout once it has taken
   * it; the service therefore refuses to cancel a processing withdraw (withdraws/service.ts).
   */
  async cancelPayout(_idempotencyKey: string): Promise<CancelPayoutResult> {
    return { status: "not_cancelable", reason: "the sandbox bank cannot recall a payout it has accepted" };
  }

  async parseCallback(callback: IncomingCallback): Promise<ProviderReport> {
    const header = headerText(callback.headers, SANDBOX_SIGNATURE_HEADER);
    const match = header ? SIGNATURE_PATTERN.exec(header.trim()) : null;
    if (!match) throw invalidSignature();
    const [, timestamp, signature] = match as unknown as [string, string, string];
    const age = Math.abs(this.deps.wallClock.now().getTime() - Number(timestamp));
    if (age > PROVIDER_CALLBACK_TOLERANCE_MS) throw invalidSignature();
    const expected = sign(await this.callbackSecret(), timestamp, callback.rawBody);
    if (!safeEqual(expected, signature)) throw invalidSignature();
    return parseBody(callback.rawBody);
  }

  // What follows is the simulated bank's side, used by the sandbox simulate routes and tests.

  /** A signed callback as the bank would send it: the exact headers and body text. */
  async signCallback(
    type: SandboxCallbackType,
    data: SandboxCallbackBody["data"],
    id = `sbx_cb_${newId()}`,
  ): Promise<IncomingCallback> {
    const body: SandboxCallbackBody = { id, type, data, createdAt: this.deps.clock.now().toISOString() };
    return this.signBody(JSON.stringify(body));
  }

  /** Signs any body text as the bank would, at the wall clock's time (tests send odd bodies). */
  async signBody(rawBody: string): Promise<IncomingCallback> {
    const timestamp = String(this.deps.wallClock.now().getTime());
    const signature = sign(await this.callbackSecret(), timestamp, rawBody);
    return {
      headers: {
        [SANDBOX_SIGNATURE_HEADER]: `t=${timestamp},v1=${signature}`,
        "content-type": "application/json",
      },
      rawBody,
    };
  }

  /**
   * The bank decides a payout: paid or failed. A payout it never received (an expired withdraw
   * that is "confirmed late") is booked as decided, without a send.
   */
  async decidePayout(
    idempotencyKey: string,
    outcome: PayoutReportOutcome,
    amountSatang: bigint,
  ): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.db
      .insertInto("sandbox_payouts")
      .values({
        payout_key: idempotencyKey,
        amount_satang: amountSatang,
        status: outcome,
        send_count: 0,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.column("payout_key").doUpdateSet({ status: outcome, updated_at: at }))
      .execute();
  }
}

function referenceOf(idempotencyKey: string): string {
  return `sbx_po_${idempotencyKey}`;
}
