/**
 * The checks that let a log line skip the token and account-number expressions
 * (lib/redaction.ts): a line they pass over must hold no match, so skipping the expression
 * changes nothing; the common line (ids that are UUIDs, JSON numbers) is passed over; and a
 * UUID stays whole, whatever digits stand between its dashes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  ACCOUNT_NUMBER,
  maskAccountNumbers,
  mayHoldAccountNumber,
  mayHoldToken,
  redactText,
  TOKEN_SHAPE,
} from "../../src/lib/redaction.ts";

const token = new RegExp(TOKEN_SHAPE.source);
const account = new RegExp(ACCOUNT_NUMBER.source);
/** Whole UUIDs (no token character on either side), which hold no account number. */
const UUIDS =
  /(?<![A-Za-z0-9_-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_-])/g;

// Characters that make the expressions' edges: digits, dashes, hex and other letters, the
// characters before a JSON number, quotes and spaces; and pieces that are or nearly are matches.
const piece = fc.oneof(
  fc.constantFrom("0", "1", "9", "-", "a", "f", "A", "z", "_", ":", ",", "[", ".", '"', " ", "/", "="),
  fc.constantFrom(
    "0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a",
    "0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a7",
    // A UUID with ten digits in one run between its dashes.
    "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "12345678-1234-4234-8234-123456789012",
    "abcdefghijklmnopqrstuvwxyz012345",
    "abcdefghijklmnopqrstuvwxyz01234",
    "123-456-7890",
    "098%20765%204321",
    "098+765+4321",
    "098%20-%20765--4321",
    "%3A",
    "%2D",
    "%C2%A0",
    "%A3",
    '":',
    "x:",
    "x-",
    "order.",
    "%20",
    "+",
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

  it("never pass over a text whose account numbers would be masked", () => {
    fc.assert(
      fc.property(text, (value) => {
        if (!mayHoldAccountNumber(value)) assert.equal(maskAccountNumbers(value), value);
      }),
      { numRuns: 5000 },
    );
  });

  it("never pass over an account number outside a UUID", () => {
    fc.assert(
      fc.property(text, (value) => {
        // Each UUID becomes digits of its length, so nothing after it starts an account number
        // that the line itself would not (a UUID turned to a space would let `.1234567890` after
        // it start one); the property then checks a few lines less, never one wrongly.
        const withoutUuids = value.replace(UUIDS, "0".repeat(36));
        if (account.test(withoutUuids)) assert.ok(mayHoldAccountNumber(value), value);
      }),
      { numRuns: 5000 },
    );
  });

  it("leave every UUID of a line whole, and still mask an account number beside one", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (first, second) => {
        const line =
          `{"level":30,"reqId":"${first}","req":{"method":"GET",` +
          `"url":"/api/v1/payments/${second}"},"msg":"request completed"}`;
        assert.equal(redactText(line), line);
        assert.equal(redactText(`${first} paid to 123-456-7890`), `${first} paid to ******7890`);
        assert.equal(redactText(`/withdraws/${second}/1234567890`), `/withdraws/${second}/******7890`);
      }),
      { numRuns: 2000 },
    );
    const mangledBefore = "/api/v1/payments/7c9e6679-7425-40de-944b-e07fc1f90ae7";
    assert.equal(redactText(mangledBefore), mangledBefore);
    // Only a whole UUID keeps its digits: with one character more, a dash moved or a letter
    // that is not hex, its ten digits are an account number again (and in a log line the whole
    // run, 32 characters and more, is hidden as a token).
    for (const [near, masked] of [
      ["7c9e6679-7425-40de-944b-e07fc1f90ae7x", "7c9e******2540de-944b-e07fc1f90ae7x"],
      ["x7c9e6679-7425-40de-944b-e07fc1f90ae7", "x7c9e******2540de-944b-e07fc1f90ae7"],
      ["7c9e6679-7425-40de-944be07fc1-f90ae7", "7c9e******2540de-944be07fc1-f90ae7"],
      ["7c9e6679-7425-40dg-944b-e07fc1f90ae7", "7c9e******2540dg-944b-e07fc1f90ae7"],
    ] as const) {
      assert.equal(maskAccountNumbers(near), masked);
      assert.ok(mayHoldAccountNumber(near), near);
      assert.equal(redactText(`id ${near} end`).includes("6679-7425-40"), false, near);
    }
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
    // A space between the digits as a URL writes it.
    assert.equal(redactText("/api/v1/payments?acct=098%20765%204321"), "/api/v1/payments?acct=******4321");
    assert.equal(redactText("/p?acct=098+765+4321&x=1"), "/p?acct=******4321&x=1");
    // A bare space is no separator: a time stays readable.
    assert.equal(redactText("at 2026-12-06 10:40:37"), "at 2026-12-06 10:40:37");
    // Separators repeated, as the API takes them.
    for (const spaced of [
      "098%20%20765%20%204321",
      "098++765++4321",
      "098%20-%20765%20-%204321",
      "098--765--4321",
    ]) {
      assert.equal(redactText(`/p?acct=${spaced}&x=1`), "/p?acct=******4321&x=1", spaced);
    }
    // A date and time in a query string, however its space and colons are written, stays whole.
    for (const time of ["2026-12-06%2010:40:37", "2026-12-06+10:40:37", "2026-12-06%2010%3A40%3A37"]) {
      assert.equal(redactText(`/p?dateFrom=${time}`), `/p?dateFrom=${time}`, time);
    }
    // After a letter and a dash or a dot (a reference holding an account number or a phone),
    // with a dash after it, and with an encoded dash or no-break space between its groups.
    const after: [string, string][] = [
      ["/by-reference/order-1234567890", "/by-reference/order-******7890"],
      ["/by-reference/x-0812345678", "/by-reference/x-******5678"],
      ["/by-reference/ORD-123-456-7890", "/by-reference/ORD-******7890"],
      ["/p?q=abc-1234567890-def", "/p?q=abc-******7890-def"],
      ["/by-reference/order.1234567890", "/by-reference/order.******7890"],
      ["/p?acct=123%2D456%2D7890", "/p?acct=******7890"],
      ["/p?acct=123%C2%A0456%C2%A07890", "/p?acct=******7890"],
    ];
    for (const [line, masked] of after) assert.equal(redactText(line), masked, line);
    // After a percent-encoding that ends in a digit (a space, Thai text, `&`), a letter and a
    // colon or a comma, and the second of two numbers a comma apart.
    const encoded: [string, string][] = [
      ["/p?q=tel%200812345678", "/p?q=tel%20******5678"],
      ["/p?q=%E0%B9%82%E0%B8%97%E0%B8%A30812345678", "/p?q=%E0%B9%82%E0%B8%97%E0%B8%A3******5678"],
      ["/p?q=%E0%B8%81-0812345678", "/p?q=%E0%B8%81-******5678"],
      ["/p?q=name%20%200812345678", "/p?q=name%20%20******5678"],
      ["/p?q=x%260812345678", "/p?q=x%26******5678"],
      ["/by-reference/%200812345678", "/by-reference/%20******5678"],
      ["/p?q=acct:0812345678", "/p?q=acct:******5678"],
      ["/p?q=a,0812345678", "/p?q=a,******5678"],
      ["/p?q=0812345678,0898765432", "/p?q=******5678,******5432"],
    ];
    for (const [line, masked] of encoded) assert.equal(redactText(line), masked, line);
    // JSON numbers, negative ones too, and a decimal's fraction are no account numbers.
    for (const line of ['{"n":-1234567890}', '{"t":1764244000123}', "x 0.12345678901"]) {
      assert.equal(redactText(line), line, line);
    }
    // Sixteen digits are no account number, whichever separator stands between their groups.
    for (const card of [
      "1234-5678-9012-3456",
      "1234+5678+9012+3456",
      "1234%205678%209012%203456",
      "1234%2D5678%2D9012%2D3456",
      "1234%C2%A05678%C2%A09012%C2%A03456",
    ]) {
      assert.equal(redactText(`/p?n=${card}`), `/p?n=${card}`, card);
    }
    assert.equal(redactText('"n":1234567890'), '"n":1234567890');
  });
});

