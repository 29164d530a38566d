/**
 * The one-pass checks that let a log line skip the token and account-number expressions
 * (lib/redaction.ts): a line they pass over must hold no match, so skipping the expression
 * changes nothing; and the common line (ids that are UUIDs, JSON numbers) is passed over.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  ACCOUNT_NUMBER,
  mayHoldAccountNumber,
  mayHoldToken,
  redactText,
  TOKEN_SHAPE,
} from "../../src/lib/redaction.ts";

const token = new RegExp(TOKEN_SHAPE.source);
const account = new RegExp(ACCOUNT_NUMBER.source);

// Characters that make the expressions' edges: digits, dashes, hex and other letters, the
// characters before a JSON number, quotes and spaces; and pieces that are or nearly are matches.
const piece = fc.oneof(
  fc.constantFrom("0", "1", "9", "-", "a", "f", "A", "z", "_", ":", ",", "[", ".", '"', " ", "/", "="),
  fc.constantFrom(
    "0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a",
    "0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a7",
    "abcdefghijklmnopqrstuvwxyz012345",
    "abcdefghijklmnopqrstuvwxyz01234",
    "123-456-7890",
    "1234567890",
    "123456789",
    "1764244000123",
  ),
);
const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(""));

describe("redaction's one-pass checks", () => {
  it("never pass over a text that holds a token-shaped run", () => {
    fc.assert(
      fc.property(text, (value) => {
        if (token.test(value)) assert.ok(mayHoldToken(value), value);
      }),
      { numRuns: 5000 },
    );
  });

  it("never pass over a text that holds an account number", () => {
    fc.assert(
      fc.property(text, (value) => {
        if (account.test(value)) assert.ok(mayHoldAccountNumber(value), value);
      }),
      { numRuns: 5000 },
    );
  });

  it("pass over a request's log line, whose id is a UUID and whose numbers are JSON numbers", () => {
    const line =
      '{"level":30,"time":1764244000123,"pid":12345,"req":{"method":"GET",' +
      '"url":"/api/v1/payments/0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a","remotePort":51234},' +
      '"res":{"statusCode":200},"responseTime":1.234,"msg":"request completed"}';
    assert.equal(mayHoldToken(line), false);
    assert.equal(mayHoldAccountNumber(line), false);
    assert.equal(redactText(line), line);
  });

  it("still redact what they let through", () => {
    const secret = "abcdefghijklmnopqrstuvwxyz0123456789";
    assert.equal(redactText(`token ${secret} end`).includes(secret), false);
    assert.equal(redactText("account 123-456-7890 end"), "account ******7890 end");
    assert.equal(redactText('"n":1234567890'), '"n":1234567890');
  });
});
