/**
 * What the client refuses before it sends anything, and what it never follows: a misspelt
 * signature version (it would sign v1, leaving method, path and query unsigned), a starting page
 * given to listAll (it would leave out the pages before it), an invalid Date in a filter, a
 * redirect (it would resend the signed request and the API key elsewhere), and amounts a helper
 * cannot convert exactly.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bahtToSatang,
  type FetchLike,
  fromSatangString,
  Satang,
  satangToBaht,
  signRequest,
  toSatangString,
  UnexpectedResponseError,
} from "../src/index.ts";

interface Sent {
  url: string;
  init: RequestInit;
}

/** A client whose fetch records each request and answers with `answer`. */
function clientAnswering(answer: () => Response, config: Record<string, unknown> = {}) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, init });
    return answer();
  };
  const satang = new Satang({
    apiKey: "sk_test_guard",
    apiSecret: "secret",
    baseUrl: "http://api.example",
    fetch,
    sleep: async () => {},
    ...config,
  });
  return { satang, sent };
}

const emptyPage = () =>
  Response.json({ success: true, data: { data: [], total: 0, page: 1, limit: 100, totalPages: 0 } });

describe("the client's guards", () => {
  it("refuses a signature version other than v1 or v2 at construction, and signRequest likewise", () => {
    for (const signatureVersion of ["V2", "v3", "v2 ", "2", "V1"]) {
      assert.throws(
        () => clientAnswering(emptyPage, { signatureVersion }),
        (error: Error) =>
          error instanceof TypeError && /signatureVersion must be "v1" or "v2"/.test(error.message),
        signatureVersion,
      );
      assert.throws(
        () =>
          signRequest({
            apiKey: "k",
            apiSecret: "s",
            body: "",
            method: "GET",
            path: "/api/v1/balance",
            version: signatureVersion as "v2",
          }),
        TypeError,
      );
    }
    const { satang, sent } = clientAnswering(emptyPage, { signatureVersion: undefined });
    return satang.payments.list().then(() => {
      const headers = sent[0]!.init.headers as Record<string, string>;
      assert.match(headers["X-Signature"]!, /^v2=/, "undefined is the default, v2");
    });
  });

  it("refuses a starting page in listAll, which reads every record once from the first page", async () => {
    const { satang, sent } = clientAnswering(emptyPage);
    const walk = satang.payments.listAll({ page: 2 } as never);
    await assert.rejects(walk.next(), /listAll reads the whole list from its first page/);
    assert.equal(sent.length, 0, "nothing was sent");
    const all = [];
    for await (const payment of satang.payments.listAll({ limit: 3 })) all.push(payment);
    assert.deepEqual(all, []);
    assert.match(sent[0]!.url, /page=1/);
  });

  it("refuses an invalid Date in a filter before sending, naming the filter", async () => {
    const { satang, sent } = clientAnswering(emptyPage);
    await assert.rejects(
      satang.payments.list({ dateFrom: new Date("not a date") }),
      /dateFrom is an invalid Date/,
    );
    assert.equal(sent.length, 0);
  });

  it("does not follow a redirect: it answers UnexpectedResponseError naming where it pointed, once, unretried", async () => {
    for (const status of [301, 302, 307, 308]) {
      const { satang, sent } = clientAnswering(
        () =>
          new Response(null, { status, headers: { location: "https://elsewhere.example/api/v1/payments" } }),
        { maxRetries: 2 },
      );
      const error = await satang.payments
        .create({
          amount: "1000.00",
          referenceId: "redirected-1",
          paymentMethod: "promptpay",
          customerBankAccountName: "Somchai Jaidee",
          customerBankAccountNumber: "1234567890",
          customerBankCode: "004",
        })
        .catch((e: unknown) => e);
      assert.ok(error instanceof UnexpectedResponseError, `${status}: ${String(error)}`);
      assert.equal(error.status, status);
      assert.match(error.message, /a redirect to https:\/\/elsewhere\.example: set baseUrl/);
      assert.equal(sent.length, 1, `${status}: sent once`);
      assert.equal(sent[0]!.init.redirect, "manual", "fetch is told not to follow it");
    }
  });
});

describe("amount helpers", () => {
  it("say why a number past 2^53 - 1 is refused, and convert it exactly as a bigint", () => {
    assert.throws(
      () => toSatangString(2 ** 53),
      /beyond what a number holds exactly \(2\^53 - 1\): pass it as a bigint/,
    );
    assert.throws(() => satangToBaht(2 ** 53), /pass it as a bigint/);
    assert.equal(toSatangString(2n ** 53n), "9007199254740992.00");
    assert.equal(satangToBaht(2n ** 53n), "90071992547409.92");
    assert.throws(() => toSatangString(1.5), /must be a whole number of satang, got 1.5/);
  });

  it("refuse what is not a string where a string is read, with a TypeError saying so", () => {
    assert.throws(
      () => bahtToSatang(100.5 as never),
      (e: Error) => e instanceof TypeError && /baht must be a string/.test(e.message),
    );
    assert.throws(
      () => fromSatangString(100 as never),
      (e: Error) => e instanceof TypeError && /amount must be a string/.test(e.message),
    );
    assert.equal(bahtToSatang("100.5"), 10050n);
    assert.equal(fromSatangString("100"), 100n);
  });
});

describe("webhook verification's refusal of a missing body", () => {
  it("names undefined without an article", () => {
    assert.throws(
      () => Satang.webhooks.verify(undefined as never, {}, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
      /got undefined/,
    );
  });
});
