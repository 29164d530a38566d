/**
 * A body that names a member twice in one object is refused with 400 VALIDATION_ERROR naming
 * the member, and nothing is written: JSON.parse keeps the last value, where a proxy, a log or
 * an approval step in front of the service may read the first (`"amount":"10.00", ...,
 * "amount":"3000.00"` would pay 3000.00 satang where 10.00 was approved). Escaped spellings of
 * one name count as the same name; the same name in different objects, and colons inside
 * strings, are not duplicates.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { duplicateMemberPath, scanJson } from "../../src/http/body.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { paymentBody } from "../helpers/lifecycle.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

/** `body` as JSON text with `extra` (already JSON text, e.g. `"amount":"1"`) added at its end. */
const withMember = (body: object, extra: string) => `${JSON.stringify(body).slice(0, -1)},${extra}}`;

describe("a member named twice", () => {
  it("is found by its path, escaped spellings included, and only within one object", () => {
    assert.equal(duplicateMemberPath('{"amount":"1","b":2,"amount":"3"}'), "amount");
    assert.equal(duplicateMemberPath('{"amount":"1","\\u0061mount":"3"}'), "amount");
    assert.equal(duplicateMemberPath('{"metadata":{"a":"x","a":"y"}}'), "metadata.a");
    assert.equal(duplicateMemberPath('{"d":{"a":"x"},"e":{"a":"y"}}'), undefined);
    assert.equal(duplicateMemberPath('{"a":[{"k":1},{"k":2}]}'), undefined);
    assert.equal(scanJson('{"a":"x:y","b":{"c":":"}}').members, 3, "colons in strings do not count");
  });

  it("refuses a withdraw whose amount and account are each named twice, and holds nothing", async () => {
    const shop = await fundedMerchant(svc);
    const before = await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop });
    const body = withdrawBody({ amount: "10.00", customerBankAccountNumber: "1111111111" });
    const raw = withMember(body, '"customerBankAccountNumber":"9999999999","amount":"3000.00"');
    const refused = await svc.request("POST", "/api/v1/withdraws", undefined, {
      credentials: shop,
      rawBody: raw,
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "VALIDATION_ERROR");
    assert.equal(refused.body.error.metadata.field, "customerBankAccountNumber");
    const list = await svc.request("GET", "/api/v1/withdraws", undefined, { credentials: shop });
    assert.equal(list.body.data.total, 0, "no withdraw");
    const after = await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop });
    assert.deepEqual(after.body.data, before.body.data, "nothing held");
  });

  it("refuses a payment with an escaped second amount and a metadata key named twice", async () => {
    const amountTwice = withMember(paymentBody({ amount: "1000.00" }), '"\\u0061mount":"99999.00"');
    const refused = await svc.request("POST", "/api/v1/payments", undefined, { rawBody: amountTwice });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.metadata.field, "amount");
    const metadataTwice = withMember(paymentBody(), '"metadata":{"order":"1","order":"2"}');
    const nested = await svc.request("POST", "/api/v1/payments", undefined, { rawBody: metadataTwice });
    assert.equal(nested.status, 400, JSON.stringify(nested.body));
    assert.equal(nested.body.error.metadata.field, "metadata.order");
    const list = await svc.request("GET", "/api/v1/payments");
    assert.equal(list.body.data.total, 0, "no payment");
  });

  it("accepts one name in different objects and colons inside strings", async () => {
    const body = withMember(paymentBody({ description: "order: 12:30" }), '"metadata":{"amount":"a:b"}');
    const created = await svc.request("POST", "/api/v1/payments", undefined, { rawBody: body });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });

  it("is refused on login too, naming the member only when it reads as a field name", async () => {
    // A name that no field has (a control character) is not echoed: the body is named.
    for (const [payload, field] of [
      ['{"email":"a@b.c","password":"x","password":"y"}', "password"],
      ['{"email":"a@b.c","password":"x","\\u0001":1,"\\u0001":2}', "body"],
    ]) {
      const login = await svc.app.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload,
        headers: { "content-type": "application/json" },
      });
      assert.equal(login.statusCode, 400, login.body);
      assert.equal(login.json().error.metadata.field, field, payload);
    }
  });
});