describe("secrets named in a query string or a form", () => {
  it("hide the value of every secret-like name, whatever its prefix or case, and nothing else", () => {
    const cases: [string, string][] = [
      ["/pay/x/status?clientSecret=abc&x=1", "/pay/x/status?clientSecret=[redacted]&x=1"],
      ["GET /cb?access_token=abc123 HTTP/1.1", "GET /cb?access_token=[redacted] HTTP/1.1"],
      ["a?pass=hunter2&user=me", "a?pass=[redacted]&user=me"],
      ["a?PWD=hunter2", "a?PWD=[redacted]"],
      ["a?otp=123456", "a?otp=[redacted]"],
      ["a?x-api-key=k1&refresh_token=r1", "a?x-api-key=[redacted]&refresh_token=[redacted]"],
      ["a?Password=p&apiSecret=s&sig=1", "a?Password=[redacted]&apiSecret=[redacted]&sig=1"],
      ["a?user[password]=h&x=1", "a?user[password]=[redacted]&x=1"],
      ["a?user%5Bpassword%5D=h", "a?user%5Bpassword%5D=[redacted]"],
      ["OPN_SECRET_KEY=skey_test_5xyz1234567890abc", "OPN_SECRET_KEY=[redacted]"],
      ["passphrase=x&passcode=y&db_pass=z", "passphrase=[redacted]&passcode=[redacted]&db_pass=[redacted]"],
      ["a?referenceId=order-1&status=paid", "a?referenceId=order-1&status=paid"],
      [
        "a?amount=100.00&paymentId=0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a",
        "a?amount=100.00&paymentId=0b7c6b0e-4a53-4b0a-9a3e-1f2e3d4c5b6a",
      ],
    ];
    for (const [line, expected] of cases) assert.equal(redactText(line, []), expected, line);
  });
});
