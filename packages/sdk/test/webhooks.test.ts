/**
 * Webhook verification and test headers, checked against the `standardwebhooks` library a
 * merchant might use directly, and the amount helpers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import {
  bahtToSatang,
  fromSatangString,
  Satang,
  satangToBaht,
  toSatangString,
  WebhookVerificationError,
} from "../src/index.ts";

const secret = Satang.webhooks.generateSecret();
const event = {
  id: "5b0f1a52-0d6f-4b39-9d0e-3f1f2d9e6a10",
  type: "payment.received",
  createdAt: "2026-01-15T10:00:00.000Z",
  data: {
    object: {
      id: "0a3d2c1b-1111-4222-8333-444455556666",
      amount: "10000.00",
      status: "succeeded",
      referenceId: "order-1001",
    },
  },
};
const payload = JSON.stringify(event);

describe("Satang.webhooks", () => {
  it("round-trips: testHeaders signs, verify returns the typed event", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    assert.equal(headers["webhook-id"], event.id, "the id defaults to the event's id");
    assert.match(headers["webhook-signature"], /^v1,[A-Za-z0-9+/]+=*$/);
    const verified = Satang.webhooks.verify(payload, headers, secret);
    assert.deepEqual(verified, event);
    if (verified.type === "payment.received") assert.equal(verified.data.object.amount, "10000.00");
  });

  it("produces headers the standardwebhooks library accepts, and accepts what it signs", () => {
    const ours = Satang.webhooks.testHeaders(payload, secret, { id: "msg_1" });
    assert.deepEqual(new Webhook(secret).verify(payload, ours), event);
    const at = new Date();
    const theirs = {
      "webhook-id": "msg_2",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("msg_2", at, payload),
    };
    assert.deepEqual(Satang.webhooks.verify(Buffer.from(payload), theirs, secret), event);
  });

  it("accepts Node's header object, a fetch Headers and mixed-case names", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    assert.equal(Satang.webhooks.verify(payload, upper, secret).id, event.id);
    assert.equal(Satang.webhooks.verify(payload, new Headers(headers), secret).id, event.id);
    assert.equal(
      new Satang({ apiKey: "k", apiSecret: "s" }).webhooks.verify(payload, headers, secret).id,
      event.id,
    );
  });

  it("verifies when one of several signatures (a secret rotation) matches", () => {
    const other = Satang.webhooks.generateSecret();
    const a = Satang.webhooks.testHeaders(payload, other, { id: "msg_3" });
    const b = Satang.webhooks.testHeaders(payload, secret, { id: "msg_3" });
    const both = { ...a, "webhook-signature": `${a["webhook-signature"]} ${b["webhook-signature"]}` };
    assert.equal(Satang.webhooks.verify(payload, both, secret).id, event.id);
  });

  it("refuses a tampered body, a wrong secret, a changed id, missing headers and an old timestamp", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    const tampered = payload.replace("10000.00", "99999.00");
    assert.throws(() => Satang.webhooks.verify(tampered, headers, secret), WebhookVerificationError);
    assert.throws(
      () => Satang.webhooks.verify(payload, headers, Satang.webhooks.generateSecret()),
      WebhookVerificationError,
    );
    assert.throws(
      () => Satang.webhooks.verify(payload, { ...headers, "webhook-id": "other" }, secret),
      WebhookVerificationError,
    );
    assert.throws(() => Satang.webhooks.verify(payload, {}, secret), /Missing required headers/);
    const old = Satang.webhooks.testHeaders(payload, secret, { timestamp: Date.now() / 1000 - 600 });
    assert.throws(() => Satang.webhooks.verify(payload, old, secret), /too old/);
    const reserialized = JSON.stringify(JSON.parse(payload), null, 2);
    assert.throws(() => Satang.webhooks.verify(reserialized, headers, secret), WebhookVerificationError);
  });

  it("refuses a parsed body (object, number, null, ...) with a WebhookVerificationError asking for the raw body", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    // What a framework that parsed the JSON already hands over, and other things that are not a body.
    const notRaw: unknown[] = [JSON.parse(payload), 42, null, undefined, true, [payload], new Date()];
    for (const value of notRaw) {
      assert.throws(
        () => Satang.webhooks.verify(value as string, headers, secret),
        (error: unknown) =>
          error instanceof WebhookVerificationError &&
          /raw request body/.test(error.message) &&
          /string or a Buffer\/Uint8Array/.test(error.message),
        `verify(${String(value)})`,
      );
    }
    assert.throws(
      () => Satang.webhooks.verify(JSON.parse(payload), headers, secret),
      /got an object \(a parsed body\?\)/,
    );
    assert.throws(() => Satang.webhooks.verify(null as unknown as string, headers, secret), /got null/);
  });

  it("verifies the raw body given as a Uint8Array or an ArrayBuffer", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    const bytes = new TextEncoder().encode(payload);
    assert.equal(Satang.webhooks.verify(bytes, headers, secret).id, event.id);
    assert.equal(Satang.webhooks.verify(bytes.buffer, headers, secret).id, event.id);
  });

  it("refuses bytes other than those signed though a default decoder reads them as the signed text", () => {
    const headers = Satang.webhooks.testHeaders(payload, secret);
    const signed = new TextEncoder().encode(payload);
    // A byte-order mark in front: a default TextDecoder drops it.
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), signed]);
    assert.throws(() => Satang.webhooks.verify(marked, headers, secret), WebhookVerificationError);
    // Bytes that are not UTF-8: a default TextDecoder reads each as U+FFFD.
    const withReplacement = Satang.webhooks.testHeaders(`${payload}\ufffd`, secret);
    const invalid = Buffer.concat([signed, Buffer.from([0xff])]);
    assert.throws(() => Satang.webhooks.verify(invalid, withReplacement, secret), /not UTF-8/);
    // The signed bytes themselves, and a body with a non-ASCII character, still verify.
    assert.equal(Satang.webhooks.verify(Buffer.from(signed), headers, secret).id, event.id);
    const thai = JSON.stringify({
      ...event,
      data: { object: { ...event.data.object, referenceId: "คำสั่ง-1" } },
    });
    assert.equal(
      Satang.webhooks.verify(Buffer.from(thai), Satang.webhooks.testHeaders(thai, secret), secret).id,
      event.id,
    );
  });

  it("refuses missing headers with a WebhookVerificationError", () => {
    for (const headers of [undefined, null]) {
      assert.throws(
        () => Satang.webhooks.verify(payload, headers as unknown as Headers, secret),
        (error: unknown) =>
          error instanceof WebhookVerificationError && /headers are missing/.test(error.message),
      );
    }
  });

  it("refuses a correctly signed body that is not an event", () => {
    const notEvent = JSON.stringify({ hello: "world" });
    const headers = Satang.webhooks.testHeaders(notEvent, secret);
    assert.throws(() => Satang.webhooks.verify(notEvent, headers, secret), /not a Satang event/);
  });

  it("generates whsec_ secrets of 32 random bytes", () => {
    const generated = Satang.webhooks.generateSecret();
    assert.match(generated, /^whsec_/);
    assert.equal(Buffer.from(generated.slice(6), "base64").length, 32);
    assert.notEqual(generated, Satang.webhooks.generateSecret());
  });
});

describe("amount helpers", () => {
  it("converts integer satang to the wire form and back, exactly", () => {
    assert.equal(toSatangString(10000), "10000.00");
    assert.equal(toSatangString(10000n), "10000.00");
    assert.equal(toSatangString(9_007_199_254_740_993n), "9007199254740993.00");
    assert.equal(fromSatangString("10000.00"), 10000n);
    assert.equal(fromSatangString("10000"), 10000n);
    assert.equal(fromSatangString("10000.0"), 10000n);
    assert.equal(fromSatangString("-500.00"), -500n);
  });

  it("refuses fractions of a satang, floats and malformed strings", () => {
    assert.throws(() => toSatangString(10.5), RangeError);
    assert.throws(() => fromSatangString("1000.50"), /whole satang/);
    assert.throws(() => fromSatangString("1,000.00"), RangeError);
    assert.throws(() => fromSatangString(""), RangeError);
  });

  it("converts baht for display and input", () => {
    assert.equal(satangToBaht(10050n), "100.50");
    assert.equal(satangToBaht("10000.00"), "100.00");
    assert.equal(satangToBaht(5), "0.05");
    assert.equal(satangToBaht(-150), "-1.50");
    assert.equal(bahtToSatang("100"), 10000n);
    assert.equal(bahtToSatang("100.5"), 10050n);
    assert.equal(bahtToSatang("0.05"), 5n);
    assert.throws(() => bahtToSatang("1.005"), RangeError);
  });
});
