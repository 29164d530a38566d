/**
 * The simulated bank of the sandbox (CONTRACT 9): the `payouts` of the `simulated` connector and
 * the source of the sandbox's signed callbacks.
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
 * Its book of payments (`pay`: a customer paying the QR at the bank) is the record the
 * collection side's `inquire` and `find` answer from. It is kept in memory: the sandbox's
 * payments are decided by the simulate routes' signed callbacks, which need no book, so only
 * the conformance suite pays at the bank.
 *
 * Callbacks are signed the way a real provider signs them: header
 * `Sandbox-Signature: t=<unix ms>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`, with a
 * per-deployment secret that is generated on first use and kept sealed (under SECRET_KEY) in
 * server_settings, so every process of a deployment verifies with the same secret.
 */
import { createHmac } from "node:crypto";
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import { type SecretBox, safeEqual } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import { isUuid, newId, randomToken } from "../../lib/ids.ts";
import { PROVIDER_CALLBACK_ID_LENGTH_MAX, PROVIDER_CALLBACK_TOLERANCE_MS } from "../../lib/limits.ts";
import type { PaymentReportOutcome, PayoutReportOutcome } from "../../lib/provider-reports.ts";
import type {
  CancelPayoutResult,
  IncomingCallback,
  PaymentInstruction,
  PaymentInstructionInput,
  PayoutInput,
  PayoutLookup,
  Provider,
  ProviderReport,
  SendPayoutResult,
} from "../provider.ts";
import type { SandboxBank, SandboxCallbackData, SandboxCallbackType } from "../sandbox-bank.ts";
import { NO_FAULTS, type SimulatedFaults } from "./faults.ts";
import { instructionOf } from "./instruction.ts";
import { SANDBOX_PROVIDER_NAME } from "./names.ts";

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
} as const satisfies Record<SandboxCallbackType, unknown>;

/** A callback's body, as the bank writes it. */
export interface SandboxCallbackBody {
  id: string;
  type: SandboxCallbackType;
  data: SandboxCallbackData;
  createdAt: string;
}

const CALLBACK_ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;
const SIGNATURE_PATTERN = /^t=([0-9]{1,16}),v1=([0-9a-f]{64})$/;

const invalidSignature = () =>
  new AppError("INVALID_CREDENTIALS", "Invalid or missing provider callback signature");
const malformed = (field: string, message: string) => new AppError("VALIDATION_ERROR", message, { field });

/** The bank's answer while its failure switch says it is down. */
export const SIMULATED_BANK_DOWN = "the simulated bank is down";

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

/** The callback's body as an object with a valid id and type; throws VALIDATION_ERROR otherwise. */
export function readCallbackBody(rawBody: string): {
  id: string;
  type: SandboxCallbackType;
  data: Record<string, unknown>;
  createdAt: unknown;
} {
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
  const data = body.data;
  if (typeof data !== "object" || data === null) throw malformed("data", "data must be an object");
  return {
    id,
    type: type as SandboxCallbackType,
    data: data as Record<string, unknown>,
    createdAt: body.createdAt,
  };
}

