import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ScbCallError } from "../../../src/providers/scb/client.ts";
import { SCB_TOKEN_BACKOFF_MAX_MS, SCB_TOKEN_BACKOFF_MIN_MS } from "../../../src/providers/scb/limits.ts";
import { REDACTED } from "../../../src/providers/scb/recorder.ts";
import { partnerTransactionId } from "../../../src/providers/scb/references.ts";
import { SCB_TEST, type ScbRig, startScbRig } from "../../helpers/scb/setup.ts";

const inquiry = (rig: ScbRig, ref1 = "ABC123") =>
  rig.client.billPaymentInquiry({
    eventCode: "00300100",
    transactionDate: "2026-01-15",
    billerId: SCB_TEST.billerId,
    reference1: ref1,
  });

describe("SCB client: access token", () => {
  let rig: ScbRig;
  before(async () => {
    rig = await startScbRig({ tokenLifetimeS: 1800, refreshMarginMs: 120_000 });
  });
  after(() => rig.close());

  it("fetches one token for 20 concurrent calls and reuses it", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => inquiry(rig)));
    assert.ok(answers.every((a) => a.code === 1000));
    assert.equal(rig.sim.tokensIssued, 1);
    await inquiry(rig);
    assert.equal(rig.sim.tokensIssued, 1);
  });

  it("sends the credentials in the body of POST /v1/oauth/token", () => {
    const request = rig.sim.of("token")[0]!;
    assert.deepEqual(request.body, {
      applicationKey: SCB_TEST.apiKey,
      applicationSecret: SCB_TEST.apiSecret,
    });
    assert.equal(request.headers.authorization, undefined);
  });

  it("replaces the token once the refresh margin before its expiry is reached, not before", async () => {
    const issued = rig.sim.tokensIssued;
    rig.clock.advance(1800_000 - 120_000 - 1);
    await inquiry(rig);
    assert.equal(rig.sim.tokensIssued, issued);
    rig.clock.advance(1);
    await Promise.all(Array.from({ length: 20 }, () => inquiry(rig)));
    assert.equal(rig.sim.tokensIssued, issued + 1);
  });

  it("refreshes once and retries once when SCB refuses a token before its stated expiry", async () => {
    const issued = rig.sim.tokensIssued;
    const calls = rig.sim.of("bill_payment_inquiry").length;
    rig.sim.expireTokens();
    const answers = await Promise.all(Array.from({ length: 20 }, () => inquiry(rig)));
    assert.ok(answers.every((a) => a.code === 1000));
    assert.equal(rig.sim.tokensIssued, issued + 1, "one refresh for all twenty refused calls");
    assert.equal(rig.sim.of("bill_payment_inquiry").length, calls + 40, "each call retried exactly once");
  });

  it("gives up after one retry when the new token is refused too", async () => {
    const calls = rig.sim.of("bill_payment_inquiry").length;
    rig.sim.failNext("bill_payment_inquiry", { kind: "unauthorized" }, 2);
    const answer = await inquiry(rig);
    assert.equal(answer.httpStatus, 401);
    assert.equal(rig.sim.of("bill_payment_inquiry").length, calls + 2);
  });
});

