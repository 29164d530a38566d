/**
 * The connector conformance suite (docs/providers/README.md): one set of tests that every
 * connector runs against its own simulator, so that a new connector proves it keeps the port's
 * rules (providers/port.ts, providers/provider.ts) the way the lifecycle relies on them.
 *
 * A connector's test file calls `describeConformance(subject)`. The subject builds a fresh
 * connector pointed at a fresh simulator and hands the suite the simulator's controls: a customer
 * paying at the provider, a forged and a malformed notice, the provider going down and coming
 * back, a transfer carried out whose answer is lost, a transfer the provider refuses.
 *
 * What each test holds a connector to:
 * - instruct: a payment gets a QR payload or a provider-made QR image; a provider that cannot be
 *   asked answers `unavailable` (the router then tries the next connector), unless the QR is
 *   made locally without asking the provider at all.
 * - readNotice: the provider's genuine notice is a claim naming the provider's transaction; a
 *   forged one never leads to `verified`; a body that is not a notice is `malformed`.
 * - inquire: only what the provider's own API shows: `verified` with its amount and reference,
 *   `not_found` for what it does not show, `mismatch` naming `amount`, `unavailable` (never
 *   `not_found`) when it cannot be asked.
 * - find: the paid payment, for the reconciler's lost notices; `unavailable` when down.
 * - payouts: a send is taken or decided with the provider's reference; one key is one transfer
 *   at the provider however many sends; a transfer carried out whose answer was lost is left
 *   undecided (`indeterminate`, or `accepted` when the provider's reference was known before the
 *   answer was lost) and a lookup then shows it (never `not_found`); an unknown key is
 *   `not_found`; a transfer the provider refuses is `failed` with the provider's code.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { inspect } from "node:util";
import type {
  CollectionPort,
  Connector,
  InstructInput,
  Instruction,
  NoticeClaim,
} from "../../src/providers/port.ts";
import type { IncomingCallback, PayoutInput, Provider } from "../../src/providers/provider.ts";

export type Instructed = Extract<Instruction, { status: "instructed" }>;

/** A payment the customer made at the provider: its transaction and the notice the provider sent. */
export interface PaidAtProvider {
  transactionId: string;
  notice: IncomingCallback;
}

/** One connector built for the suite, with its simulator's controls. */
export interface ConformanceRun {
  connector: Connector;
  /**
   * What `instruct` does while the provider is down: `unavailable` when it asks the provider,
   * `instructed` when the QR is made locally and the provider is not asked at all (SCB).
   */
  instructWhileDown: "unavailable" | "instructed";
  /** The provider's time (its simulator's clock): the window `find` is asked about. */
  now(): Date;
  /** A payment to instruct: fresh ids and a reference the connector accepts. */
  payment(amountSatang: bigint): InstructInput;
  /** The customer pays `amountSatang` at the provider for the instructed payment. */
  payOnProvider(given: InstructInput, instruction: Instructed, amountSatang: bigint): Promise<PaidAtProvider>;
  /** A notice the provider did not send, claiming the instructed payment was paid in full. */
  forgedNotice(given: InstructInput, instruction: Instructed): Promise<IncomingCallback>;
  /** A notice whose body is not one of the provider's notices (signed, where it signs). */
  malformedNotice(): Promise<IncomingCallback>;
  /** The provider answers nothing (5xx) until `recover`. */
  goDown(): void;
  recover(): void;
  /** A payout the connector can send: its key names what the lifecycle handed over. */
  newPayout(amountSatang: bigint): Promise<PayoutInput>;
  /** How many transfers the provider holds under the payout's key. */
  transfersAt(input: PayoutInput): Promise<number>;
  /**
   * What a send answers when its transfer was carried out but the answer lost: `indeterminate`,
   * or `accepted` (undecided) when the provider's reference was known before the lost answer.
   */
  lostTransferAnswer: "indeterminate" | "accepted";
  /** The next transfer is carried out at the provider, but its answer never comes back. */
  executeButDropAnswer(): void;
  /** The next transfer is refused by the provider; returns the provider's failure code. */
  refuseNextTransfer(): string;
  /** What must pass at the provider before a lost transfer can be asked about (a delay). */
  settleLostTransfer?(): Promise<void>;
  close(): Promise<void>;
}

export interface ConformanceSubject {
  /** The connector's name in SATANG_PROVIDER. */
  name: string;
  start(): Promise<ConformanceRun>;
}

function collectionOf(run: ConformanceRun): CollectionPort {
  const collection = run.connector.collection;
  assert.ok(collection, "the connector collects");
  return collection;
}

function payoutsOf(run: ConformanceRun): Provider {
  const payouts = run.connector.payouts;
  assert.ok(payouts, "the connector pays out");
  return payouts;
}

