/**
 * `satang trigger <event>`: makes the sandbox produce one event, the way a merchant's own code
 * and customers would: it creates a payment or a withdraw through the public API and then tells
 * the simulated bank (or the test clock) what happens. Every step is printed as it is done.
 *
 * `payment.expired` has to move the merchant's test clock past the payment's expiry; it then
 * puts the clock back where it found it (at real time, or as far ahead as it was), so the
 * merchant's later records are not stamped minutes ahead. The expired payment and its event keep
 * the times they were made with, and the output says so.
 */
import { randomBytes } from "node:crypto";
import {
  type EventType,
  fromSatangString,
  type Payment,
  type Refund,
  type Satang,
  satangToBaht,
  toSatangString,
  type Withdraw,
} from "@satang/sdk";
import { durationText, offsetText, restoreClock } from "./clock.ts";
import type { CliIo } from "./io.ts";

export interface TriggerOptions {
  satang: Satang;
  event: EventType;
  /** Decimal string of satang. */
  amount: string;
  json: boolean;
  io: CliIo;
}

export interface TriggerResult {
  event: EventType;
  payment?: Payment;
  withdraw?: Withdraw;
  refund?: Refund;
  /** Set when the trigger moved the test clock: how far ahead it was before and is after. */
  clock?: { offsetSecondsBefore: number; offsetSecondsAfter: number };
  steps: string[];
}

/** How long `payment.expired` waits for the expiry after moving the clock. */
const EXPIRY_WAIT_MS = 15_000;
const EXPIRY_POLL_MS = 250;
/** The shortest expiry the API accepts, in minutes. */
const EXPIRES_IN_MINUTES = 5;

function suffix(): string {
  return randomBytes(4).toString("hex");
}

/** A 10-digit account number; a new one each time keeps PromptPay reuse from returning an old payment. */
function accountNumber(): string {
  return String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));
}

function thb(amount: string): string {
  return `${satangToBaht(amount)} THB`;
}

class Steps {
  readonly done: string[] = [];
  constructor(private readonly options: TriggerOptions) {}

  say(text: string): void {
    this.done.push(text);
    if (!this.options.json) this.options.io.stdout(`${text}\n`);
  }
}

async function createPayment(
  options: TriggerOptions,
  steps: Steps,
  amount: string,
  expires?: number,
): Promise<Payment> {
  const payment = await options.satang.payments.create({
    amount,
    referenceId: `cli-trigger-${Date.now()}-${suffix()}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Satang CLI Test Customer",
    customerBankAccountNumber: accountNumber(),
    customerBankCode: "014",
    description: `satang trigger ${options.event}`,
    metadata: { source: "satang trigger" },
    ...(expires === undefined ? {} : { expiresInMinutes: expires }),
  });
  steps.say(`Created PromptPay payment ${payment.id} of ${thb(payment.amount)} (${payment.status})`);
  return payment;
}

/** Makes sure the wallet can pay `amount` out: settles a simulated payment into it when short. */
async function ensureFunds(options: TriggerOptions, steps: Steps, amount: string): Promise<void> {
  const { satang } = options;
  const needed = fromSatangString(amount);
  const available = BigInt((await satang.balance.retrieve()).walletBalance);
  if (available >= needed) return;
  const shortfall = toSatangString(needed - available);
  steps.say(
    `Wallet has ${thb(toSatangString(available))}; funding it with a paid and settled payment of ${thb(shortfall)}`,
  );
  const funding = await createPayment(options, steps, shortfall);
  await satang.sandbox.simulatePayment(funding.id, "succeeded");
  steps.say(`Simulated the customer paying ${funding.id} (succeeded; this emits payment.received)`);
  const settled = await satang.sandbox.runSettlements();
  steps.say(`Settled ${settled.count} payment(s) into the wallet (${thb(settled.amount)})`);
  const after = BigInt((await satang.balance.retrieve()).walletBalance);
  if (after < needed) {
    throw new Error(
      `the wallet still has only ${thb(toSatangString(after))}: this merchant's settlement delay keeps the payment ` +
        "pending. Fund the wallet with `satang wallet adjust`, or set the merchant's settlement delay to 0 hours.",
    );
  }
}

async function createWithdraw(options: TriggerOptions, steps: Steps): Promise<Withdraw> {
  await ensureFunds(options, steps, options.amount);
  const withdraw = await options.satang.withdraws.create({
    amount: options.amount,
    referenceId: `cli-trigger-${Date.now()}-${suffix()}`,
    destinationType: "bank_account",
    // A random name keeps the matching-payout guard from refusing a second trigger of the same amount.
    customerBankAccountName: `Satang CLI Payee ${randomBytes(6).toString("hex")}`,
    customerBankAccountNumber: accountNumber(),
    customerBankCode: "004",
    description: `satang trigger ${options.event}`,
    metadata: { source: "satang trigger" },
  });
  steps.say(`Created withdraw ${withdraw.id} of ${thb(withdraw.amount)} (${withdraw.status})`);
  return withdraw;
}

/** A withdraw the simulated bank takes, then pays or fails, as `event` says. */
async function triggerWithdrawOutcome(options: TriggerOptions, steps: Steps): Promise<Withdraw> {
  const { satang, event } = options;
  let withdraw = await createWithdraw(options, steps);
  const outcomes: Array<"processing" | "paid" | "failed"> =
    event === "withdraw.paid"
      ? ["processing", "paid"]
      : event === "withdraw.processing"
        ? ["processing"]
        : ["failed"];
  for (const outcome of outcomes) {
    withdraw = await satang.sandbox.simulateWithdraw(withdraw.id, outcome);
    steps.say(`Simulated the bank: ${outcome} (${withdraw.status})`);
  }
  return withdraw;
}

