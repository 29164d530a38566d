/**
 * A referenceId travels in a path (`/by-reference/{referenceId}`), so its rules meet URL rules:
 * an empty reference is a malformed one (400 naming referenceId, not a 404 from the route behind
 * it), and "." or "..", which every standard client removes from a path as dot segments, are
 * refused at create, for payments, withdraws and refunds alike, because a record made with one
 * could never be retrieved by its reference. "..." is an ordinary segment and round-trips.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { createPayment, paymentBody } from "../helpers/lifecycle.ts";
import { createRefundRequest, refundBody, succeededPayment } from "../helpers/refunds.ts";
import { withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
  await fundWallet(svc.deps, svc.credentials.merchantId, 1_000_000_00n);
});
after(async () => {
  await svc?.close();
});

function expectInvalid(res: TestResponse, code: string, what: string): void {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.success, false, what);
  assert.equal(res.body.error.code, code, what);
  assert.equal(res.body.error.metadata.field, "referenceId", what);
  assert.match(res.body.error.message, /^referenceId /, what);
}

describe("an empty reference in a by-reference lookup", () => {
  for (const resource of ["payments", "withdraws"]) {
    it(`answers GET /api/v1/${resource}/by-reference/ with 400 VALIDATION_ERROR naming referenceId`, async () => {
      for (const path of [`/api/v1/${resource}/by-reference/`, `/api/v1/${resource}/by-reference`]) {
        const res = await svc.request("GET", path);
        expectInvalid(res, "VALIDATION_ERROR", path);
        assert.ok(res.headers["x-request-id"], `${path} carries a request id`);
      }
    });

    it(`still signs first and keeps the list of ${resource} where it was`, async () => {
      const unsigned = await svc.app.inject({ method: "GET", url: `/api/v1/${resource}/by-reference/` });
      assert.equal(unsigned.statusCode, 401);
      for (const path of [`/api/v1/${resource}`, `/api/v1/${resource}/`]) {
        const list = await svc.request("GET", path);
        assert.equal(list.status, 200, `${path}: ${JSON.stringify(list.body)}`);
        assert.ok(Array.isArray(list.body.data.data), path);
      }
    });
  }
});

describe("a referenceId of dots alone at create", () => {
  for (const referenceId of [".", ".."]) {
    it(`refuses ${JSON.stringify(referenceId)} with 400 INVALID_REFERENCE_ID for payments, withdraws and refunds`, async () => {
      expectInvalid(
        await svc.request("POST", "/api/v1/payments", paymentBody({ referenceId })),
        "INVALID_REFERENCE_ID",
        "payment",
      );
      expectInvalid(
        await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "100.00", referenceId })),
        "INVALID_REFERENCE_ID",
        "withdraw",
      );
      const payment = await succeededPayment(svc, svc.credentials);
      expectInvalid(
        await createRefundRequest(svc, svc.credentials, payment.id, refundBody({ referenceId })),
        "INVALID_REFERENCE_ID",
        "refund",
      );
    });
  }

  it('accepts "..." and other dotted references, and the SDK finds them again by reference', async () => {
    for (const referenceId of ["...", ".a", "a..", "...."]) {
      const payment = await createPayment(svc, svc.credentials, { referenceId });
      assert.equal((await svc.sdk.payments.retrieveByReference(referenceId)).id, payment.id, referenceId);
      const withdraw = await svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({ amount: "100.00", referenceId }),
      );
      assert.equal(withdraw.status, 201, JSON.stringify(withdraw.body));
      assert.equal(
        (await svc.sdk.withdraws.retrieveByReference(referenceId)).id,
        withdraw.body.data.id,
        referenceId,
      );
    }
  });
});
