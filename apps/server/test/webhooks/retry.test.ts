/**
 * The retry schedule of webhook deliveries (events/retry.ts), checked without a network: each
 * retry's published time after the first try (CONTRACT 12: 5 s ... 24 h after the first try), the
 * jitter that only ever brings a retry forward within its step, the pace of retries whose time
 * has passed, and the end after attempt 10.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { nextRetryAt } from "../../src/events/retry.ts";
import { WEBHOOK_ATTEMPTS_MAX, WEBHOOK_RETRY_OFFSETS_MS } from "../../src/lib/limits.ts";

const FIRST = new Date("2026-12-05T00:00:00.000Z");
const at = (ms: number) => new Date(FIRST.getTime() + ms);
const HOUR = 3_600_000;

describe("the webhook retry schedule", () => {
  it("retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the first try", () => {
    assert.deepEqual(
      [...WEBHOOK_RETRY_OFFSETS_MS],
      [5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR],
    );
    // Each attempt ends at once when it is due: the retries land on the published times.
    let finishedAt = FIRST;
    const times: number[] = [];
    for (let attempt = 1; attempt < WEBHOOK_ATTEMPTS_MAX; attempt++) {
      const next = nextRetryAt({
        attempt,
        firstTriedAt: FIRST,
        finishedAt,
        random: () => 0,
        jitterFraction: 0.1,
      });
      assert.ok(next, `a retry after attempt ${attempt}`);
      times.push(next.getTime() - FIRST.getTime());
      finishedAt = next;
    }
    assert.deepEqual(times, [...WEBHOOK_RETRY_OFFSETS_MS]);
    assert.equal(times.at(-1), 24 * HOUR, "the last retry is 24 h after the first try, not days later");
  });

  it("keeps to the schedule when attempts take their time (a 15 s timeout each)", () => {
    const next = nextRetryAt({
      attempt: 3,
      firstTriedAt: FIRST,
      finishedAt: at(300_000 + 15_000),
      random: () => 0,
      jitterFraction: 0.1,
    });
    assert.deepEqual(next, at(1_800_000), "30 min after the first try, not after the third");
  });

  it("brings a retry forward by at most the jitter fraction of its step, never later", () => {
    const last = nextRetryAt({
      attempt: 9,
      firstTriedAt: FIRST,
      finishedAt: at(20 * HOUR),
      random: () => 0.999_999,
      jitterFraction: 0.1,
    });
    assert.deepEqual(last, at(24 * HOUR - Math.round(4 * HOUR * 0.1 * 0.999_999)));
    const first = (random: number) =>
      nextRetryAt({
        attempt: 1,
        firstTriedAt: FIRST,
        finishedAt: FIRST,
        random: () => random,
        jitterFraction: 0.1,
      });
    assert.deepEqual(first(5), at(4_500), "a draw above 1 counts as 1");
    assert.deepEqual(first(-5), at(5_000), "a draw below 0 counts as 0");
  });

  it("spaces retries whose time has passed one first step after the attempt before", () => {
    // The service was stopped for 6 hours after the first retry's time: attempt 2 ran then.
    const late = at(6 * HOUR);
    assert.deepEqual(
      nextRetryAt({
        attempt: 2,
        firstTriedAt: FIRST,
        finishedAt: late,
        random: () => 0,
        jitterFraction: 0.1,
      }),
      new Date(late.getTime() + 5_000),
    );
    assert.deepEqual(
      nextRetryAt({
        attempt: 6,
        firstTriedAt: FIRST,
        finishedAt: late,
        random: () => 0,
        jitterFraction: 0.1,
      }),
      at(10 * HOUR),
      "a retry still ahead keeps its time",
    );
  });

  it("never goes back on the schedule, whatever the draws and however late attempts end", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
          minLength: WEBHOOK_ATTEMPTS_MAX - 1,
          maxLength: WEBHOOK_ATTEMPTS_MAX - 1,
        }),
        fc.array(fc.nat({ max: 2 * HOUR }), {
          minLength: WEBHOOK_ATTEMPTS_MAX - 1,
          maxLength: WEBHOOK_ATTEMPTS_MAX - 1,
        }),
        (draws, lateness) => {
          let finishedAt = FIRST;
          for (let attempt = 1; attempt < WEBHOOK_ATTEMPTS_MAX; attempt++) {
            const next = nextRetryAt({
              attempt,
              firstTriedAt: FIRST,
              finishedAt,
              random: () => draws[attempt - 1]!,
              jitterFraction: 0.1,
            })!;
            const offset = WEBHOOK_RETRY_OFFSETS_MS[attempt - 1]!;
            const step = offset - (WEBHOOK_RETRY_OFFSETS_MS[attempt - 2] ?? 0);
            assert.ok(
              next.getTime() - finishedAt.getTime() >= 4_500,
              "at least 4.5 s after the attempt before",
            );
            if (next.getTime() - FIRST.getTime() > offset) {
              // Only a retry whose time had passed comes after its published time.
              assert.ok(finishedAt.getTime() - FIRST.getTime() > offset - step * 0.1 - 5_000);
            } else {
              assert.ok(next.getTime() - FIRST.getTime() >= offset - step * 0.1, `attempt ${attempt}: early`);
            }
            finishedAt = new Date(next.getTime() + lateness[attempt - 1]!);
          }
        },
      ),
    );
  });

  it("has no further attempt after the last one", () => {
    assert.equal(
      nextRetryAt({
        attempt: WEBHOOK_ATTEMPTS_MAX,
        firstTriedAt: FIRST,
        finishedAt: at(24 * HOUR),
        random: () => 0,
        jitterFraction: 0.1,
      }),
      undefined,
    );
  });
});
