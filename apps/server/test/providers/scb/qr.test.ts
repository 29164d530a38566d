/**
 * The tag-30 QR of a live PromptPay payment, read back by a parser written here from the
 * EMVCo and Thai QR specifications (not the library that builds it), CRC included.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "promptparse";
import { billPayment } from "promptparse/generate";
import { parseThb } from "../../../src/lib/money.ts";
import { billPaymentQrPayload, checkBillPaymentQr, ref3For } from "../../../src/providers/scb/qr.ts";

/** EMVCo TLV: two-digit tag, two-digit length, value. */
function tlv(payload: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < payload.length) {
    const tag = payload.slice(i, i + 2);
    const length = Number(payload.slice(i + 2, i + 4));
    assert.ok(Number.isInteger(length), `bad length at ${i}`);
    out.set(tag, payload.slice(i + 4, i + 4 + length));
    i += 4 + length;
  }
  assert.equal(i, payload.length, "the payload ends on a field boundary");
  return out;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as EMVCo tag 63 requires. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, "ascii")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

const BILLER = "010556012345678";

describe("Thai QR tag 30 for SCB collection", () => {
  it("names the biller id, ref1, ref2, the amount, THB and TH, with a valid CRC", () => {
    const payload = billPaymentQrPayload({
      billerId: BILLER,
      ref1: "K7Q2M9XA",
      ref2: "SATANG",
      amountSatang: 12_345n,
    });
    const fields = tlv(payload);
    assert.equal(fields.get("00"), "01");
    assert.equal(fields.get("01"), "12", "dynamic QR: one payment of one amount");
    const tag30 = tlv(fields.get("30")!);
    assert.equal(tag30.get("00"), "A000000677010112", "the bill payment application id");
    assert.equal(tag30.get("01"), BILLER);
    assert.equal(tag30.get("02"), "K7Q2M9XA");
    assert.equal(tag30.get("03"), "SATANG");
    assert.equal(fields.get("53"), "764");
    assert.equal(fields.get("58"), "TH");
    assert.equal(parseThb(fields.get("54")!), 12_345n);
    assert.equal(fields.get("54"), "123.45");
    assert.ok(payload.endsWith(`6304${fields.get("63")}`), "the CRC is the last field");
    assert.equal(fields.get("63"), crc16(payload.slice(0, -4)));
    assert.ok(parse(payload, true), "a second parser accepts the CRC too");
  });

  it("carries ref3 (tag 62.07) as SCB_REF3_PREFIX then ref1, within 20 characters", () => {
    const payload = billPaymentQrPayload({
      billerId: BILLER,
      ref1: "K7Q2M9XA",
      ref2: null,
      ref3: ref3For("SCB", "K7Q2M9XA"),
      amountSatang: 100n,
    });
    const fields = tlv(payload);
    assert.equal(tlv(fields.get("62")!).get("07"), "SCBK7Q2M9XA");
    assert.equal(fields.get("63"), crc16(payload.slice(0, -4)));
    assert.equal(ref3For("ABCDEFGH", "Z".repeat(20)), `ABCDEFGH${"Z".repeat(12)}`, "the prefix stays whole");
    assert.equal(ref3For(null, "K7Q2M9XA"), null);
    const without = tlv(
      billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, amountSatang: 100n }),
    );
    assert.equal(without.has("62"), false, "no prefix, no ref3");
    assert.throws(
      () =>
        billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, ref3: "scb-1", amountSatang: 100n }),
      /ref3/,
    );
  });

  it("refuses a QR that reads back with another amount or currency than asked", () => {
    const asked = { billerId: BILLER, ref1: "K7Q2M9XA", ref2: null, amountSatang: 12_345n };
    const good = billPaymentQrPayload(asked);
    assert.doesNotThrow(() => checkBillPaymentQr(good, asked));
    // Same biller and references, one satang more: a payment of 123.45 THB must never show it.
    const otherAmount = billPayment({ billerId: BILLER, ref1: "K7Q2M9XA", amount: 123.46 });
    assert.throws(() => checkBillPaymentQr(otherAmount, asked), /another amount/);
    // No amount at all (a static QR the customer types any amount into).
    const noAmount = billPayment({ billerId: BILLER, ref1: "K7Q2M9XA" });
    assert.throws(() => checkBillPaymentQr(noAmount, asked), /another amount/);
    // Tag 53 naming US dollars (840), CRC recomputed so that only the currency differs.
    const body = good.slice(0, -4).replace("5303764", "5303840");
    assert.notEqual(body, good.slice(0, -4));
    const dollars = `${body}${crc16(body)}`;
    assert.ok(parse(dollars, true), "a valid QR apart from its currency");
    assert.throws(() => checkBillPaymentQr(dollars, asked), /currency/);
    // Another ref3 than asked.
    assert.throws(() => checkBillPaymentQr(good, { ...asked, ref3: "SCBK7Q2M9XA" }), /ref3/);
  });

  it("leaves ref2 out when none is configured", () => {
    const tag30 = tlv(
      tlv(billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, amountSatang: 100n })).get("30")!,
    );
    assert.equal(tag30.has("03"), false);
  });

  it("accepts a ref1 of 20 characters and refuses 21, lower case or punctuation", () => {
    const build = (ref1: string) =>
      billPaymentQrPayload({ billerId: BILLER, ref1, ref2: null, amountSatang: 100n });
    assert.equal(tlv(tlv(build("A".repeat(20))).get("30")!).get("02"), "A".repeat(20));
    for (const bad of ["A".repeat(21), "abc123", "AB-12", ""]) assert.throws(() => build(bad), /ref1/);
  });

  it("refuses a biller id that is not 15 digits", () => {
    for (const billerId of ["01055601234567", "0105560123456789", "01055601234567X"]) {
      assert.throws(
        () => billPaymentQrPayload({ billerId, ref1: "A1", ref2: null, amountSatang: 100n }),
        /biller/,
      );
    }
  });

  it("prints every amount exactly, to the largest tag 54 holds", () => {
    for (const satang of [1n, 10n, 99n, 100n, 1_050n, 999_999_999_999n]) {
      const fields = tlv(
        billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, amountSatang: satang }),
      );
      assert.equal(parseThb(fields.get("54")!), satang);
    }
    assert.throws(() =>
      billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, amountSatang: 1_000_000_000_000n }),
    );
    assert.throws(() => billPaymentQrPayload({ billerId: BILLER, ref1: "A1", ref2: null, amountSatang: 0n }));
  });
});

describe("amounts in baht as a bank prints them", () => {
  it("reads whole and two-decimal baht exactly and refuses anything else", () => {
    assert.equal(parseThb("100"), 10_000n);
    assert.equal(parseThb("100.5"), 10_050n);
    assert.equal(parseThb("100.50"), 10_050n);
    assert.equal(parseThb("0.01"), 1n);
    for (const bad of ["0", "0.00", "1.005", "-1", "1e3", " 1", "", "1,000.00"])
      assert.equal(parseThb(bad), null, bad);
  });
});
