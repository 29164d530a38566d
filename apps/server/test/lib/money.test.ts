import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatAmount, formatThb, parseAmount, parseSignedAmount } from "../../src/lib/money.ts";

describe("amount wire form", () => {
  it("reads 1000, 1000.0 and 1000.00 as the same 1000 satang", () => {
    assert.equal(parseAmount("1000"), 1000n);
    assert.equal(parseAmount("1000.0"), 1000n);
    assert.equal(parseAmount("1000.00"), 1000n);
  });

  it("refuses half a satang, zero, signs, numbers, and more than 13 digits", () => {
    for (const bad of [
      "1000.50",
      "0",
      "0.00",
      "-1",
      "+1",
      "1e3",
      "1,000",
      " 1",
      "1.",
      ".5",
      "1.000",
      "12345678901234",
    ]) {
      assert.equal(parseAmount(bad), null, bad);
    }
    assert.equal(parseAmount(1000), null);
    assert.equal(parseAmount("9999999999999"), 9_999_999_999_999n);
  });

  it("round-trips every whole amount through the wire form", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 9_999_999_999_999n }), (satang) => {
        assert.equal(parseAmount(formatAmount(satang)), satang);
      }),
    );
  });

  it("never accepts a string with a non-zero fraction", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 13n - 1n }),
        fc.integer({ min: 1, max: 99 }),
        (whole, cents) => {
          const fraction = cents < 10 && cents % 10 !== 0 ? `0${cents}` : String(cents);
          assert.equal(parseAmount(`${whole}.${fraction}`), null);
        },
      ),
    );
  });

  it("prints baht with two decimals exactly", () => {
    assert.equal(formatThb(1n), "0.01");
    assert.equal(formatThb(1050n), "10.50");
    assert.equal(formatThb(100000n), "1000.00");
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (satang) => {
        const [baht, rest] = formatThb(satang).split(".");
        assert.equal(BigInt(baht!) * 100n + BigInt(rest!), satang);
      }),
    );
  });

  it("reads signed adjustments and refuses zero", () => {
    assert.equal(parseSignedAmount("-500.00"), -500n);
    assert.equal(parseSignedAmount("+500"), 500n);
    assert.equal(parseSignedAmount("0"), null);
    assert.equal(parseSignedAmount("-0.00"), null);
  });
});
