/**
 * The payout money-safety property (issue 21, item 8; docs/RELIABILITY.md): generated schedules
 * drive the real payout lifecycle (dispatcher and reconciler, two workers, restarts) against a
 * model of SCB's credit transfer (test/helpers/scb/bank-model.ts) whose every call can time out,
 * answer late, carry the request out without answering, never come back, or answer 5xx, 4xx or
 * 429. After each schedule, and a quiet period in which the bank answers everything:
 *
 * - a withdraw is `paid` iff the bank moved its money exactly once, and money never moves twice;
 * - a withdraw is `failed` only when the bank shows nothing moved;
 * - the ledger and the bank agree to the satang (held, paid, released);
 * - a withdraw still undecided is past its bound only with an alert: listed for the operator,
 *   counted, logged; the test then resolves it on the bank's truth, as the operator would.
 *
 * PAYOUT_PROPERTY_RUNS sets the number of schedules (a short sample by default, in CI);
 * `npm run chaos:payouts -- --runs 10000` runs the long one. The seed is fixed
 * (PAYOUT_PROPERTY_SEED to change it).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { ManualClock } from "../../src/lib/clock.ts";
import type { AppError } from "../../src/lib/errors.ts";
import { PROVIDER_CALL_TIMEOUT_MS } from "../../src/lib/limits.ts";
import { formatAmount } from "../../src/lib/money.ts";
import type { LifecycleContext } from "../../src/lifecycle/context.ts";
import { dispatchPendingWithdraws, reconcilePayouts } from "../../src/lifecycle/payouts.ts";
import {
  alertUndecided,
  listUndecided,
  resolveWithdraw,
  undecidedCount,
} from "../../src/lifecycle/undecided.ts";
import type { ScbCollection } from "../../src/providers/scb/collection.ts";
import { ScbPayouts } from "../../src/providers/scb/payouts.ts";
import { ScbProvider } from "../../src/providers/scb/provider.ts";
import { partnerTransactionId } from "../../src/providers/scb/references.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, fundWallet } from "../helpers/ledger.ts";
import { createWithdraw, ledgerKinds } from "../helpers/lifecycle.ts";
import { BANK_FAULTS, BankModel } from "../helpers/scb/bank-model.ts";
import { SCB_TEST } from "../helpers/scb/setup.ts";

const RUNS = Number(process.env.PAYOUT_PROPERTY_RUNS ?? 12);
const SEED = Number(process.env.PAYOUT_PROPERTY_SEED ?? 20261126);
/** A long run says how far it got every this many schedules (0: never). */
const PROGRESS_EVERY = Number(process.env.PAYOUT_PROPERTY_PROGRESS ?? (RUNS > 100 ? 250 : 0));
/** The lifecycle's bound of one provider call in this test (real milliseconds). */
const CALL_BOUND_MS = 20;
/** How long a late answer takes: past the bound. */
const LATE_MS = 60;
const ALERT_S = 3_600;
const INQUIRY_DELAY_MS = 120_000;

let svc: TestService;
let bankClock: ManualClock;

before(async () => {
  svc = await startService({ env: { PAYOUT_UNDECIDED_ALERT_S: String(ALERT_S) } });
  bankClock = new ManualClock(svc.clock.now().getTime());
});
after(async () => {
  await svc?.close();
});

type Step =
  | { kind: "dispatch"; worker: 0 | 1 }
  | { kind: "reconcile"; worker: 0 | 1 }
  | { kind: "both" }
  | { kind: "advance"; ms: number }
  | { kind: "restart"; worker: 0 | 1 };

const worker = fc.constantFrom<0 | 1>(0, 1);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("dispatch" as const), worker }),
  fc.record({ kind: fc.constant("reconcile" as const), worker }),
  fc.record({ kind: fc.constant("both" as const) }),
  fc.record({
    kind: fc.constant("advance" as const),
    ms: fc.constantFrom(1_000, 61_000, 600_000, 3_600_000),
  }),
  fc.record({ kind: fc.constant("restart" as const), worker }),
);

const scheduleArb = fc.record({
  amounts: fc.array(fc.integer({ min: 1, max: 500_000 }), { minLength: 1, maxLength: 2 }),
  faults: fc.array(fc.constantFrom(...BANK_FAULTS), { maxLength: 14 }),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 12 }),
  duplicates: fc.constantFrom<"refuse" | "accept">("refuse", "accept"),
  confirmFails: fc.boolean(),
});

type Schedule = typeof scheduleArb extends fc.Arbitrary<infer S> ? S : never;

function providerFor(bank: BankModel): ScbProvider {
  return new ScbProvider({
    db: svc.deps.db,
    clock: bankClock,
    collection: null as unknown as ScbCollection,
    payouts: new ScbPayouts(
      bank.client(),
      { payer: { ...SCB_TEST.payer }, inquiryDelayMs: INQUIRY_DELAY_MS },
      bankClock,
    ),
    reconcileIntervalMs: 60_000,
  });
}

function workerContext(bank: BankModel): LifecycleContext {
  return {
    ...svc.deps,
    config: { ...svc.deps.config, payoutPickup: "automatic", payouts: "provider" },
    provider: providerFor(bank),
    payoutCallTimeoutMs: CALL_BOUND_MS,
  };
}

function advance(ms: number): void {
  svc.clock.advance(ms);
  bankClock.advance(ms);
}

