import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Db } from "../../../src/db/handles.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { OpnClient } from "../../../src/providers/opn/client.ts";
import { OPN_NOTE_RECIPIENT_UNVERIFIED, OpnPayouts } from "../../../src/providers/opn/payouts.ts";
import {
  claimSend,
  findTransferRow,
  markSent,
  type OpnTransferRow,
} from "../../../src/providers/opn/store.ts";
import type { PayoutInput } from "../../../src/providers/provider.ts";
import { deferred } from "../../helpers/deferred.ts";
import { OpnSimulator } from "../../helpers/opn/simulator.ts";
import { openTestStore, type TestStore } from "../../helpers/store.ts";

const SECRET = "skey_test_payouts";
const VERIFY_MAX_MS = 7 * 86_400_000;
const SETTLE_MS = 60_000;
const TIMEOUT_MS = 1_500;

function payout(overrides: Partial<PayoutInput> = {}): PayoutInput {
  return {
    idempotencyKey: randomUUID(),
    merchantId: randomUUID(),
    amountSatang: 250_050n,
    destinationType: "bank_account",
    bankCode: "004",
    accountNumber: String(Math.floor(Math.random() * 1e10)).padStart(10, "0"),
    accountName: "Somchai Jaidee",
    ...overrides,
  };
}

/**
 * These tests drive the connector alone, with payout keys no withdraw holds: every payout counts
 * as open. The fence itself (a payout booked or resolved meanwhile gets no transfer) is tested
 * end to end in e2e-payouts.test.ts.
 */
const everyPayoutOpen = async () => true;

/** The connector under test, over `client` and `db`, on `clock`, with every payout open. */
function connectorOn(client: OpnClient, db: Db, clock: ManualClock): OpnPayouts {
  return new OpnPayouts(
    client,
    db,
    { recipientVerifyMaxMs: VERIFY_MAX_MS, settleMs: SETTLE_MS },
    clock,
    everyPayoutOpen,
  );
}

