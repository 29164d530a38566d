/**
 * Cancel of a withdraw by its status (interface.md "Cancel withdraw"): a pending one is canceled
 * and its hold released; a processing one is with the bank, which no connector recalls, so it is
 * refused as interface.md refuses "a cancel of a non-cancellable withdraw" (400 VALIDATION_ERROR
 * on `status`) and its hold kept, the same answer in sandbox as in live (test/providers/scb for
 * SCB), so a merchant's tests in sandbox see what live answers; an ended one is refused the same.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

let svc: TestService;
let merchant: Credentials;

before(async () => {
  svc = await startService();
  merchant = await fundedMerchant(svc);
});
after(async () => {
  await svc.close();
});

const cancel = (id: string) =>
  svc.request("POST", `/api/v1/withdraws/${id}/cancel`, {}, { credentials: merchant });
const balance = async () =>
  (await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant })).body.data;

describe("cancel of a withdraw", () => {
  it("refuses a processing one with 400 VALIDATION_ERROR on status, keeping its hold", async () => {
    const withdraw = await createWithdraw(svc, merchant, { amount: "1500" });
    const processing = await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    assert.equal(processing.status, 200, JSON.stringify(processing.body));
    const before = await balance();
    const refused = await cancel(withdraw.id);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(refused.body.error.metadata, { field: "status" });
    assert.match(refused.body.error.message, /cannot recall/);
    const after = await svc.request("GET", `/api/v1/withdraws/${withdraw.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(after.body.data.status, "processing");
    assert.deepEqual(await balance(), before, "the hold is kept");
  });

  it("cancels a pending one and releases its hold", async () => {
    const before = await balance();
    const withdraw = await createWithdraw(svc, merchant, { amount: "2500" });
    const canceled = await cancel(withdraw.id);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.data.status, "canceled");
    assert.deepEqual(await balance(), before);
  });

  it("refuses an ended one with 400 VALIDATION_ERROR on status", async () => {
    const withdraw = await createWithdraw(svc, merchant, { amount: "3500" });
    assert.equal((await simulateWithdrawRequest(svc, merchant, withdraw.id, "paid")).status, 200);
    const refused = await cancel(withdraw.id);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "VALIDATION_ERROR");
    assert.equal(refused.body.error.metadata.field, "status");
  });
});