describe("SCB client: an outage of the token endpoint", () => {
  const down = { kind: "answer", httpStatus: 503, code: 9999, description: "down" } as const;
  const refusedForToken = (error: unknown) =>
    error instanceof ScbCallError && error.kind === "token" && error.sent === false;

  it("shares one failed fetch among concurrent callers, then shares the failure for the backoff", async () => {
    const rig = await startScbRig();
    try {
      rig.sim.failNext("token", down, 2);
      const first = await Promise.allSettled(Array.from({ length: 20 }, () => inquiry(rig)));
      assert.ok(first.every((r) => r.status === "rejected" && refusedForToken(r.reason)));
      assert.equal(rig.sim.of("token").length, 1, "twenty callers, one token request");
      // Within the backoff nobody asks SCB's token endpoint: every caller gets the failure.
      rig.clock.advance(SCB_TOKEN_BACKOFF_MIN_MS - 1);
      const during = await Promise.allSettled(Array.from({ length: 20 }, () => inquiry(rig)));
      assert.ok(during.every((r) => r.status === "rejected" && refusedForToken(r.reason)));
      assert.match(String((during[0] as PromiseRejectedResult).reason.message), /not asked again/);
      assert.equal(rig.sim.of("token").length, 1);
      assert.equal(rig.sim.of("bill_payment_inquiry").length, 0, "no call left without a token");
      // At its end one caller asks again (the second failure), and the next backoff is twice as long.
      rig.clock.advance(1);
      await Promise.allSettled(Array.from({ length: 5 }, () => inquiry(rig)));
      assert.equal(rig.sim.of("token").length, 2);
      rig.clock.advance(2 * SCB_TOKEN_BACKOFF_MIN_MS - 1);
      await assert.rejects(inquiry(rig), refusedForToken);
      assert.equal(rig.sim.of("token").length, 2);
      rig.clock.advance(1);
      // SCB is back: a token is fetched once and every caller goes through again.
      const back = await Promise.all(Array.from({ length: 5 }, () => inquiry(rig)));
      assert.ok(back.every((a) => a.code === 1000));
      assert.equal(rig.sim.of("token").length, 3);
      // A success ends the backoff: the next failure starts again at the shortest wait.
      rig.sim.expireTokens();
      rig.sim.failNext("token", down);
      await assert.rejects(inquiry(rig));
      rig.clock.advance(SCB_TOKEN_BACKOFF_MIN_MS);
      assert.equal((await inquiry(rig)).code, 1000);
    } finally {
      await rig.close();
    }
  });

  it("grows the backoff by doubling and never past its bound", async () => {
    const rig = await startScbRig();
    try {
      rig.sim.failNext("token", down, 100);
      await assert.rejects(inquiry(rig), refusedForToken);
      const expected = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000];
      assert.equal(expected.at(-1), SCB_TOKEN_BACKOFF_MAX_MS);
      for (const [index, wait] of expected.entries()) {
        const asked = rig.sim.of("token").length;
        assert.equal(asked, index + 1);
        rig.clock.advance(wait - 1);
        await assert.rejects(inquiry(rig), refusedForToken);
        assert.equal(rig.sim.of("token").length, asked, `no request 1 ms before the wait of ${wait} ms ends`);
        rig.clock.advance(1);
        await assert.rejects(inquiry(rig), refusedForToken);
        assert.equal(rig.sim.of("token").length, asked + 1, `one request once the wait of ${wait} ms ends`);
      }
    } finally {
      await rig.close();
    }
  });
});

describe("SCB client: token answers", () => {
  for (const form of ["string", "expiresAtOnly"] as const) {
    it(`honours the token's expiry when SCB states it ${form === "string" ? "as a numeric string" : "only as expiresAt"}`, async () => {
      const rig = await startScbRig({ tokenLifetimeS: 1800, refreshMarginMs: 120_000 });
      try {
        rig.sim.tokenExpiryForm = form;
        await inquiry(rig);
        rig.clock.advance(1800_000 - 120_000 - 1_000);
        await inquiry(rig);
        assert.equal(rig.sim.tokensIssued, 1);
        rig.clock.advance(1_000);
        await inquiry(rig);
        assert.equal(rig.sim.tokensIssued, 2);
      } finally {
        await rig.close();
      }
    });
  }
});

