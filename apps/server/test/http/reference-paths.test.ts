/**
 * A referenceId travels in a path (`/by-reference/{referenceId}`), so its rules meet URL rules:
 * an empty reference is a malformed one (400 naming referenceId, not a 404 from the route behind
 * it). "." and "..", which every standard client removes from a path as dot segments, are
 * references like any other (interface.md: letters, digits, `_`, `-`, `.`): looked up written
 * `%2E` and `%2E%2E`, as the SDK writes them. "..." is an ordinary segment and round-trips.
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
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

/** A v2-signed GET sent over a socket with its path exactly as written (no URL normalisation). */
async function rawGet(credentials: Credentials, path: string): Promise<{ status: number; body: any }> {
  if (!svc.app.server.listening) await svc.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = svc.app.server.address() as AddressInfo;
  const headers = signRequest({ ...credentials, body: "", method: "GET", path, version: "v2" });
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, method: "GET", headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    request.on("error", reject);
    request.end();
  });
}

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

describe("a referenceId of dots alone", () => {
  for (const referenceId of [".", ".."]) {
    it(`accepts ${JSON.stringify(referenceId)} at create for payments, withdraws and refunds (interface.md's rule)`, async () => {
      // Each merchant's references are its own: a merchant of its own for each reference here.
      const merchant = await svc.newMerchant();
      await fundWallet(svc.deps, merchant.merchantId, 1_000_000n);
      const payment = await svc.request("POST", "/api/v1/payments", paymentBody({ referenceId }), {
        credentials: merchant,
      });
      assert.equal(payment.status, 201, JSON.stringify(payment.body));
      assert.equal(payment.body.data.referenceId, referenceId);
      const withdraw = await svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({ amount: "100.00", referenceId }),
        { credentials: merchant },
      );
      assert.equal(withdraw.status, 201, JSON.stringify(withdraw.body));
      const paid = await succeededPayment(svc, merchant);
      const refund = await createRefundRequest(svc, merchant, paid.id, refundBody({ referenceId }));
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      // Found again by reference by a client that sends the path as it is, plainly or
      // percent-encoded (fetch and browsers drop both forms as dot segments: below).
      for (const written of [referenceId, referenceId.replaceAll(".", "%2E")]) {
        for (const [resource, id] of [
          ["payments", payment.body.data.id],
          ["withdraws", withdraw.body.data.id],
        ] as const) {
          const found = await rawGet(merchant, `/api/v1/${resource}/by-reference/${written}`);
          assert.equal(found.status, 200, `${resource} ${written}: ${JSON.stringify(found.body)}`);
          assert.equal(found.body.data.id, id, `${resource} ${written}`);
        }
      }
      const again = await svc.request("POST", "/api/v1/payments", paymentBody({ referenceId }), {
        credentials: merchant,
      });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.error.code, "DUPLICATE_REFERENCE_ID");
    });
  }

  it("is refused by the SDK's lookup by reference with a clear error, since fetch cannot send it", async () => {
    for (const referenceId of [".", ".."]) {
      await assert.rejects(svc.sdk.payments.retrieveByReference(referenceId), (error: Error) => {
        assert.equal(error.name, "TypeError");
        assert.match(error.message, /dot segment.*by its id/);
        return true;
      });
    }
  });

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