export function describeConformance(subject: ConformanceSubject): void {
  describe(`connector conformance: ${subject.name}`, () => {
    let run: ConformanceRun;

    before(async () => {
      run = await subject.start();
    });
    after(async () => {
      await run.close();
    });

    async function instructed(
      amountSatang = 150_050n,
    ): Promise<{ given: InstructInput; instruction: Instructed }> {
      const given = run.payment(amountSatang);
      const instruction = await collectionOf(run).instruct(given);
      if (instruction.status !== "instructed") assert.fail(`instruct: ${shown(instruction)}`);
      return { given, instruction };
    }

    async function claimOf(notice: IncomingCallback): Promise<NoticeClaim> {
      const reading = await collectionOf(run).readNotice(notice);
      if (reading.status !== "claim") assert.fail(`readNotice: ${shown(reading)}`);
      return reading.claim;
    }

    /** The provider down for the length of `body`, whatever it throws. */
    async function whileDown<T>(body: () => Promise<T>): Promise<T> {
      run.goDown();
      try {
        return await body();
      } finally {
        run.recover();
      }
    }

    it("is named as SATANG_PROVIDER names it and collects promptpay", () => {
      assert.equal(run.connector.name, subject.name);
      assert.ok(collectionOf(run).methods.includes("promptpay"));
    });

    describe("collection", () => {
      it("instructs a payment with a QR payload or a provider-made QR image", async () => {
        const { instruction } = await instructed();
        assert.ok(
          (instruction.qrPayload !== null && instruction.qrPayload.length > 0) ||
            (instruction.qrImageUrl !== null && instruction.qrImageUrl.length > 0),
          shown(instruction),
        );
      });

      it("instructs while the provider is down only when it does not ask the provider", async () => {
        const given = run.payment(150_050n);
        const instruction = await whileDown(() => collectionOf(run).instruct(given));
        assert.equal(instruction.status, run.instructWhileDown, shown(instruction));
        if (instruction.status === "unavailable") assert.ok(instruction.error.length > 0);
      });

      it("reads the provider's genuine notice as a claim naming the provider's transaction", async () => {
        const { given, instruction } = await instructed(150_050n);
        const paid = await run.payOnProvider(given, instruction, 150_050n);
        const claim = await claimOf(paid.notice);
        assert.equal(claim.transactionId, paid.transactionId);
        if (claim.reference !== null) assert.equal(claim.reference, given.reference);
        if (claim.amountSatang !== null) assert.equal(claim.amountSatang, 150_050n);
        assert.ok(claim.paidAt instanceof Date && !Number.isNaN(claim.paidAt.getTime()));
      });

      it("never verifies a forged notice", async () => {
        const { given, instruction } = await instructed();
        const reading = await collectionOf(run).readNotice(await run.forgedNotice(given, instruction));
        if (reading.status === "claim") {
          const verdict = await collectionOf(run).inquire(reading.claim);
          assert.notEqual(verdict.status, "verified", shown(verdict));
          assert.notEqual(verdict.status, "malformed");
        } else {
          assert.equal(reading.status, "malformed", shown(reading));
        }
      });

      it("reads a body that is not a notice as malformed", async () => {
        const reading = await collectionOf(run).readNotice(await run.malformedNotice());
        assert.equal(reading.status, "malformed", shown(reading));
        if (reading.status === "malformed") assert.ok(reading.error.length > 0);
      });

      it("verifies a paid payment with the amount and reference its provider shows", async () => {
        const { given, instruction } = await instructed(99_999n);
        const paid = await run.payOnProvider(given, instruction, 99_999n);
        const verdict = await collectionOf(run).inquire(await claimOf(paid.notice));
        if (verdict.status !== "verified") assert.fail(shown(verdict));
        assert.equal(verdict.payment.transactionId, paid.transactionId);
        assert.equal(verdict.payment.amountSatang, 99_999n);
        assert.equal(verdict.payment.reference, given.reference);
      });

      it("answers not_found for a transaction its provider does not show", async () => {
        const { given, instruction } = await instructed();
        const paid = await run.payOnProvider(given, instruction, 150_050n);
        const claim = await claimOf(paid.notice);
        const verdict = await collectionOf(run).inquire({
          ...claim,
          transactionId: unknownTransactionLike(claim.transactionId),
        });
        assert.equal(verdict.status, "not_found", shown(verdict));
      });

      it("answers mismatch naming amount when the customer paid another amount", async () => {
        const { given, instruction } = await instructed(150_050n);
        const paid = await run.payOnProvider(given, instruction, 150_000n);
        const claim = await claimOf(paid.notice);
        // What the payment expects: its own amount, for the transaction the provider sent.
        const verdict = await collectionOf(run).inquire({ ...claim, amountSatang: given.amountSatang });
        if (verdict.status !== "mismatch") assert.fail(shown(verdict));
        assert.ok(verdict.fields.includes("amount"), shown(verdict.fields));
        assert.equal(verdict.payment.amountSatang, 150_000n);
      });

      it("answers unavailable, never not_found, while its provider is down", async () => {
        const { given, instruction } = await instructed();
        const paid = await run.payOnProvider(given, instruction, 150_050n);
        const claim = await claimOf(paid.notice);
        const verdict = await whileDown(() => collectionOf(run).inquire(claim));
        assert.equal(verdict.status, "unavailable", shown(verdict));
        assert.equal(
          (await collectionOf(run).inquire(claim)).status,
          "verified",
          "and verified once it is back",
        );
      });

      it("finds a paid payment whose notice was lost, and answers unavailable while down", async () => {
        const { given, instruction } = await instructed(150_050n);
        const from = new Date(run.now().getTime() - 3_600_000);
        const paid = await run.payOnProvider(given, instruction, 150_050n);
        const toCheck = {
          paymentId: given.paymentId,
          reference: given.reference,
          amountSatang: given.amountSatang,
          providerPaymentId: instruction.providerPaymentId,
          createdAt: from,
        };
        const to = new Date(run.now().getTime() + 3_600_000);
        const search = await collectionOf(run).find(toCheck, from, to);
        if (search.status !== "answered") assert.fail(shown(search));
        const found = search.payments.filter((payment) => payment.transactionId === paid.transactionId);
        assert.equal(found.length, 1, shown(search.payments));
        assert.equal(found[0]!.amountSatang, 150_050n);
        assert.equal(found[0]!.reference, given.reference);
        const down = await whileDown(() => collectionOf(run).find(toCheck, from, to));
        assert.equal(down.status, "unavailable", shown(down));
      });
    });

    describe("payouts", () => {
      it("takes or decides a send with the provider's reference", async () => {
        const input = await run.newPayout(250_050n);
        const sent = await payoutsOf(run).sendPayout(input);
        assert.ok(["accepted", "paid"].includes(sent.status), shown(sent));
        if (sent.status === "accepted" || sent.status === "paid")
          assert.ok(sent.providerReference.length > 0);
        assert.equal(await run.transfersAt(input), 1);
        const looked = await payoutsOf(run).getPayout(input.idempotencyKey);
        assert.ok(["accepted", "paid"].includes(looked.status), shown(looked));
      });

      it("makes one transfer at the provider for two sends with one key", async () => {
        const input = await run.newPayout(120_000n);
        const first = await payoutsOf(run).sendPayout(input);
        const second = await payoutsOf(run).sendPayout(input);
        assert.notEqual(first.status, "indeterminate", shown(first));
        assert.notEqual(second.status, "indeterminate", shown(second));
        assert.equal(await run.transfersAt(input), 1);
        if ("providerReference" in first && "providerReference" in second) {
          assert.equal(second.providerReference, first.providerReference);
        }
      });

      it("leaves a transfer carried out whose answer was lost undecided, and a lookup then shows it", async () => {
        const input = await run.newPayout(130_000n);
        run.executeButDropAnswer();
        const sent = await payoutsOf(run).sendPayout(input);
        // Undecided: indeterminate, or taken when the provider's reference was known before the
        // lost answer (SCB's tokenizer id); never decided on a lost answer.
        assert.equal(sent.status, run.lostTransferAnswer, shown(sent));
        assert.equal(await run.transfersAt(input), 1, "the provider carried it out");
        await run.settleLostTransfer?.();
        const looked = await payoutsOf(run).getPayout(input.idempotencyKey);
        assert.notEqual(looked.status, "not_found", "never not_found for a transfer the provider made");
        assert.ok(["accepted", "paid"].includes(looked.status), shown(looked));
        if (looked.status === "accepted" || looked.status === "paid")
          assert.ok(looked.providerReference.length > 0);
        assert.equal(await run.transfersAt(input), 1, "and nothing was sent twice");
      });

      it("answers not_found for a key it was never sent", async () => {
        assert.deepEqual(await payoutsOf(run).getPayout((await run.newPayout(1_000n)).idempotencyKey), {
          status: "not_found",
        });
      });

      it("decides a transfer its provider refuses as failed, with the provider's code", async () => {
        const input = await run.newPayout(140_000n);
        const code = run.refuseNextTransfer();
        const sent = await payoutsOf(run).sendPayout(input);
        if (sent.status !== "failed") assert.fail(shown(sent));
        assert.ok((sent.reason ?? "").includes(code), `${sent.reason} names ${code}`);
        const looked = await payoutsOf(run).getPayout(input.idempotencyKey);
        assert.ok(["failed", "not_found"].includes(looked.status), shown(looked));
        assert.notEqual(looked.status, "paid");
      });
    });
  });
}

/** A value as an assertion message prints it (bigints included). */
function shown(value: unknown): string {
  return inspect(value, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
}

/** A transaction id of the same form as `known` that no provider has made. */
function unknownTransactionLike(known: string): string {
  const tail = randomUUID().replace(/-/g, "").slice(0, 8);
  return `${known.slice(0, Math.max(0, known.length - tail.length))}${tail}`;
}