describe("SCB client: headers, timeouts and failures", () => {
  let rig: ScbRig;
  before(async () => {
    rig = await startScbRig({ timeoutMs: 3_000 });
  });
  after(() => rig.close());

  it("sends resourceOwnerId, a fresh 32-character requestUId, accept-language and the bearer token on every call", async () => {
    await inquiry(rig);
    await inquiry(rig);
    const uids = new Set<string>();
    for (const request of rig.sim.requests) {
      assert.equal(request.headers.resourceownerid, SCB_TEST.apiKey);
      assert.equal(request.headers["accept-language"], "EN");
      const uid = request.headers.requestuid as string;
      assert.match(uid, /^[0-9a-f]{32}$/);
      uids.add(uid);
      if (request.operation !== "token") assert.match(String(request.headers.authorization), /^Bearer \S+$/);
    }
    assert.equal(uids.size, rig.sim.requests.length, "every request has its own requestUId");
  });

  it("stops waiting at the timeout and reports a call that may have reached SCB", async () => {
    rig.sim.failNext("bill_payment_inquiry", { kind: "timeout" });
    await assert.rejects(inquiry(rig), (error: unknown) => {
      assert.ok(error instanceof ScbCallError);
      assert.equal(error.kind, "timeout");
      assert.equal(error.sent, true);
      return true;
    });
  });

  it("reports a call that never left when no token can be had", async () => {
    const broken = await startScbRig();
    try {
      broken.sim.failNext("token", { kind: "answer", httpStatus: 500, code: 9999, description: "down" });
      await assert.rejects(inquiry(broken), (error: unknown) => {
        assert.ok(error instanceof ScbCallError);
        assert.equal(error.kind, "token");
        assert.equal(error.sent, false);
        return true;
      });
      assert.equal(broken.sim.of("bill_payment_inquiry").length, 0);
      // Once the failure's backoff has passed, the next call fetches a token and goes through.
      broken.clock.advance(SCB_TOKEN_BACKOFF_MIN_MS);
      assert.equal((await inquiry(broken)).code, 1000);
    } finally {
      await broken.close();
    }
  });

  it("reports a call refused with 401 whose new token cannot be had as one that may have reached SCB", async () => {
    const broken = await startScbRig();
    try {
      await inquiry(broken);
      broken.sim.expireTokens();
      broken.sim.failNext("token", { kind: "answer", httpStatus: 503, code: 9999, description: "down" });
      await assert.rejects(inquiry(broken), (error: unknown) => {
        assert.ok(error instanceof ScbCallError);
        assert.equal(error.kind, "token");
        assert.equal(error.sent, true, "the refused request reached SCB: its outcome is uncertain");
        return true;
      });
      assert.equal(broken.sim.of("bill_payment_inquiry").length, 2, "the first call and the refused one");
    } finally {
      await broken.close();
    }
  });

  it("reports a call refused with 401 whose caller's bound passes while a new token is fetched as one that may have reached SCB", async () => {
    const broken = await startScbRig();
    try {
      await inquiry(broken);
      broken.sim.expireTokens();
      // The new token comes, but late: by then the caller has given the call up.
      broken.sim.failNext("token", { kind: "timeout_but_execute", holdMs: 300 });
      const tokensAsked = broken.sim.of("token").length;
      const bound = new AbortController();
      const call = broken.client.transferInquiry(
        {
          channelDateTime: "2026-01-15T10:00:00.000+07:00",
          tokenizerId: "TKN1",
          dateFrom: "2026-01-15",
          dateTo: "2026-01-15",
        },
        bound.signal,
      );
      while (broken.sim.of("token").length === tokensAsked)
        await new Promise((resolve) => setTimeout(resolve, 5));
      bound.abort();
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof ScbCallError);
        assert.equal(error.sent, true, "the refused request reached SCB: its outcome is uncertain");
        return true;
      });
      assert.equal(broken.sim.of("transfer_inquiry").length, 1, "only the refused request left");
    } finally {
      await broken.close();
    }
  });

  it("returns SCB's documented failure answers as answers, with status code and description", async () => {
    rig.sim.failNext("bill_payment_inquiry", {
      kind: "answer",
      httpStatus: 400,
      code: 8101,
      description: "VF0003 Validation Fail",
    });
    const answer = await inquiry(rig);
    assert.deepEqual(
      { http: answer.httpStatus, code: answer.code, description: answer.description },
      { http: 400, code: 8101, description: "VF0003 Validation Fail" },
    );
  });
});