function parseBody(rawBody: string): ProviderReport {
  const { id, type, data: fields } = readCallbackBody(rawBody);
  const meaning = CALLBACK_TYPES[type];
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
export interface SimulatedBankContext {
  db: Db;
  /** Business time: the bank's bookings and callback bodies. */
  clock: Clock;
  /** Real time: callback signatures, checked against the tolerance like a real provider's. */
  wallClock: Clock;
  secrets: SecretBox;
  /** Failure switches (the conformance suite's); none in a sandbox. */
  faults?: SimulatedFaults;
  /** The most payments the bank remembers (BOOKED_PAYMENTS_MAX unless set). */
  bookedPaymentsMax?: number;
}

/**
 * The payments the simulated bank remembers, newest last: a sandbox that runs for months keeps
 * this many, not every payment it was ever paid (its book is memory, not the database). A notice
 * is checked against the book right after the payment is booked, so only a much later replay of
 * an old notice meets a payment the book has let go of, and is answered "not found".
 */
export const BOOKED_PAYMENTS_MAX = 100_000;

/** A payment the bank took: the customer paid `amountSatang` under `reference`. */
export interface BookedPayment {
  /** The bank's own id of the payment. */
  transactionId: string;
  paymentId: string;
  reference: string;
  amountSatang: bigint;
  paidAt: Date;
}

export class SimulatedBank implements Provider, SandboxBank {
  readonly name = SANDBOX_PROVIDER_NAME;
  readonly faults: SimulatedFaults;
  /** The callback secret once read: it never changes, so each bank object reads it once. */
  private secret: Promise<string> | undefined;
  /** By transaction id, oldest first (a Map keeps its insertion order). */
  private readonly paymentBook = new Map<string, BookedPayment>();
  /** The same payments by reference, so a search by reference reads only its own. */
  private readonly byReference = new Map<string, BookedPayment[]>();
  private readonly bookedMax: number;

  constructor(private readonly deps: SimulatedBankContext) {
    this.faults = deps.faults ?? NO_FAULTS;
    this.bookedMax = deps.bookedPaymentsMax ?? BOOKED_PAYMENTS_MAX;
  }

  /** Books a payment, letting the oldest go once the book holds `bookedMax`. */
  private book(payment: BookedPayment): void {
    this.paymentBook.set(payment.transactionId, payment);
    const same = this.byReference.get(payment.reference);
    if (same) same.push(payment);
    else this.byReference.set(payment.reference, [payment]);
    while (this.paymentBook.size > this.bookedMax) {
      const [oldestId, oldest] = this.paymentBook.entries().next().value as [string, BookedPayment];
      this.paymentBook.delete(oldestId);
      const rest = (this.byReference.get(oldest.reference) ?? []).filter((kept) => kept !== oldest);
      if (rest.length > 0) this.byReference.set(oldest.reference, rest);
      else this.byReference.delete(oldest.reference);
    }
  }

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

  /** Kept while `Provider` names it: the collection side's `instruct` is the way in. */
  async createPaymentInstruction(input: PaymentInstructionInput): Promise<PaymentInstruction> {
    return instructionOf(input);
  }

  /**
   * The bank books the payout under its key, once: a repeated send with the same key only counts
   * the call (tests read `send_count`) and answers with what the bank already knows.
   */
  async sendPayout(input: PayoutInput): Promise<SendPayoutResult> {
    if (this.faults.down()) return { status: "indeterminate", error: SIMULATED_BANK_DOWN };
    const fault = this.faults.transfer(input.idempotencyKey);
    const at = this.deps.clock.now();
    const status = fault.kind === "refuse" ? "failed" : "accepted";
    const row = await this.deps.db
      .insertInto("sandbox_payouts")
      .values({
        payout_key: input.idempotencyKey,
        amount_satang: input.amountSatang,
        status,
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
    if (fault.kind === "drop_answer") {
      return { status: "indeterminate", error: "the simulated bank's answer was lost" };
    }
    const providerReference = referenceOf(input.idempotencyKey);
    if (row.status === "failed" && fault.kind === "refuse") {
      return { status: "failed", providerReference, reason: fault.code };
    }
    return { status: row.status, providerReference };
  }

  async getPayout(idempotencyKey: string): Promise<PayoutLookup> {
    if (this.faults.down()) throw new Error(SIMULATED_BANK_DOWN);
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

  /** Whether a callback carries the bank's valid, fresh signature over its raw body. */
  async signedByBank(callback: IncomingCallback): Promise<boolean> {
    const header = headerText(callback.headers, SANDBOX_SIGNATURE_HEADER);
    const match = header ? SIGNATURE_PATTERN.exec(header.trim()) : null;
    if (!match) return false;
    const [, timestamp, signature] = match as unknown as [string, string, string];
    const age = Math.abs(this.deps.wallClock.now().getTime() - Number(timestamp));
    if (age > PROVIDER_CALLBACK_TOLERANCE_MS) return false;
    const expected = sign(await this.callbackSecret(), timestamp, callback.rawBody);
    return safeEqual(expected, signature);
  }

  async parseCallback(callback: IncomingCallback): Promise<ProviderReport> {
    if (!(await this.signedByBank(callback))) throw invalidSignature();
    return parseBody(callback.rawBody);
  }

  // What follows is the simulated bank's side, used by the sandbox simulate routes and tests.

  /** A signed callback as the bank would send it: the exact headers and body text. */
  async signCallback(
    type: SandboxCallbackType,
    data: SandboxCallbackData,
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

  /**
   * A customer pays `amountSatang` at the bank for a payment: the bank books it under a new
   * transaction id and sends its signed `payment.succeeded` notification, which names the
   * payment, the transaction, the reference and the amount paid.
   */
  async pay(input: {
    paymentId: string;
    reference: string;
    amountSatang: bigint;
  }): Promise<{ payment: BookedPayment; notice: IncomingCallback }> {
    const payment: BookedPayment = {
      transactionId: `sbx_txn_${newId()}`,
      paymentId: input.paymentId,
      reference: input.reference,
      amountSatang: input.amountSatang,
      paidAt: this.deps.clock.now(),
    };
    this.book(payment);
    const notice = await this.signCallback("payment.succeeded", {
      paymentId: input.paymentId,
      transactionId: payment.transactionId,
      reference: input.reference,
      amountSatang: String(input.amountSatang),
    });
    return { payment, notice };
  }

  /** The bank's record of one payment it took, by its transaction id. */
  bookedPayment(transactionId: string): BookedPayment | undefined {
    return this.paymentBook.get(transactionId);
  }

  /** Every payment the bank took under `reference`. */
  bookedPaymentsOf(reference: string): BookedPayment[] {
    return [...(this.byReference.get(reference) ?? [])];
  }
}

function referenceOf(idempotencyKey: string): string {
  return `sbx_po_${idempotencyKey}`;
}
