import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ScbCallError } from "../../../src/providers/scb/client.ts";
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
      // The failure is not remembered: the next call fetches a token and goes through.
      assert.equal((await inquiry(broken)).code, 1000);
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