/**
 * A refund of a payment the simulated customer paid, moved by the simulated bank as `event`
 * says (refund.canceled: canceled by the merchant while pending).
 */
async function triggerRefund(options: TriggerOptions, steps: Steps): Promise<Refund> {
  const { satang, event } = options;
  const payment = await createPayment(options, steps, options.amount);
  await satang.sandbox.simulatePayment(payment.id, "succeeded");
  steps.say(`Simulated the customer paying ${payment.id} (succeeded; this emits payment.received)`);
  let refund: Refund = await satang.refunds.create(payment.id, {
    amount: options.amount,
    referenceId: `cli-trigger-${Date.now()}-${suffix()}`,
    reason: `satang trigger ${event}`,
    metadata: { source: "satang trigger" },
  });
  steps.say(`Created refund ${refund.id} of ${thb(refund.amount)} (${refund.status})`);
  if (event === "refund.canceled") {
    refund = await satang.refunds.cancel(refund.id);
    steps.say(`Canceled refund ${refund.id} (${refund.status})`);
    return refund;
  }
  // Each step the bank takes is its own simulation, and each is said (refund.processing first).
  const outcomes: Array<"processing" | "succeeded" | "failed"> =
    event === "refund.succeeded"
      ? ["processing", "succeeded"]
      : event === "refund.failed"
        ? ["processing", "failed"]
        : ["processing"];
  for (const outcome of outcomes) {
    refund = await satang.sandbox.simulateRefund(refund.id, outcome);
    steps.say(`Simulated the bank: ${outcome} (${refund.status})`);
  }
  return refund;
}

async function waitForExpiry(options: TriggerOptions, steps: Steps, payment: Payment): Promise<Payment> {
  const deadline = Date.now() + EXPIRY_WAIT_MS;
  let current = await options.satang.payments.retrieve(payment.id);
  if (current.status !== "expired") steps.say("Waiting for the expiry worker...");
  while (current.status !== "expired") {
    if (Date.now() > deadline) {
      throw new Error(`payment ${payment.id} is still ${current.status} after the clock passed its expiry`);
    }
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_POLL_MS));
    current = await options.satang.payments.retrieve(payment.id);
  }
  return current;
}

/** Puts the test clock back to where the trigger found it, and says so (or says it could not). */
async function putClockBack(
  options: TriggerOptions,
  steps: Steps,
  offsetSecondsBefore: number,
): Promise<NonNullable<TriggerResult["clock"]>> {
  let restored: Awaited<ReturnType<typeof restoreClock>>;
  try {
    restored = await restoreClock(options.satang, offsetSecondsBefore);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the test clock was moved and could not be put back (${reason}): it may still run ahead of ` +
        "real time. See it with `satang clock show`; `satang clock reset` brings it back.",
    );
  }
  steps.say(
    `Put the test clock back ${offsetText(restored.offsetSeconds)}, where it was; the expired payment ` +
      "and its event keep the later times they were made with",
  );
  return { offsetSecondsBefore, offsetSecondsAfter: restored.offsetSeconds };
}

export async function runTrigger(options: TriggerOptions): Promise<TriggerResult> {
  const { satang, event } = options;
  const steps = new Steps(options);
  const result: TriggerResult = { event, steps: steps.done };
  steps.say(`Triggering ${event}`);

  switch (event) {
    case "payment.received":
    case "payment.failed": {
      const payment = await createPayment(options, steps, options.amount);
      const outcome = event === "payment.received" ? "succeeded" : "failed";
      result.payment = await satang.sandbox.simulatePayment(payment.id, outcome);
      steps.say(`Simulated the bank reporting the payment ${outcome} (${result.payment.status})`);
      break;
    }
    case "payment.expired": {
      const before = await satang.sandbox.clock();
      const payment = await createPayment(options, steps, options.amount, EXPIRES_IN_MINUTES);
      const step = EXPIRES_IN_MINUTES * 60 + 1;
      const clock = await satang.sandbox.advanceClock(step);
      steps.say(`Moved the test clock ${durationText(step)} on, to ${clock.now}`);
      try {
        result.payment = await waitForExpiry(options, steps, payment);
        steps.say(`Payment ${payment.id} expired`);
      } finally {
        result.clock = await putClockBack(options, steps, before.offsetSeconds);
      }
      break;
    }
    case "payment.canceled": {
      const payment = await createPayment(options, steps, options.amount);
      result.payment = await satang.payments.cancel(payment.id);
      steps.say(`Canceled payment ${payment.id} (${result.payment.status})`);
      break;
    }
    case "withdraw.processing":
    case "withdraw.paid":
    case "withdraw.failed":
      result.withdraw = await triggerWithdrawOutcome(options, steps);
      break;
    case "withdraw.canceled": {
      const withdraw = await createWithdraw(options, steps);
      result.withdraw = await satang.withdraws.cancel(withdraw.id);
      steps.say(`Canceled withdraw ${withdraw.id} (${result.withdraw.status})`);
      break;
    }
    case "refund.processing":
    case "refund.succeeded":
    case "refund.failed":
    case "refund.canceled":
      result.refund = await triggerRefund(options, steps);
      break;
  }

  const subject = result.refund
    ? `refund ${result.refund.id}`
    : result.payment
      ? `payment ${result.payment.id}`
      : `withdraw ${result.withdraw?.id}`;
  steps.say(
    `Trigger succeeded: ${event} for ${subject}. See it with \`satang listen\` or GET /api/v1/events.`,
  );
  if (options.json) options.io.stdout(`${JSON.stringify(result)}\n`);
  return result;
}
