/**
 * Balance figures are JSON integers of satang (CONTRACT 4, 8). A balance past what a double holds
 * exactly (2^53 satang, about 90 trillion THB: 901 of the largest operator credits) is still
 * answered, digit for digit, on every route that shows it: never rounded, never a 500.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

describe("a balance beyond 2^53 satang", () => {
  it("is answered exactly by the API, the operator API and the dashboard", async () => {
    const shop = await svc.newMerchant();
    for (let i = 0; i < 901; i++) {
      const credited = await svc.admin("POST", `/admin/v1/merchants/${shop.merchantId}/wallet/adjustments`, {
        amount: "9999999999999.00",
        reason: `float ${i}`,
      });
      assert.equal(credited.status, 201, JSON.stringify(credited.body));
    }
    const exact = String(901n * 9_999_999_999_999n);
    assert.ok(BigInt(exact) > BigInt(Number.MAX_SAFE_INTEGER), "past what a double holds");

    const own = await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop });
    assert.equal(own.status, 200, own.raw.body);
    assert.match(own.raw.body, new RegExp(`"walletBalance":${exact},"settlementBalance":0,`));

    const operator = await svc.admin("GET", `/admin/v1/merchants/${shop.merchantId}`);
    assert.equal(operator.status, 200, operator.raw.body);
    assert.match(operator.raw.body, new RegExp(`"walletBalance":${exact},`));

    const owner = await dashboardUser(svc, shop.merchantId);
    const page = await owner.request("GET", "/balance");
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.data.walletBalance, Number(exact), "the dashboard's figure");
  });
});
