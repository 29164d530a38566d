/**
 * The failure gate (http/address-window.ts `createFailureGate`): however many checks of one
 * address arrive at once, at most the limit's worth of failures is ever checked in a minute, and
 * right credentials sent together all pass (they wait for a turn, never a 429).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { adminTokenThrottled } from "../../src/admin/auth.ts";
import { createAddressWindow, createFailureGate } from "../../src/http/address-window.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import type { AppError } from "../../src/lib/errors.ts";
import { deferred } from "../helpers/deferred.ts";

const LIMIT = 5;

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function burst(count: number) {
  const clock = new ManualClock(Date.now());
  const gate = createFailureGate(LIMIT, clock, "too many");
  const answers = Array.from({ length: count }, () => deferred<boolean>());
  let started = 0;
  const outcomes = answers.map((answer) =>
    gate
      .run("192.0.2.50", () => {
        started += 1;
        return answer.promise;
      })
      .then(
        (accepted) => (accepted ? "accepted" : "refused"),
        (error: AppError) => error.code,
      ),
  );
  return { clock, gate, answers, outcomes, started: () => started };
}

describe("the failure gate", () => {
  it("checks no more than the limit of one address at once, and refuses the rest once they fail", async () => {
    const { answers, outcomes, started } = burst(LIMIT * 4);
    await settle();
    assert.equal(started(), LIMIT, "only the limit's worth of checks run while none has ended");
    for (const answer of answers.slice(0, LIMIT)) answer.resolve(false);
    const results = await Promise.all(outcomes);
    assert.equal(started(), LIMIT, "no further check ran once the failures filled the window");
    assert.deepEqual(
      results,
      [...Array(LIMIT).fill("refused"), ...Array(LIMIT * 3).fill("RATE_LIMIT_EXCEEDED")],
      "the checked ones failed, every other one is 429",
    );
  });

  it("lets right credentials sent together through, each in its turn", async () => {
    const { answers, outcomes, started } = burst(LIMIT * 3);
    await settle();
    assert.equal(started(), LIMIT);
    // Each accepted check frees its place for a waiting one.
    for (let i = 0; i < answers.length; i++) {
      answers[i]!.resolve(true);
      await settle();
    }
    assert.deepEqual(await Promise.all(outcomes), Array(LIMIT * 3).fill("accepted"));
    assert.equal(started(), LIMIT * 3);
  });

  it("runs a waiting check once an earlier one is accepted, and refuses it once failures fill the window", async () => {
    const { answers, outcomes, started } = burst(LIMIT + 2);
    await settle();
    // Four failures and one accepted: the window holds four, so one waiting check may run.
    for (const answer of answers.slice(0, LIMIT - 1)) answer.resolve(false);
    answers[LIMIT - 1]!.resolve(true);
    await settle();
    assert.equal(started(), LIMIT + 1, "one waiting check runs in the place the accepted one left");
    answers[LIMIT]!.resolve(false);
    const results = await Promise.all(outcomes);
    assert.deepEqual(results.slice(LIMIT), ["refused", "RATE_LIMIT_EXCEEDED"]);
  });

  it("counts a check that throws (a store that does not answer) as a failure, so an outage opens no way round the limit", async () => {
    const clock = new ManualClock(Date.now());
    const gate = createFailureGate(LIMIT, clock, "too many");
    for (let i = 0; i < LIMIT; i++) {
      await assert.rejects(
        gate.run("192.0.2.51", async () => {
          throw new Error("database unavailable");
        }),
        /database unavailable/,
      );
    }
    // A token accepted without the store (ADMIN_TOKEN, compared in memory) is refused too.
    await assert.rejects(
      gate.run("192.0.2.51", async () => true),
      { code: "RATE_LIMIT_EXCEEDED" },
    );
    clock.advance(60_000);
    assert.equal(await gate.run("192.0.2.51", async () => true), true);
  });

  it("forgets failures a minute old", async () => {
    const clock = new ManualClock(Date.now());
    const gate = createFailureGate(LIMIT, clock, "too many");
    for (let i = 0; i < LIMIT; i++) assert.equal(await gate.run("192.0.2.52", async () => false), false);
    await assert.rejects(
      gate.run("192.0.2.52", async () => true),
      { code: "RATE_LIMIT_EXCEEDED" },
    );
    clock.advance(60_000);
    assert.equal(await gate.run("192.0.2.52", async () => true), true);
  });
});

describe("the address window", () => {
  it("slides: attempts leave it a minute after they were counted, in the order counted", () => {
    const clock = new ManualClock(Date.now());
    const window = createAddressWindow(10_000, clock, "too many");
    for (let i = 0; i < 3000; i++) window.count("192.0.2.60");
    clock.advance(30_000);
    for (let i = 0; i < 3000; i++) window.count("192.0.2.60");
    assert.equal(window.attempts("192.0.2.60"), 6000);
    clock.advance(30_000);
    assert.equal(window.attempts("192.0.2.60"), 3000, "the first 3,000 are a minute old");
    window.count("192.0.2.60");
    assert.equal(window.attempts("192.0.2.60"), 3001);
    clock.advance(29_999);
    assert.equal(window.attempts("192.0.2.60"), 3001);
    clock.advance(1);
    assert.equal(window.attempts("192.0.2.60"), 1);
    assert.equal(window.attempts("192.0.2.61"), 0, "another address has none");
  });

  it("counts an attempt made after the wall clock stepped back at the latest time counted, a minute past which it leaves", () => {
    const clock = new ManualClock(Date.now());
    const window = createAddressWindow(2, clock, "too many");
    window.count("192.0.2.62");
    clock.advance(-10_000);
    window.count("192.0.2.62");
    const refusal = window.refusal("192.0.2.62");
    assert.equal(refusal?.code, "RATE_LIMIT_EXCEEDED");
    // Both count from the latest time, a minute past which both leave.
    clock.advance(59_999);
    assert.equal(window.attempts("192.0.2.62"), 2);
    clock.advance(10_001);
    assert.equal(window.attempts("192.0.2.62"), 0);
  });

  it("counts a million attempts at the limit's top and refuses the next, as the setting's range allows", () => {
    const clock = new ManualClock(Date.now());
    const window = createAddressWindow(1_000_000, clock, "too many");
    for (let i = 0; i < 999_999; i++) window.count("192.0.2.63");
    assert.equal(window.refusal("192.0.2.63"), undefined);
    window.count("192.0.2.63");
    assert.equal(window.refusal("192.0.2.63")?.metadata?.retryAfter, 60);
    const example = adminTokenThrottled(1_000_000, clock.now());
    assert.deepEqual(example.metadata, {
      limit: 1_000_000,
      remaining: 0,
      resetAt: new Date(clock.now().getTime() + 60_000).toISOString(),
      retryAfter: 60,
    });
  });
});
