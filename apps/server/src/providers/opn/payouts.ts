/**
 * Payouts through Opn Payments' Recipients and Transfers APIs, behind `Provider`
 * (providers/provider.ts, docs/providers/opn.md).
 *
 * A payout to a destination needs a recipient at Opn that Opn has verified and that is active.
 * Each destination gets one recipient, created on its first payout and reused. While Opn has not
 * verified it, the payout is `accepted` with a note and no transfer is created; once the
 * recipient is ready, the next send or check creates the transfer (the lifecycle only checks
 * payouts it handed over, which are this connector's to finish). Past OPN_RECIPIENT_VERIFY_MAX_S
 * without a verified recipient the payout fails with `recipient_not_verified`; that can only
 * happen while no transfer was ever asked for.
 *
 * A transfer can never be created twice for one payout key:
 * - the attempt is recorded (`opn_transfers`) before anything is sent, and each create is
 *   claimed by one conditional update, so two processes never send at once;
 * - a create whose answer was lost leaves the row `sending`: before any other create, Opn is
 *   asked by listing its transfers for `metadata.satang_key`; only when the list (asked past
 *   a settle time, so that a late create would show) has none is the key "never seen" and sent
 *   again. Opn's API reference does not document an idempotency key for transfers, so the
 *   `Idempotency-Key` header this client sends is not relied upon.
 */
import type { Db, Trx } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import { type PayoutFence, payoutStillOpen } from "../payout-fence.ts";
import type {
  PayoutCallOptions,
  PayoutEvidence,
  PayoutInput,
  PayoutLookup,
  Provider,
  SendPayoutResult,
} from "../provider.ts";
import { opnBrandOf } from "./banks.ts";
import { type OpnClient, opnAmount, satangOf } from "./client.ts";
import {
  claimSend,
  type Destination,
  ensureRecipientRow,
  findTransferRow,
  markSent,
  markWithoutTransfer,
  noteError,
  noteOtherAmount,
  type OpnTransferRow,
  positionOf,
  recordTransfer,
  saveRecipient,
} from "./store.ts";
import type { OpnList, OpnRecipient, OpnTransfer } from "./types.ts";

export const OPN_PROVIDER_NAME = "opn";
/** The metadata key of a transfer that names its payout key. */
export const OPN_METADATA_PAYOUT_KEY = "satang_key";
export const OPN_NOTE_RECIPIENT_UNVERIFIED = "Opn has not verified the recipient yet";

/** How often a payout waiting for its recipient asks Opn again, at most. */
const RECIPIENT_RECHECK_MS = 15 * 60_000;
/** Pages of Opn's transfer list read when looking a lost create up (100 transfers a page). */
const LOOKUP_PAGES_MAX = 20;
const LOOKUP_PAGE_SIZE = 100;
/** How much earlier than the row's creation the list starts: clock skew between Opn and us. */
const LOOKUP_CLOCK_MARGIN_MS = 10 * 60_000;

export interface OpnPayoutSettings {
  /** OPN_RECIPIENT_VERIFY_MAX_S in ms: how long a payout waits for its recipient's verification. */
  recipientVerifyMaxMs: number;
  /**
   * How long after a create whose answer was lost Opn's transfer list must still not show it
   * before the key counts as never seen (a create in flight lands within the call's timeout).
   */
  settleMs: number;
}

/** What one step of a payout ended in, before it is told as a send's or a check's answer. */
type Step =
  | { kind: "taken"; providerReference: string; note: string; recheckAfterMs?: number }
  | { kind: "paid"; providerReference: string }
  | { kind: "failed"; providerReference: string; reason: string }
  | { kind: "uncertain"; error: string; recheckAfterMs?: number }
  | { kind: "never_seen" };

/**
 * A step whose answer came after another step moved the row on (a later create claimed it, or
 * another process ended or sent it): it decides nothing, and the next check reads the row as
 * it now stands.
 */
const MOVED_ON: Step = {
  kind: "uncertain",
  error: "another send or check moved this transfer on while Opn answered; it is checked again",
};