describe("Opn payouts", () => {
  let sim: OpnSimulator;
  let store: TestStore;
  let clock: ManualClock;
  let payouts: OpnPayouts;

  before(async () => {
    sim = await OpnSimulator.start({ secretKey: SECRET });
    store = await openTestStore();
    clock = new ManualClock(Date.now());
    const client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: TIMEOUT_MS });
    payouts = connectorOn(client, store.db, clock);
  });
  after(async () => {
    await sim.close();
    await store.close();
  });

  /** A payout whose recipient Opn has verified: the send creates its transfer at once. */
  async function withVerifiedRecipient(input: PayoutInput) {
    const first = await payouts.sendPayout(input);
    assert.equal(first.status, "accepted");
    const recipient = [...sim.recipients.values()].at(-1)!;
    sim.verifyRecipient(recipient.id);
    return recipient;
  }

  it("waits for Opn to verify a new recipient without creating a transfer, then pays once it is active", async () => {
    const input = payout();
    const sent = await payouts.sendPayout(input);
    assert.equal(sent.status, "accepted");
    if (sent.status === "accepted") assert.equal(sent.note, OPN_NOTE_RECIPIENT_UNVERIFIED);
    const recipient = [...sim.recipients.values()].at(-1)!;
    assert.deepEqual(recipient.bank_account.brand, "kbank");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);

    const stillWaiting = await payouts.getPayout(input.idempotencyKey);
    assert.equal(stillWaiting.status === "accepted" && stillWaiting.note, OPN_NOTE_RECIPIENT_UNVERIFIED);
    sim.verifyRecipient(recipient.id, { active: false });
    assert.equal((await payouts.getPayout(input.idempotencyKey)).status, "accepted");
    assert.equal(
      sim.transfersFor(input.idempotencyKey).length,
      0,
      "verified but not active: still no transfer",
    );

    sim.verifyRecipient(recipient.id);
    const taken = await payouts.getPayout(input.idempotencyKey);
    const [transfer] = sim.transfersFor(input.idempotencyKey);
    assert.ok(transfer, "the check created the transfer once the recipient was ready");
    assert.equal(transfer.amount, 250_050);
    assert.equal(transfer.recipient, recipient.id);
    assert.deepEqual(taken, {
      status: "accepted",
      providerReference: transfer.id,
      note: "Opn has not sent the transfer yet",
    });

    sim.markTransferSent(transfer.id);
    const sentToBank = await payouts.getPayout(input.idempotencyKey);
    assert.equal(
      sentToBank.status === "accepted" && sentToBank.note,
      "Opn has sent the transfer to the bank",
    );
    sim.markTransferPaid(transfer.id);
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
      status: "paid",
      providerReference: transfer.id,
    });
    assert.deepEqual(await payouts.sendPayout(input), { status: "paid", providerReference: transfer.id });
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 1);
  });

  it("reuses the destination's recipient for a later payout and sends at once", async () => {
    const first = payout();
    await withVerifiedRecipient(first);
    const recipients = sim.recipients.size;
    const second = payout({ accountNumber: first.accountNumber });
    const sent = await payouts.sendPayout(second);
    assert.equal(sent.status, "accepted");
    assert.equal(sim.recipients.size, recipients, "no new recipient");
    assert.equal(sim.transfersFor(second.idempotencyKey).length, 1);
  });

  it("fails with Opn's failure code when the transfer fails", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    await payouts.getPayout(input.idempotencyKey);
    const [transfer] = sim.transfersFor(input.idempotencyKey);
    sim.failTransfer(transfer!.id, "insufficient_balance");
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
      status: "failed",
      providerReference: transfer!.id,
      reason: "insufficient_balance",
    });
  });

  it("creates every transfer with fail_fast, so that Opn's failure is final", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    await payouts.getPayout(input.idempotencyKey);
    const [transfer] = sim.transfersFor(input.idempotencyKey);
    assert.equal(transfer?.fail_fast, true);
  });

  it("keeps a transfer Opn retries after a failure (fail_fast false) undecided, then books it paid", async () => {
    sim.failFastIgnored = true;
    try {
      const input = payout();
      await withVerifiedRecipient(input);
      await payouts.getPayout(input.idempotencyKey);
      const [transfer] = sim.transfersFor(input.idempotencyKey);
      assert.equal(transfer?.fail_fast, false);
      sim.failTransfer(transfer!.id, "insufficient_balance");
      const retried = await payouts.getPayout(input.idempotencyKey);
      assert.equal(retried.status, "accepted", "Opn retries it: it may yet be paid");
      assert.match(String("note" in retried ? retried.note : ""), /insufficient_balance.*retries/);
      sim.markTransferPaid(transfer!.id);
      assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
        status: "paid",
        providerReference: transfer!.id,
      });
      assert.equal(sim.transfersFor(input.idempotencyKey).length, 1, "never created again");
    } finally {
      sim.failFastIgnored = false;
    }
  });

  it("reads a deleted transfer as failed whatever fail_fast says, and transfer_sent never as failed", async () => {
    sim.failFastIgnored = true;
    try {
      const deleted = payout();
      await withVerifiedRecipient(deleted);
      await payouts.getPayout(deleted.idempotencyKey);
      const [gone] = sim.transfersFor(deleted.idempotencyKey);
      sim.failTransfer(gone!.id, "transfer_deleted");
      assert.deepEqual(await payouts.getPayout(deleted.idempotencyKey), {
        status: "failed",
        providerReference: gone!.id,
        reason: "transfer_deleted",
      });
    } finally {
      sim.failFastIgnored = false;
    }
    const sent = payout();
    await withVerifiedRecipient(sent);
    await payouts.getPayout(sent.idempotencyKey);
    const [transfer] = sim.transfersFor(sent.idempotencyKey);
    assert.equal(transfer?.fail_fast, true);
    sim.failTransfer(transfer!.id, "transfer_sent");
    assert.equal((await payouts.getPayout(sent.idempotencyKey)).status, "accepted");
  });

  it("fails with recipient_not_verified past OPN_RECIPIENT_VERIFY_MAX_S, with no transfer ever created", async () => {
    // A clock of its own: the other payouts' times stay near Opn's.
    const clock = new ManualClock(Date.now());
    const client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: TIMEOUT_MS });
    const payouts = connectorOn(client, store.db, clock);
    const input = payout();
    assert.equal((await payouts.sendPayout(input)).status, "accepted");
    clock.advance(VERIFY_MAX_MS - 1_000);
    assert.equal((await payouts.getPayout(input.idempotencyKey)).status, "accepted");
    clock.advance(1_000);
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
      status: "failed",
      providerReference: "",
      reason: "recipient_not_verified",
    });
    // Verified now, too late: the payout stays failed and nothing is ever sent for it.
    sim.verifyRecipient([...sim.recipients.values()].at(-1)!.id);
    assert.equal((await payouts.sendPayout(input)).status, "failed");
    assert.equal((await payouts.getPayout(input.idempotencyKey)).status, "failed");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);
  });

  it("fails with recipient_rejected when Opn rejects the recipient, with no transfer", async () => {
    const input = payout();
    await payouts.sendPayout(input);
    sim.rejectRecipient([...sim.recipients.values()].at(-1)!.id);
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
      status: "failed",
      providerReference: "",
      reason: "recipient_rejected",
    });
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);
  });

  it("finds a transfer whose create timed out but was executed, and never sends it twice", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    // The recipient is ready: this check makes the create, which Opn executes but answers late.
    const otherKey = payout({ accountNumber: input.accountNumber });
    sim.hangNextTransferCreate(TIMEOUT_MS * 3);
    const sent = await payouts.sendPayout(otherKey);
    assert.equal(sent.status, "indeterminate", JSON.stringify(sent));
    assert.equal(sim.transfersFor(otherKey.idempotencyKey).length, 1, "Opn executed it");

    const again = await payouts.sendPayout(otherKey);
    const [transfer] = sim.transfersFor(otherKey.idempotencyKey);
    assert.deepEqual(again, {
      status: "accepted",
      providerReference: transfer!.id,
      note: "Opn has not sent the transfer yet",
    });
    assert.deepEqual(await payouts.getPayout(otherKey.idempotencyKey), again);
    clock.advance(SETTLE_MS * 2);
    await payouts.sendPayout(otherKey);
    assert.equal(sim.transfersFor(otherKey.idempotencyKey).length, 1, "never sent twice");
  });

  it("after a 5xx create, waits out the settle time, then reports the key unseen and the resend makes one transfer", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    sim.failNext({ method: "POST", path: "/transfers", status: 503 });
    const checked = await payouts.getPayout(input.idempotencyKey);
    assert.equal(checked.status, "accepted", "the failed create leaves the payout undecided");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);

    const early = await payouts.sendPayout(input);
    assert.equal(early.status, "indeterminate", "no resend inside the settle time");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);

    clock.advance(SETTLE_MS);
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), { status: "not_found" });
    const resent = await payouts.sendPayout(input);
    assert.equal(resent.status, "accepted");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 1);
  });

  it("never adopts nor resends over a transfer Opn shows under the key for another amount", async () => {
    const input = payout();
    const recipient = await withVerifiedRecipient(input);
    sim.failNext({ method: "POST", path: "/transfers", status: 503 });
    await payouts.getPayout(input.idempotencyKey);
    const client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: TIMEOUT_MS });
    const stranger = await client.post("/transfers", {
      amount: 1,
      recipient: recipient.id,
      metadata: { satang_key: input.idempotencyKey },
    });
    assert.equal(stranger.ok, true);
    clock.advance(SETTLE_MS);
    assert.equal((await payouts.sendPayout(input)).status, "indeterminate");
    const checked = await payouts.getPayout(input.idempotencyKey);
    assert.equal(checked.status, "accepted");
    if (checked.status === "accepted") assert.match(checked.note ?? "", /another amount/);
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 1, "only the stranger: nothing sent over it");
  });

  it("stays undecided when Opn's transfer list answers 429, and decides once it answers", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    sim.hangNextTransferCreate(TIMEOUT_MS * 3);
    assert.equal((await payouts.getPayout(input.idempotencyKey)).status, "accepted");
    sim.failNext({ method: "GET", path: "/transfers", status: 429, retryAfter: "2" });
    const limited = await payouts.sendPayout(input);
    assert.equal(limited.status, "indeterminate");
    const found = await payouts.sendPayout(input);
    assert.equal(found.status, "accepted");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 1);
  });

  it("keeps the payout accepted when Opn answers 5xx about the recipient", async () => {
    const input = payout();
    sim.failNext({ method: "POST", path: "/recipients", status: 500 });
    const sent = await payouts.sendPayout(input);
    assert.equal(sent.status, "accepted");
    if (sent.status === "accepted") assert.match(sent.note ?? "", /could not be asked/);
    assert.equal((await payouts.getPayout(input.idempotencyKey)).status, "accepted");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);
  });

  it("fails with Opn's code when Opn refuses the only create", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    sim.failNext({ method: "POST", path: "/transfers", status: 400, code: "transfers_suspended" });
    assert.deepEqual(await payouts.getPayout(input.idempotencyKey), {
      status: "failed",
      providerReference: "",
      reason: "transfers_suspended",
    });
    assert.equal((await payouts.sendPayout(input)).status, "failed");
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 0);
  });

  /** The row once a create of the key has claimed it (its answer still on the way). */
  async function claimedRow(key: string, attempts: number): Promise<OpnTransferRow> {
    for (let i = 0; i < 500; i++) {
      const row = await findTransferRow(store.db, key);
      if (row?.state === "sending" && row.send_attempts === attempts) return row;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no create of ${key} claimed attempt ${attempts}`);
  }

  it("a create's refusal that lands after a later create was claimed neither ends the transfer nor fails the payout", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    // Create 1 is refused, but the answer comes late (within the client's timeout) ...
    sim.failNext({
      method: "POST",
      path: "/transfers",
      status: 400,
      code: "transfers_suspended",
      delayMs: 1_000,
    });
    const late = payouts.getPayout(input.idempotencyKey);
    // ... after another process has claimed create 2, which Opn may yet carry out.
    const row = await claimedRow(input.idempotencyKey, 1);
    assert.equal((await claimSend(store.db, row, clock.now(), everyPayoutOpen)).kind, "claimed");
    const answered = await late;
    assert.equal(answered.status, "accepted", JSON.stringify(answered));
    const after = await findTransferRow(store.db, input.idempotencyKey);
    assert.equal(after?.state, "sending", "create 2 still decides");
    assert.equal(after?.send_attempts, 2);
    assert.equal(after?.failure_reason, null);
  });

  it("an error of a create that lands after a later create's transfer was recorded is not kept as the transfer's last error", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    sim.failNext({ method: "POST", path: "/transfers", status: 503, delayMs: 1_000 });
    const late = payouts.getPayout(input.idempotencyKey);
    const row = await claimedRow(input.idempotencyKey, 1);
    assert.equal((await claimSend(store.db, row, clock.now(), everyPayoutOpen)).kind, "claimed");
    await markSent(store.db, input.idempotencyKey, "trsf_test_later_create", clock.now());
    await late;
    const evidence = await payouts.payoutEvidence(input.idempotencyKey);
    assert.equal(evidence.transfer?.state, "sent");
    assert.deepEqual(evidence.lastAnswers, [], "no stale 503 on a transfer that exists");
  });

  /**
   * A connector whose next read of a recipient, once armed, is held after Opn answered it: the
   * answer lands when the test releases it, after the test moved the transfer's row on.
   */
  function heldRecipientReads(ownClock: ManualClock) {
    let armed: { arrived: () => void; release: Promise<void> } | null = null;
    const heldFetch: typeof fetch = async (url, init) => {
      const answer = await fetch(url, init);
      const held = armed;
      if (held && (init?.method ?? "GET") === "GET" && String(url).includes("/recipients/")) {
        armed = null;
        held.arrived();
        await held.release;
      }
      return answer;
    };
    const client = new OpnClient({
      baseUrl: sim.url,
      secretKey: SECRET,
      timeoutMs: 10_000,
      fetch: heldFetch,
    });
    const own = connectorOn(client, store.db, ownClock);
    return {
      payouts: own,
      holdNext() {
        const arrived = deferred();
        const release = deferred();
        armed = { arrived: () => arrived.resolve(), release: release.promise };
        return { arrived: arrived.promise, release: () => release.resolve() };
      },
    };
  }

  /** Another process's create claimed on the row as it stands (it saw the recipient verified). */
  async function claimCreateMeanwhile(key: string, at: Date): Promise<void> {
    const row = await findTransferRow(store.db, key);
    assert.equal(row?.state, "waiting_recipient");
    assert.equal((await claimSend(store.db, row, at, everyPayoutOpen)).kind, "claimed");
  }

  const recipientEndings: { what: string; end(clock: ManualClock): void }[] = [
    { what: "rejection", end: () => sim.rejectRecipient([...sim.recipients.values()].at(-1)!.id) },
    { what: "verification wait running out", end: (own) => own.advance(VERIFY_MAX_MS) },
  ];
  for (const { what, end } of recipientEndings) {
    it(`a recipient's ${what} that lands after a create was claimed neither ends the transfer nor fails the payout`, async () => {
      const ownClock = new ManualClock(Date.now());
      const held = heldRecipientReads(ownClock);
      const input = payout();
      assert.equal((await held.payouts.sendPayout(input)).status, "accepted");
      end(ownClock);
      const gate = held.holdNext();
      const late = held.payouts.getPayout(input.idempotencyKey);
      await gate.arrived;
      await claimCreateMeanwhile(input.idempotencyKey, ownClock.now());
      gate.release();
      const answered = await late;
      assert.equal(answered.status, "accepted", JSON.stringify(answered));
      const after = await findTransferRow(store.db, input.idempotencyKey);
      assert.equal(after?.state, "sending", "the claimed create still decides");
      assert.equal(after?.failure_reason, null);
    });
  }

  it("a recipient read that lands after a later one's keeps the later: the destination's next payout is not failed as rejected", async () => {
    const ownClock = new ManualClock(Date.now());
    const slow = heldRecipientReads(ownClock);
    const other = heldRecipientReads(ownClock);
    const first = payout();
    assert.equal((await slow.payouts.sendPayout(first)).status, "accepted");
    const recipient = [...sim.recipients.values()].at(-1)!;
    // Process A reads the recipient while Opn shows it unverified with a failure code ...
    sim.rejectRecipient(recipient.id);
    const gate = slow.holdNext();
    const late = slow.payouts.getPayout(first.idempotencyKey);
    await gate.arrived;
    // ... then Opn verifies it, and process B reads that a second later and creates the transfer.
    sim.verifyRecipient(recipient.id);
    ownClock.advance(1_000);
    assert.equal((await other.payouts.getPayout(first.idempotencyKey)).status, "accepted");
    assert.equal(sim.transfersFor(first.idempotencyKey).length, 1);
    gate.release();
    await late;
    const second = payout({ accountNumber: first.accountNumber });
    const sent = await other.payouts.sendPayout(second);
    assert.equal(sent.status, "accepted", JSON.stringify(sent));
    assert.equal(sim.transfersFor(second.idempotencyKey).length, 1, "the verified recipient is paid");
  });

  it("counts a create as in flight (the operator may not resolve it failed) until the settle time has passed", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    const inFlight = () =>
      store.db.transaction().execute((trx) => payouts.moneyInFlight(trx, input.idempotencyKey));
    assert.equal(await inFlight(), null, "waiting for its recipient: nothing was sent");
    sim.failNext({ method: "POST", path: "/transfers", status: 503 });
    await payouts.getPayout(input.idempotencyKey);
    assert.match((await inFlight()) ?? "", /an Opn transfer create was sent at .* decides first/);
    clock.advance(SETTLE_MS - 1_000);
    assert.notEqual(await inFlight(), null);
    clock.advance(1_000);
    assert.equal(
      await inFlight(),
      null,
      "past the settle time Opn's transfer list decides, and the operator may",
    );
  });

  it("sends one transfer when two sends of one key race", async () => {
    const input = payout();
    await withVerifiedRecipient(input);
    sim.hangNextTransferCreate(100);
    const results = await Promise.all([
      payouts.sendPayout(input),
      payouts.sendPayout(input),
      payouts.getPayout(input.idempotencyKey),
    ]);
    assert.ok(
      results.some((result) => result.status === "accepted"),
      JSON.stringify(results),
    );
    assert.equal(sim.transfersFor(input.idempotencyKey).length, 1);
  });

  it("fails a payout to a bank Opn does not serve, or to a wallet, without calling Opn", async () => {
    const count = sim.requests.length;
    assert.deepEqual(await payouts.sendPayout(payout({ bankCode: "098" })), {
      status: "failed",
      providerReference: "",
      reason: "bank_not_supported",
    });
    assert.equal((await payouts.sendPayout(payout({ destinationType: "wallet" }))).status, "failed");
    assert.equal(sim.requests.length, count);
  });

  it("answers not_found for a key it was never given", async () => {
    assert.deepEqual(await payouts.getPayout(randomUUID()), { status: "not_found" });
  });
});

describe("Opn payouts: evidence for the operator", () => {
  it("shows the transfer's state, attempts and Opn's last error for an undecided payout", async () => {
    const sim = await OpnSimulator.start({ secretKey: SECRET });
    const store = await openTestStore();
    try {
      const clock = new ManualClock(Date.now());
      const client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: TIMEOUT_MS });
      const payouts = connectorOn(client, store.db, clock);
      const input = payout();
      assert.deepEqual(await payouts.payoutEvidence(input.idempotencyKey), {
        transfer: null,
        lastAnswers: [],
      });
      await payouts.sendPayout(input);
      sim.verifyRecipient([...sim.recipients.values()].at(-1)!.id);
      sim.failNext({ method: "POST", path: "/transfers", status: 503 });
      await payouts.getPayout(input.idempotencyKey);
      const evidence = await payouts.payoutEvidence(input.idempotencyKey);
      assert.equal(evidence.transfer?.state, "sending");
      assert.equal(evidence.transfer?.sendAttempts, 1);
      assert.equal(evidence.transfer?.transferId, null);
      assert.match(evidence.lastAnswers[0]?.error ?? "", /HTTP 503/);
    } finally {
      await sim.close();
      await store.close();
    }
  });
});