describe("SCB client: the record of every call", () => {
  it("records each request and answer without a secret, a token or a full account number", async () => {
    const rig = await startScbRig();
    try {
      await rig.payouts.initiatePayout({
        withdrawId: "0b6c7a52-2f4e-4b8e-9a51-3c1d2e3f4a5b",
        amountSatang: 150_000n,
        destinationType: "bank_account",
        bankCode: "004",
        accountNumber: "9876543210",
        accountName: "Somchai Jaidee",
      });
      const tokenRecord = rig.recorder.of("token")[0]!;
      const initiate = rig.recorder.of("credit_initiate")[0]!;
      assert.equal(tokenRecord.responseStatus, 200);
      assert.equal((tokenRecord.responseBody as any).data.accessToken, REDACTED);
      assert.equal((tokenRecord.requestBody as any).applicationSecret, REDACTED);
      assert.equal(initiate.direction, "outbound");
      assert.deepEqual(Object.keys(initiate.requestHeaders).sort(), [
        "accept-language",
        "requestUId",
        "resourceOwnerId",
      ]);
      assert.equal(initiate.requestHeaders.requestUId, initiate.requestUId);
      assert.deepEqual(initiate.keys, {
        partnerTransactionId: partnerTransactionId("0b6c7a52-2f4e-4b8e-9a51-3c1d2e3f4a5b"),
        tokenizerId: rig.sim.transfersOf(partnerTransactionId("0b6c7a52-2f4e-4b8e-9a51-3c1d2e3f4a5b"))[0]!
          .tokenizerId,
      });
      assert.equal((initiate.requestBody as any).payee.accountInfo.accountNo, "******3210");
      assert.equal((initiate.requestBody as any).payer.accountInfo.accountNo, "******3334");
      assert.equal((initiate.requestBody as any).payer.taxId, "*********9999");
      assert.equal(initiate.responseStatus, 200);
      assert.match(initiate.requestUId, /^[0-9a-f]{32}$/);

      const text = JSON.stringify(rig.recorder.exchanges);
      const tokens = rig.sim.requests
        .map((r) => /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ""))?.[1])
        .filter((t): t is string => Boolean(t));
      assert.ok(tokens.length > 0);
      for (const secret of [
        SCB_TEST.apiSecret,
        SCB_TEST.apiKey,
        "9876543210",
        SCB_TEST.payer.accountNumber,
        SCB_TEST.payer.taxId,
        ...tokens,
      ]) {
        assert.ok(!text.includes(secret), `the record contains ${secret.slice(0, 4)}...`);
      }
    } finally {
      await rig.close();
    }
  });

  it("hides tokens in a record by key in any spelling, by shape and by value", async () => {
    const rig = await startScbRig();
    try {
      rig.sim.tokenOAuthFields = true;
      await inquiry(rig);
      const [token, refresh, idToken] = rig.sim.secretsIssued as [string, string, string];
      rig.sim.failNext("bill_payment_inquiry", {
        kind: "answer",
        httpStatus: 400,
        code: 8101,
        description: `VF0003 token ${token} refused (Bearer ${token})`,
        data: {
          access_token: token,
          "refresh-token": refresh,
          Access_Token: token,
          echo: `the token was ${token}`,
          claims: idToken,
          nested: [{ detail: `jwt ${idToken}` }],
        },
      });
      const answer = await inquiry(rig);
      assert.equal(answer.httpStatus, 400);
      const text = JSON.stringify(rig.recorder.exchanges);
      for (const secret of [...rig.sim.secretsIssued, SCB_TEST.apiSecret]) {
        assert.ok(!text.includes(secret), `a record contains ${secret.slice(0, 6)}...`);
      }
      assert.ok(text.includes("VF0003 token [redacted] refused"), "the rest of the answer stays readable");
      const tokenRecord = rig.recorder.of("token")[0]!;
      assert.equal((tokenRecord.responseBody as any).data.access_token, REDACTED);
      assert.equal((tokenRecord.responseBody as any).data.id_token, REDACTED);
    } finally {
      await rig.close();
    }
  });

  it("records a call that got no answer, with the reason", async () => {
    const rig = await startScbRig({ timeoutMs: 3_000 });
    try {
      await inquiry(rig);
      rig.sim.failNext("bill_payment_inquiry", { kind: "timeout" });
      await assert.rejects(inquiry(rig));
      const record = rig.recorder.of("bill_payment_inquiry")[1]!;
      assert.equal(record.responseStatus, null);
      assert.match(record.error ?? "", /did not answer in time/);
    } finally {
      await rig.close();
    }
  });

  it("keeps the outcome of a call when the recorder fails", async () => {
    const rig = await startScbRig();
    try {
      const failures: unknown[] = [];
      const { ScbClient } = await import("../../../src/providers/scb/client.ts");
      const client = new ScbClient({
        baseUrl: rig.sim.url,
        apiKey: SCB_TEST.apiKey,
        apiSecret: SCB_TEST.apiSecret,
        timeoutMs: 20_000,
        tokenRefreshMarginMs: 0,
        clock: rig.clock,
        recorder: {
          record() {
            throw new Error("the record store is away");
          },
        },
        onRecorderError: (error) => failures.push(error),
      });
      const answer = await client.billPaymentInquiry({
        eventCode: "00300100",
        transactionDate: "2026-01-15",
        billerId: SCB_TEST.billerId,
        reference1: "ABC",
      });
      assert.equal(answer.code, 1000);
      assert.equal(failures.length, 2, "the token call and the inquiry");
    } finally {
      await rig.close();
    }
  });
});