/**
 * A create not claimed because the payout was booked or resolved meanwhile (the operator failed
 * it, its hold released): no transfer is made for it, whatever Opn now says of its recipient.
 */
const PAYOUT_CLOSED_ERROR = "the payout is no longer open: no transfer is created for it";
const PAYOUT_CLOSED: Step = { kind: "uncertain", error: PAYOUT_CLOSED_ERROR };

type RecipientState =
  | { kind: "ready"; recipientId: string }
  | { kind: "waiting" }
  | { kind: "rejected"; code: string }
  | { kind: "unavailable"; error: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function destinationOf(row: OpnTransferRow): Destination {
  return { bankCode: row.bank_code, accountNumber: row.account_number, accountName: row.account_name };
}

/**
 * Failure codes that end a transfer whatever `fail_fast` says: a deleted transfer is never sent.
 * `transfer_sent` is never read as a failure: Opn lists it without saying what it means, and its
 * name says the transfer went out.
 */
const FINAL_WHATEVER_FAIL_FAST = new Set(["transfer_deleted"]);
const NEVER_A_FAILURE = new Set(["transfer_sent"]);

/**
 * Opn's transfer, in the lifecycle's terms. `paid: true` is paid, whatever else the transfer
 * shows. A `failure_code` ends the payout only when Opn will not retry the transfer: Opn's
 * transfer says so with `fail_fast: true` (every transfer is created with it). With `fail_fast`
 * false Opn retries a failed transfer (an `insufficient_balance` until the balance allows), so
 * it may yet be paid: the payout stays undecided and its hold kept (CONTRACT 15), and the next
 * check asks again.
 */
function stepOfTransfer(transfer: OpnTransfer): Step {
  const providerReference = transfer.id;
  if (transfer.paid === true) return { kind: "paid", providerReference };
  if (transfer.deleted === true) return { kind: "failed", providerReference, reason: "transfer_deleted" };
  const code =
    typeof transfer.failure_code === "string" && transfer.failure_code !== "" ? transfer.failure_code : null;
  if (code !== null && !NEVER_A_FAILURE.has(code)) {
    if (transfer.fail_fast === true || FINAL_WHATEVER_FAIL_FAST.has(code)) {
      return { kind: "failed", providerReference, reason: code };
    }
    return {
      kind: "taken",
      providerReference,
      note: `Opn reports ${code} and retries the transfer (fail_fast false): it may yet be paid`,
    };
  }
  if (code !== null) {
    return { kind: "taken", providerReference, note: `Opn reports ${code}: not read as a failure` };
  }
  if (transfer.sent === true)
    return { kind: "taken", providerReference, note: "Opn has sent the transfer to the bank" };
  return { kind: "taken", providerReference, note: "Opn has not sent the transfer yet" };
}

export class OpnPayouts implements Provider {
  readonly name = OPN_PROVIDER_NAME;

  constructor(
    private readonly client: OpnClient,
    private readonly db: Db,
    private readonly settings: OpnPayoutSettings,
    private readonly clock: Clock,
    /** Whether the payout is still open, checked as a create is claimed (tests of this class alone replace it). */
    private readonly fence: PayoutFence = payoutStillOpen,
  ) {}

  async sendPayout(input: PayoutInput, options: PayoutCallOptions = {}): Promise<SendPayoutResult> {
    if (input.destinationType !== "bank_account") {
      return { status: "failed", providerReference: "", reason: "destination_not_supported" };
    }
    if (opnBrandOf(input.bankCode) === null) {
      return { status: "failed", providerReference: "", reason: "bank_not_supported" };
    }
    try {
      opnAmount(input.amountSatang);
    } catch {
      return { status: "failed", providerReference: "", reason: "invalid_amount" };
    }
    const row = await recordTransfer(
      this.db,
      input.idempotencyKey,
      { bankCode: input.bankCode, accountNumber: input.accountNumber, accountName: input.accountName },
      input.amountSatang,
      this.clock.now(),
    );
    const step = await this.advance(row, options.signal);
    switch (step.kind) {
      case "taken":
        return {
          status: "accepted",
          providerReference: step.providerReference,
          note: step.note,
          ...recheck(step),
        };
      case "paid":
        return { status: "paid", providerReference: step.providerReference };
      case "failed":
        return { status: "failed", providerReference: step.providerReference, reason: step.reason };
      case "uncertain":
        return { status: "indeterminate", error: step.error };
      case "never_seen":
        // advance() sends again rather than answering this to a send.
        return { status: "indeterminate", error: "the transfer's create was not settled" };
    }
  }

  async getPayout(idempotencyKey: string, options: PayoutCallOptions = {}): Promise<PayoutLookup> {
    const row = await findTransferRow(this.db, idempotencyKey);
    if (!row) return { status: "not_found" };
    const step = await this.advance(row, options.signal, { resend: false });
    switch (step.kind) {
      case "taken":
        return {
          status: "accepted",
          providerReference: step.providerReference,
          note: step.note,
          ...recheck(step),
        };
      case "paid":
        return { status: "paid", providerReference: step.providerReference };
      case "failed":
        return { status: "failed", providerReference: step.providerReference, reason: step.reason };
      case "uncertain":
        return {
          status: "accepted",
          providerReference: row.transfer_id ?? "",
          note: step.error,
          ...recheck(step),
        };
      case "never_seen":
        return { status: "not_found" };
    }
  }

  /**
   * Takes the payout one step further from where its row stands. `resend: false` (a check): a
   * create whose answer was lost and that Opn provably never got is reported `never_seen`, so
   * that the lifecycle sends again through `sendPayout`; a send makes the create itself.
   */
  private async advance(
    row: OpnTransferRow,
    signal: AbortSignal | undefined,
    options: { resend: boolean } = { resend: true },
  ): Promise<Step> {
    switch (row.state) {
      case "refused":
      case "abandoned":
        return { kind: "failed", providerReference: "", reason: row.failure_reason ?? "failed" };
      case "sent":
        return this.retrieveTransfer(row, signal);
      case "sending": {
        const found = await this.lookUpLostCreate(row, signal);
        if (found.kind !== "never_seen") return found;
        if (!options.resend) return found;
        return this.createTransfer(row, signal);
      }
      case "waiting_recipient":
        return this.whenRecipientReady(row, signal);
    }
  }

  private async whenRecipientReady(row: OpnTransferRow, signal: AbortSignal | undefined): Promise<Step> {
    const recipient = await this.recipientOf(destinationOf(row), signal);
    const now = this.clock.now();
    if (recipient.kind === "ready") return this.createTransfer(row, signal, recipient.recipientId);
    const read = positionOf(row);
    if (recipient.kind === "rejected") {
      const ended = await markWithoutTransfer(
        this.db,
        row.payout_key,
        read,
        {
          state: "abandoned",
          reason: "recipient_rejected",
          error: `Opn rejected the recipient: ${recipient.code}`,
        },
        now,
      );
      if (!ended) return MOVED_ON;
      return { kind: "failed", providerReference: "", reason: "recipient_rejected" };
    }
    const waited = now.getTime() - row.created_at.getTime();
    if (waited >= this.settings.recipientVerifyMaxMs) {
      const ended = await markWithoutTransfer(
        this.db,
        row.payout_key,
        read,
        { state: "abandoned", reason: "recipient_not_verified" },
        now,
      );
      if (!ended) return MOVED_ON;
      return { kind: "failed", providerReference: "", reason: "recipient_not_verified" };
    }
    const recheckAfterMs = Math.min(RECIPIENT_RECHECK_MS, this.settings.recipientVerifyMaxMs - waited);
    if (recipient.kind === "unavailable") {
      await noteError(this.db, row.payout_key, read, recipient.error, now);
      return {
        kind: "taken",
        providerReference: "",
        note: `Opn could not be asked about the recipient: ${recipient.error}`,
        recheckAfterMs,
      };
    }
    return { kind: "taken", providerReference: "", note: OPN_NOTE_RECIPIENT_UNVERIFIED, recheckAfterMs };
  }

  /** The destination's recipient: created once, then asked about until Opn verifies it. */
  private async recipientOf(
    destination: Destination,
    signal: AbortSignal | undefined,
  ): Promise<RecipientState> {
    const now = this.clock.now();
    const row = await ensureRecipientRow(this.db, destination, now);
    if (row.recipient_id !== null && row.verified && row.active) {
      return { kind: "ready", recipientId: row.recipient_id };
    }
    if (row.failure_code !== null) return { kind: "rejected", code: row.failure_code };
    const answer =
      row.recipient_id === null
        ? await this.client.post<OpnRecipient>(
            "/recipients",
            {
              name: destination.accountName,
              type: "individual",
              bank_account: {
                brand: opnBrandOf(destination.bankCode) ?? "",
                number: destination.accountNumber,
                name: destination.accountName,
              },
            },
            { signal },
          )
        : await this.client.get<OpnRecipient>(`/recipients/${row.recipient_id}`, {}, { signal });
    if (!answer.ok) {
      if (answer.kind === "refused" && row.recipient_id === null)
        return { kind: "rejected", code: answer.code };
      return {
        kind: "unavailable",
        error: answer.kind === "refused" ? `Opn refused: ${answer.code}` : answer.error,
      };
    }
    const shown = answer.body;
    if (typeof shown.id !== "string" || !shown.id.startsWith("recp_")) {
      return { kind: "unavailable", error: "Opn answered without a recipient id" };
    }
    const failureCode =
      typeof shown.failure_code === "string" && shown.failure_code !== "" ? shown.failure_code : null;
    const state = {
      recipientId: shown.id,
      verified: shown.verified === true,
      active: shown.active === true,
      failureCode,
    };
    await saveRecipient(this.db, destination, state, this.clock.now(), now);
    if (failureCode !== null && !state.verified) return { kind: "rejected", code: failureCode };
    return state.verified && state.active ? { kind: "ready", recipientId: shown.id } : { kind: "waiting" };
  }

  private async createTransfer(
    row: OpnTransferRow,
    signal: AbortSignal | undefined,
    recipientId?: string,
  ): Promise<Step> {
    if (signal?.aborted) return { kind: "uncertain", error: "not sent: the caller gave up" };
    let recipient = recipientId;
    if (recipient === undefined) {
      const state = await this.recipientOf(destinationOf(row), signal);
      if (state.kind !== "ready")
        return { kind: "uncertain", error: "the recipient is not ready for a resend" };
      recipient = state.recipientId;
    }
    const claim = await claimSend(this.db, row, this.clock.now(), this.fence);
    if (claim.kind === "closed")
      return row.state === "waiting_recipient" ? this.endClosed(row) : PAYOUT_CLOSED;
    if (claim.kind === "taken") {
      return {
        kind: "uncertain",
        error: "another process is sending this transfer",
        recheckAfterMs: this.settings.settleMs,
      };
    }
    const claimed = claim.position;
    const answer = await this.client.post<OpnTransfer>(
      "/transfers",
      {
        amount: opnAmount(row.amount_satang),
        recipient,
        // Opn does not retry a failed transfer made so: its failure is final, and the payout's
        // hold can be released on it (stepOfTransfer).
        fail_fast: true,
        metadata: { [OPN_METADATA_PAYOUT_KEY]: row.payout_key },
      },
      { signal, idempotencyKey: `satang-transfer-${row.payout_key}` },
    );
    if (answer.ok && typeof answer.body.id === "string" && answer.body.id.startsWith("trsf_")) {
      await markSent(this.db, row.payout_key, answer.body.id, this.clock.now());
      return stepOfTransfer(answer.body);
    }
    if (!answer.ok && answer.kind === "refused") {
      // Opn read the create and refused it: this request made no transfer, and every earlier one
      // was looked up and found absent before this one was claimed. A later create claimed since
      // (this answer came after the lifecycle stopped waiting for it) decides instead.
      const ended = await markWithoutTransfer(
        this.db,
        row.payout_key,
        claimed,
        { state: "refused", reason: answer.code, error: `${answer.code}: ${answer.message}` },
        this.clock.now(),
      );
      if (!ended) return MOVED_ON;
      return { kind: "failed", providerReference: "", reason: answer.code };
    }
    const error = answer.ok ? "Opn answered the transfer without a transfer id" : answer.error;
    await noteError(this.db, row.payout_key, claimed, error, this.clock.now());
    return { kind: "uncertain", error, recheckAfterMs: this.settings.settleMs };
  }

  /**
   * A payout that was booked or resolved while its recipient waited (the operator failed it, its
   * hold released): no create was ever sent for it, and none ever will be (a closed payout never
   * opens again), so Opn has no transfer of it. Ended as `abandoned`, so that a check of the
   * watched attempt (lifecycle/payouts.ts) hears "failed" and stops asking, instead of asking
   * every hour for good.
   */
  private async endClosed(row: OpnTransferRow): Promise<Step> {
    const ended = await markWithoutTransfer(
      this.db,
      row.payout_key,
      positionOf(row),
      { state: "abandoned", reason: "payout_closed", error: PAYOUT_CLOSED_ERROR },
      this.clock.now(),
    );
    if (!ended) return MOVED_ON;
    return { kind: "failed", providerReference: "", reason: "payout_closed" };
  }

  private async retrieveTransfer(row: OpnTransferRow, signal: AbortSignal | undefined): Promise<Step> {
    const id = row.transfer_id as string;
    const answer = await this.client.get<OpnTransfer>(`/transfers/${id}`, {}, { signal });
    if (answer.ok && answer.body.id === id) return stepOfTransfer(answer.body);
    const error = answer.ok
      ? "Opn answered the retrieve with another object"
      : answer.kind === "refused"
        ? `Opn refused: ${answer.code}`
        : answer.error;
    await noteError(this.db, row.payout_key, positionOf(row), error, this.clock.now());
    return {
      kind: "taken",
      providerReference: id,
      note: `Opn could not be asked about the transfer: ${error}`,
    };
  }

  /** Looks a create whose answer was lost up in Opn's transfer list, by `metadata.satang_key`. */
  private async lookUpLostCreate(row: OpnTransferRow, signal: AbortSignal | undefined): Promise<Step> {
    // Opn's clock and ours differ a little: the list starts well before the row was recorded.
    const from = new Date(row.created_at.getTime() - LOOKUP_CLOCK_MARGIN_MS).toISOString();
    let exhausted = false;
    for (let page = 0; page < LOOKUP_PAGES_MAX && !exhausted; page++) {
      const answer = await this.client.get<OpnList<OpnTransfer>>(
        "/transfers",
        {
          from,
          limit: String(LOOKUP_PAGE_SIZE),
          offset: String(page * LOOKUP_PAGE_SIZE),
          order: "chronological",
        },
        { signal },
      );
      if (!answer.ok || !Array.isArray(answer.body.data)) {
        const error = answer.ok
          ? "Opn's transfer list is unreadable"
          : answer.kind === "refused"
            ? `Opn refused: ${answer.code}`
            : answer.error;
        await noteError(this.db, row.payout_key, positionOf(row), error, this.clock.now());
        return {
          kind: "uncertain",
          error: `the transfer's create was not answered and Opn could not be asked: ${error}`,
          recheckAfterMs: this.settings.settleMs,
        };
      }
      const match = answer.body.data.find(
        (transfer) =>
          isObject(transfer.metadata) && transfer.metadata[OPN_METADATA_PAYOUT_KEY] === row.payout_key,
      );
      if (match && typeof match.id === "string") {
        if (satangOf(match.amount) !== row.amount_satang) {
          // Not ours to decide: a transfer under this key for another amount is never adopted,
          // and nothing is sent while it exists. The operator sees it in the payout's evidence.
          const error = `Opn shows transfer ${match.id} under this key for another amount (${String(match.amount)})`;
          await noteError(this.db, row.payout_key, positionOf(row), error, this.clock.now());
          await noteOtherAmount(this.db, row.payout_key, positionOf(row), match.id, this.clock.now());
          return { kind: "uncertain", error, recheckAfterMs: this.settings.settleMs };
        }
        await markSent(this.db, row.payout_key, match.id, this.clock.now());
        return stepOfTransfer(match);
      }
      exhausted = answer.body.data.length < LOOKUP_PAGE_SIZE;
    }
    if (exhausted && row.other_amount_transfer_id !== null) {
      // The whole list shows no transfer under the key any more (Opn deleted it).
      await noteOtherAmount(this.db, row.payout_key, positionOf(row), null, this.clock.now());
    }
    if (!exhausted) {
      // More transfers since than this look reads: absence is not proven, so nothing is resent.
      return {
        kind: "uncertain",
        error: `Opn's transfer list has more than ${LOOKUP_PAGES_MAX * LOOKUP_PAGE_SIZE} transfers since the create; not resent`,
        recheckAfterMs: this.settings.settleMs,
      };
    }
    const since = row.last_attempt_at
      ? this.clock.now().getTime() - row.last_attempt_at.getTime()
      : Number.POSITIVE_INFINITY;
    if (since < this.settings.settleMs) {
      return {
        kind: "uncertain",
        error: "the transfer's create was not answered and Opn does not show it yet",
        recheckAfterMs: this.settings.settleMs - since,
      };
    }
    return { kind: "never_seen" };
  }

  /**
   * Opn's list showed a transfer under this payout's key for another amount (never adopted, so
   * never booked): Opn may pay it or has, so the operator may not resolve the payout failed
   * while it stands (docs/providers/opn.md).
   */
  async bankShowsPaid(trx: Trx, idempotencyKey: string): Promise<string | null> {
    const row = await findTransferRow(trx, idempotencyKey);
    if (!row?.other_amount_transfer_id) return null;
    return `Opn shows transfer ${row.other_amount_transfer_id} under this payout's key for another amount, which Opn may pay or has paid`;
  }

  /**
   * A create claimed less than the settle time ago may still be carried out by Opn (its answer,
   * or Opn's transfer list once the settle time has passed, decides first), or was answered with
   * a transfer the operator's evidence, read before it, did not show: the operator may not
   * resolve the payout failed before then.
   */
  async moneyInFlight(trx: Trx, idempotencyKey: string): Promise<string | null> {
    const row = await findTransferRow(trx, idempotencyKey);
    if ((row?.state !== "sending" && row?.state !== "sent") || row.last_attempt_at === null) return null;
    const settledAt = row.last_attempt_at.getTime() + this.settings.settleMs;
    if (this.clock.now().getTime() >= settledAt) return null;
    const what = row.state === "sent" ? `made transfer ${row.transfer_id}` : "may still be carried out";
    return `an Opn transfer create was sent at ${row.last_attempt_at.toISOString()} and ${what}; Opn's answer, or its transfer list from ${new Date(settledAt).toISOString()}, decides first`;
  }

  /**
   * What the operator is shown about an undecided payout: where its transfer stands here (state,
   * Opn's transfer id, creates sent) and the last error Opn's answers left.
   */
  async payoutEvidence(idempotencyKey: string): Promise<PayoutEvidence> {
    const row = await findTransferRow(this.db, idempotencyKey);
    if (!row) return { transfer: null, lastAnswers: [] };
    return {
      transfer: {
        state: row.state,
        transferId: row.transfer_id,
        sendAttempts: row.send_attempts,
        lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
        failureReason: row.failure_reason,
        bankCode: row.bank_code,
        otherAmountTransferId: row.other_amount_transfer_id,
      },
      lastAnswers:
        row.last_error === null
          ? []
          : [
              {
                at: row.updated_at,
                operation: "transfer",
                httpStatus: null,
                answer: null,
                error: row.last_error,
              },
            ],
    };
  }
}

function recheck(step: { recheckAfterMs?: number }): { recheckAfterMs?: number } {
  return step.recheckAfterMs === undefined ? {} : { recheckAfterMs: Math.max(0, step.recheckAfterMs) };
}
