/**
 * The daily report adds up every connector's day book (lifecycle/daily-report.ts): paid in and
 * credited summed, the sweeps of the connectors that sweep shown as one. One connector's page
 * is shown as it is.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { combineDayBooks, type DayBookPage } from "../../src/lifecycle/daily-report.ts";

const figure = (count: number, amountSatang: bigint) => ({ count, amountSatang });

const swept: DayBookPage = {
  paidIn: figure(3, 30_000n),
  credited: figure(2, 20_000n),
  sweep: { status: "finished", asked: 5, found: 3, lastError: null },
};

describe("the daily report's day books", () => {
  it("shows one connector's page as it is", () => {
    assert.deepEqual(combineDayBooks([swept]), {
      paidIn: figure(3, 30_000n),
      credited: figure(2, 20_000n),
      sweep: { status: "finished", asked: 5, found: 3, lastError: null },
    });
  });

  it("shows no sweep as not_started, and no connector as nothing paid in", () => {
    assert.deepEqual(combineDayBooks([]), {
      paidIn: figure(0, 0n),
      credited: figure(0, 0n),
      sweep: { status: "not_started", asked: 0, found: 0, lastError: null },
    });
  });

  it("adds up the figures of every connector and the sweeps of those that swept", () => {
    const running: DayBookPage = {
      paidIn: figure(1, 5_000n),
      credited: figure(1, 5_000n),
      sweep: { status: "running", asked: 2, found: 1, lastError: "the provider answered HTTP 503" },
    };
    const noSweep: DayBookPage = { paidIn: figure(4, 1_000n), credited: figure(0, 0n), sweep: undefined };
    assert.deepEqual(combineDayBooks([swept, running, noSweep]), {
      paidIn: figure(8, 36_000n),
      credited: figure(3, 25_000n),
      sweep: { status: "running", asked: 7, found: 4, lastError: "the provider answered HTTP 503" },
    });
    assert.equal(combineDayBooks([swept, noSweep]).sweep.status, "finished");
  });
});