async function statusOf(id: string): Promise<string> {
  const row = await svc.deps.db
    .selectFrom("withdraws")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function runSchedule(schedule: Schedule): Promise<void> {
  const bank = new BankModel(LATE_MS);
  bank.faults = [...schedule.faults];
  bank.duplicates = schedule.duplicates;
  bank.confirmFails = schedule.confirmFails;
  const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
  await fundWallet(svc.deps, merchant.merchantId, 100_000_000n);
  const withdraws: { id: string; satang: bigint }[] = [];
  for (const [i, satang] of schedule.amounts.entries()) {
    const amount = formatAmount(BigInt(satang));
    const created = await createWithdraw(svc, merchant, {
      amount,
      // Names far apart, so the matching-payout guard never joins two of one schedule.
      customerBankAccountName: i === 0 ? "Somchai Jaidee" : "Malee Srisuk Wongsawat",
      customerBankCode: "014",
      customerBankAccountNumber: `55566677${70 + i}`,
    });
    withdraws.push({ id: created.id, satang: BigInt(satang) });
  }
  const workers = [workerContext(bank), workerContext(bank)];
  const run = (w: 0 | 1, what: "dispatch" | "reconcile") =>
    what === "dispatch" ? dispatchPendingWithdraws(workers[w]!) : reconcilePayouts(workers[w]!);
  for (const step of schedule.steps) {
    switch (step.kind) {
      case "dispatch":
      case "reconcile":
        await run(step.worker, step.kind);
        break;
      case "both":
        await Promise.all([run(0, "dispatch"), run(1, "reconcile")]);
        break;
      case "advance":
        advance(step.ms);
        break;
      case "restart":
        // A new process: nothing of the old one's provider object survives but the database.
        workers[step.worker] = workerContext(bank);
        break;
    }
  }
  // Quiet: the bank answers everything; the workers run until every withdraw is decided, or
  // until long past the undecided bound.
  bank.faults = [];
  for (let round = 0; round < 12; round += 1) {
    await dispatchPendingWithdraws(workers[0]!);
    advance(3_600_000);
    await Promise.all([reconcilePayouts(workers[0]!), reconcilePayouts(workers[1]!)]);
    const open = await Promise.all(withdraws.map((w) => statusOf(w.id)));
    if (open.every((s) => s !== "processing" && s !== "pending")) break;
  }

  // The properties.
  const logged: string[] = [];
  await alertUndecided(workers[0]!, { error: (d) => logged.push((d as { withdrawId: string }).withdrawId) });
  const listed = (await listUndecided(workers[0]!, { page: 1, limit: 100 })).records.map((r) => r.withdrawId);
  const alerted = await svc.deps.db
    .selectFrom("payouts")
    .select(["withdraw_id", "undecided_alerted_at"])
    .where(
      "withdraw_id",
      "in",
      withdraws.map((w) => w.id),
    )
    .execute();
  for (const w of withdraws) {
    const partner = partnerTransactionId(w.id);
    const executed = bank.executions.get(partner) ?? 0;
    assert.ok(executed <= 1, `money moved ${executed} times for one withdraw`);
    let status = await statusOf(w.id);
    assert.notEqual(status, "pending", "every withdraw was handed over");
    if (status === "processing") {
      // Undecided past its bound: listed, counted, alerted; the operator resolves it on the
      // bank's truth, through the same booking.
      assert.ok(listed.includes(w.id), "an undecided withdraw is listed for the operator");
      assert.ok(
        alerted.find((a) => a.withdraw_id === w.id)?.undecided_alerted_at,
        "an undecided withdraw is alerted",
      );
      assert.ok((await undecidedCount(workers[0]!)) >= 1);
      const resolve = () =>
        resolveWithdraw(
          workers[0]!,
          w.id,
          { outcome: executed === 1 ? "paid" : "failed", reason: "property test: the bank's truth" },
          { actor: "operator:property_test", requestId: null },
        );
      try {
        await resolve();
      } catch (error) {
        // A confirm the last round sent may still be carried out: `failed` is refused until its
        // window is over (CONTRACT 15), and the operator waits it out, as the answer says.
        assert.equal((error as AppError).code, "STATE_CONFLICT", String(error));
        assert.deepEqual((error as AppError).metadata, { status: "processing", reason: "payout_in_flight" });
        assert.equal(executed, 0, "only a failed resolution waits for a confirm in flight");
        advance(PROVIDER_CALL_TIMEOUT_MS + Math.max(INQUIRY_DELAY_MS, PROVIDER_CALL_TIMEOUT_MS));
        await resolve();
      }
      status = await statusOf(w.id);
    } else if (status === "paid") {
      assert.equal(executed, 1, "paid although the bank did not move the money exactly once");
    } else {
      assert.equal(status, "failed");
      assert.equal(executed, 0, "failed although the bank moved the money");
    }
    const moved = bank.moved.get(partner) ?? 0n;
    const kinds = await ledgerKinds(svc.deps.db, w.id);
    if (status === "paid") {
      assert.equal(moved, w.satang, "the bank moved the withdraw's amount, to the satang");
      assert.deepEqual(kinds, ["withdraw_hold", "withdraw_paid"]);
    } else {
      assert.equal(moved, 0n);
      assert.deepEqual(kinds, ["withdraw_hold", "withdraw_release"]);
    }
  }
  await assertLedgerConsistent(svc.deps.db);
}

describe("payout money safety against a model of SCB", () => {
  it(`holds for ${RUNS} generated schedules (seed ${SEED})`, { timeout: 24 * 3_600_000 }, async () => {
    const started = Date.now();
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(scheduleArb, async (schedule) => {
        try {
          await runSchedule(schedule);
          ran += 1;
          if (PROGRESS_EVERY > 0 && ran % PROGRESS_EVERY === 0) {
            const seconds = ((Date.now() - started) / 1000).toFixed(0);
            process.stderr.write(`payout property: ${ran} schedules held (${seconds} s)\n`);
          }
        } catch (error) {
          console.error("payout property: schedule failed:", error);
          throw error;
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    if (RUNS > 100) {
      console.log(`payout property: ${RUNS} schedules in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  });
});
