/**
 * CONTRACT 6: nextAction for both methods, the integration redirect, every responseMode on
 * create, retrieve, by-reference and list, the PromptPay QR payload checked by an independent
 * parser, its PNG decoded back, and the hosted page's 404s and escaping (the page itself is
 * tested in hosted-page.test.ts and, in a browser, hosted-browser.test.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import jsQRModule from "jsqr";
import { PNG } from "pngjs";
import { parse } from "promptparse";
import { anyId as readAnyId } from "promptparse/validate";
import { createIntegration } from "../../src/integrations/service.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";

// jsqr is CommonJS: TypeScript sees its function as the module's `default`, while a loader may
// hand over the function itself.
type JsQR = typeof jsQRModule.default;
const jsQR: JsQR = (jsQRModule as unknown as { default?: JsQR }).default ?? (jsQRModule as unknown as JsQR);

let svc: TestService;
let counter = 0;
const BASE = "http://pay.test";

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

const unique = (prefix: string) => `${prefix}-${++counter}`;

function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: "1050.00",
    referenceId: unique("ref"),
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(2_000_000_000 + ++counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function create(body: Record<string, unknown>, credentials?: Credentials): Promise<TestResponse> {
  const res = await svc.request("POST", "/api/v1/payments", body, credentials ? { credentials } : {});
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res;
}

function decodePng(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

const MODES = ["both", "payment_link", "qr_code"] as const;

describe("promptpay nextAction", () => {
  it("gives use_payment_app with the hosted page URL and the QR code", async () => {
    const res = await create(validBody());
    const { id, clientSecret, nextAction } = res.body.data;
    assert.deepEqual(Object.keys(nextAction).sort(), ["paymentAppUrl", "qrCode", "type"]);
    assert.equal(nextAction.type, "use_payment_app");
    // Exactly PUBLIC_BASE_URL/pay/{id} (CONTRACT 6): no secret in the link.
    assert.equal(nextAction.paymentAppUrl, `${BASE}/pay/${id}`);
    assert.ok(!nextAction.paymentAppUrl.includes(clientSecret));
    assert.equal(new URL(nextAction.paymentAppUrl).pathname, `/pay/${id}`);
    assert.deepEqual(Object.keys(nextAction.qrCode).sort(), ["imageUrl", "payload", "type"]);
    assert.equal(nextAction.qrCode.type, "promptpay");
    assert.equal(nextAction.qrCode.imageUrl, `${BASE}/pay/${id}/qr.png`);
  });

  it("builds a dynamic PromptPay payload that an independent parser accepts, CRC included", async () => {
    const res = await create(validBody({ amount: "1050" }));
    const payload: string = res.body.data.nextAction.qrCode.payload;
    const qr = parse(payload, true);
    assert.ok(qr, "payload fails the CRC check");
    assert.equal(qr.getTagValue("00"), "01");
    assert.equal(qr.getTagValue("01"), "12", "a dynamic QR (point of initiation 12)");
    assert.equal(qr.getTagValue("29", "00"), "A000000677010111");
    assert.equal(qr.getTagValue("29", "01"), "0066812345678", "the merchant's phone, as PromptPay writes it");
    assert.equal(qr.getTagValue("53"), "764");
    assert.equal(qr.getTagValue("54"), "10.50", "1050 satang is 10.50 THB");
    assert.equal(qr.getTagValue("58"), "TH");
    assert.deepEqual(readAnyId(payload), { type: "MSISDN", target: "0812345678", amount: 10.5 });
    const row = await svc.deps.db
      .selectFrom("payments")
      .select("qr_payload")
      .where("id", "=", res.body.data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.qr_payload, payload);
  });

  it("names a national id merchant with tag 29/02 and an e-wallet merchant with tag 29/03", async () => {
    const national = await svc.newMerchant({ promptpayId: "1-2345-67890-12-1" });
    const natPayload = (await create(validBody(), national)).body.data.nextAction.qrCode.payload;
    assert.deepEqual(readAnyId(natPayload), { type: "NATID", target: "1234567890121", amount: 10.5 });
    assert.ok(parse(natPayload, true));

    const wallet = await svc.newMerchant({ promptpayId: "123456789012345" });
    const walletPayload = (await create(validBody(), wallet)).body.data.nextAction.qrCode.payload;
    assert.deepEqual(readAnyId(walletPayload), {
      type: "EWALLETID",
      target: "123456789012345",
      amount: 10.5,
    });
    assert.ok(parse(walletPayload, true));
  });

  it("writes the largest QR amount exactly", async () => {
    const res = await create(validBody({ amount: "999999999999.00" }));
    const qr = parse(res.body.data.nextAction.qrCode.payload, true);
    assert.equal(qr?.getTagValue("54"), "9999999999.99");
  });

  it("writes one satang as 0.01 THB", async () => {
    const res = await create(validBody({ amount: "1" }));
    assert.equal(parse(res.body.data.nextAction.qrCode.payload, true)?.getTagValue("54"), "0.01");
  });

  it("serves a PNG at imageUrl that decodes to the payload", async () => {
    const res = await create(validBody());
    const { payload, imageUrl } = res.body.data.nextAction.qrCode;
    const image = await svc.app.inject({ method: "GET", url: imageUrl.slice(BASE.length) });
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers["content-type"], "image/png");
    assert.equal(decodePng(image.rawPayload), payload);
  });

  it("drops qrCode for payment_link and keeps only type and qrCode for qr_code", async () => {
    const link = (await create(validBody({ responseMode: "payment_link" }))).body.data;
    assert.deepEqual(link.nextAction, {
      type: "use_payment_app",
      paymentAppUrl: `${BASE}/pay/${link.id}`,
    });

    const qr = (await create(validBody({ responseMode: "qr_code" }))).body.data;
    assert.deepEqual(Object.keys(qr.nextAction).sort(), ["qrCode", "type"]);
    assert.equal(qr.nextAction.type, "use_payment_app");
    assert.equal(qr.nextAction.qrCode.imageUrl, `${BASE}/pay/${qr.id}/qr.png`);

    const both = (await create(validBody({ responseMode: "both" }))).body.data;
    assert.deepEqual(Object.keys(both.nextAction).sort(), ["paymentAppUrl", "qrCode", "type"]);
  });

  it("changes only nextAction between response modes", async () => {
    const created = (await create(validBody({ metadata: { a: "b" }, description: "d" }))).body.data;
    for (const mode of MODES) {
      const res = await svc.request("GET", `/api/v1/payments/${created.id}?responseMode=${mode}`);
      const { nextAction: _drop, ...rest } = res.body.data;
      const { nextAction: _same, ...expected } = created;
      assert.deepEqual(rest, expected, mode);
    }
  });

  it("applies responseMode on retrieve, by-reference and list", async () => {
    const created = (await create(validBody())).body.data;
    const full = created.nextAction;
    const expected = {
      both: full,
      payment_link: { type: full.type, paymentAppUrl: full.paymentAppUrl },
      qr_code: { type: full.type, qrCode: full.qrCode },
    };
    for (const mode of MODES) {
      const byId = await svc.request("GET", `/api/v1/payments/${created.id}?responseMode=${mode}`);
      assert.deepEqual(byId.body.data.nextAction, expected[mode], `retrieve ${mode}`);
      const byRef = await svc.request(
        "GET",
        `/api/v1/payments/by-reference/${created.referenceId}?responseMode=${mode}`,
      );
      assert.deepEqual(byRef.body.data.nextAction, expected[mode], `by-reference ${mode}`);
      const list = await svc.request("GET", `/api/v1/payments?limit=100&responseMode=${mode}`);
      const listed = list.body.data.data.find((p: { id: string }) => p.id === created.id);
      assert.deepEqual(listed.nextAction, expected[mode], `list ${mode}`);
    }
    const byDefault = await svc.request("GET", `/api/v1/payments/${created.id}`);
    assert.deepEqual(byDefault.body.data.nextAction, full);
  });

  it("refuses an unknown responseMode on retrieve, by-reference and list", async () => {
    const created = (await create(validBody())).body.data;
    for (const path of [
      `/api/v1/payments/${created.id}?responseMode=link`,
      `/api/v1/payments/by-reference/${created.referenceId}?responseMode=link`,
      "/api/v1/payments?responseMode=link",
    ]) {
      const res = await svc.request("GET", path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, "responseMode");
    }
  });
});

describe("redirect nextAction", () => {
  let shop: Credentials;
  before(async () => {
    shop = await svc.newMerchant({}, { redirectUrl: "https://shop.example/return?order=77" });
  });

  it("gives redirect with paymentId added to the integration's URL, and the QR code", async () => {
    const { id, nextAction } = (await create(validBody(), shop)).body.data;
    assert.equal(nextAction.type, "redirect");
    assert.equal(nextAction.redirectUrl, `https://shop.example/return?order=77&paymentId=${id}`);
    assert.equal(nextAction.paymentAppUrl, undefined);
    assert.equal(nextAction.qrCode.type, "promptpay");
    assert.ok(parse(nextAction.qrCode.payload, true));
  });

  it("trims redirect by responseMode like use_payment_app", async () => {
    const { id } = (await create(validBody(), shop)).body.data;
    const link = await svc.request("GET", `/api/v1/payments/${id}?responseMode=payment_link`, undefined, {
      credentials: shop,
    });
    assert.deepEqual(link.body.data.nextAction, {
      type: "redirect",
      redirectUrl: `https://shop.example/return?order=77&paymentId=${id}`,
    });
    const qr = await svc.request("GET", `/api/v1/payments/${id}?responseMode=qr_code`, undefined, {
      credentials: shop,
    });
    assert.deepEqual(Object.keys(qr.body.data.nextAction).sort(), ["qrCode", "type"]);
    assert.equal(qr.body.data.nextAction.type, "redirect");
  });

  it("keeps the creating integration's redirect when another integration reads the payment", async () => {
    const { id } = (await create(validBody(), shop)).body.data;
    const second = await createIntegration(svc.deps, shop.merchantId);
    const res = await svc.request("GET", `/api/v1/payments/${id}`, undefined, {
      credentials: { ...shop, apiKey: second.apiKey, apiSecret: second.apiSecret },
    });
    assert.equal(res.body.data.nextAction.type, "redirect");
  });

  it("replaces a paymentId already in the redirect URL", async () => {
    const creds = await svc.newMerchant({}, { redirectUrl: "https://shop.example/r?paymentId=old" });
    const { id, nextAction } = (await create(validBody(), creds)).body.data;
    assert.equal(nextAction.redirectUrl, `https://shop.example/r?paymentId=${id}`);
  });

  it("does not redirect bank transfers", async () => {
    const { nextAction } = (await create(validBody({ paymentMethod: "bank_transfer" }), shop)).body.data;
    assert.equal(nextAction.type, "display_bank_transfer_instructions");
  });
});

describe("bank transfer nextAction", () => {
  it("gives the merchant's collection account, the amount in THB and a short reference", async () => {
    const res = await create(validBody({ paymentMethod: "bank_transfer", amount: "123456" }));
    const { nextAction } = res.body.data;
    assert.deepEqual(Object.keys(nextAction).sort(), ["bankTransferInstructions", "type"]);
    assert.equal(nextAction.type, "display_bank_transfer_instructions");
    const { reference, ...rest } = nextAction.bankTransferInstructions;
    assert.deepEqual(rest, {
      bankName: "Siam Commercial Bank",
      accountNumber: "1234567890",
      accountName: "Test Shop Co., Ltd.",
      amount: "1234.56",
    });
    assert.match(reference, /^[A-HJ-NP-Z2-9]{8}$/);
  });

  it("ignores responseMode", async () => {
    const created = (await create(validBody({ paymentMethod: "bank_transfer", responseMode: "qr_code" })))
      .body.data;
    assert.equal(created.nextAction.type, "display_bank_transfer_instructions");
    for (const mode of MODES) {
      const res = await svc.request("GET", `/api/v1/payments/${created.id}?responseMode=${mode}`);
      assert.deepEqual(res.body.data.nextAction, created.nextAction, mode);
    }
  });

  it("keeps showing the account the customer was told to pay into after the merchant changes it", async () => {
    const creds = await svc.newMerchant();
    const created = (await create(validBody({ paymentMethod: "bank_transfer" }), creds)).body.data;
    await svc.deps.db
      .updateTable("merchants")
      .set({
        collection_bank_code: "004",
        collection_account_number: "9999999999",
        collection_account_name: "New",
      })
      .where("id", "=", creds.merchantId)
      .execute();
    const res = await svc.request("GET", `/api/v1/payments/${created.id}`, undefined, { credentials: creds });
    assert.deepEqual(res.body.data.nextAction, created.nextAction);
    const next = (await create(validBody({ paymentMethod: "bank_transfer" }), creds)).body.data;
    assert.equal(next.nextAction.bankTransferInstructions.bankName, "Kasikornbank");
    assert.equal(next.nextAction.bankTransferInstructions.accountNumber, "9999999999");
  });

  it("has no QR image", async () => {
    const { id } = (await create(validBody({ paymentMethod: "bank_transfer" }))).body.data;
    const res = await svc.app.inject({ method: "GET", url: `/pay/${id}/qr.png` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
  });
});

describe("final payments", () => {
  for (const status of ["succeeded", "canceled", "expired", "payment_failed"] as const) {
    it(`has no nextAction once ${status}, in every response mode`, async () => {
      for (const paymentMethod of ["promptpay", "bank_transfer"]) {
        const { id } = (await create(validBody({ paymentMethod }))).body.data;
        await svc.deps.db
          .updateTable("payments")
          .set({ status, canceled_at: svc.clock.now() })
          .where("id", "=", id)
          .execute();
        for (const mode of MODES) {
          const res = await svc.request("GET", `/api/v1/payments/${id}?responseMode=${mode}`);
          assert.equal(res.body.data.status, status);
          assert.equal(res.body.data.nextAction, null, `${paymentMethod} ${mode}`);
        }
      }
    });
  }

  it("stops serving the QR image of a canceled payment", async () => {
    const { id } = (await create(validBody())).body.data;
    assert.equal((await svc.app.inject({ method: "GET", url: `/pay/${id}/qr.png` })).statusCode, 200);
    await svc.request("POST", `/api/v1/payments/${id}/cancel`);
    const res = await svc.app.inject({ method: "GET", url: `/pay/${id}/qr.png` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
  });

  it("stops serving the QR image at expiresAt, before the expiry job has marked the payment", async () => {
    const { id, expiresAt } = (await create(validBody({ expiresInMinutes: 5 }))).body.data;
    const qr = () => svc.app.inject({ method: "GET", url: `/pay/${id}/qr.png` });
    svc.clock.set(new Date(Date.parse(expiresAt) - 1));
    assert.equal((await qr()).statusCode, 200, "a millisecond before its deadline");
    svc.clock.set(new Date(Date.parse(expiresAt)));
    const res = await qr();
    assert.equal(res.statusCode, 404, "at its deadline");
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    const stored = await svc.request("GET", `/api/v1/payments/${id}`);
    assert.equal(stored.body.data.status, "requires_action", "the expiry job has not run");
  });
});

describe("hosted page and QR image", () => {
  it("answers an unknown or malformed payment id with a 404 envelope", async () => {
    for (const url of [
      "/pay/00000000-0000-4000-8000-000000000000/qr.png",
      "/pay/not-a-uuid/qr.png",
      "/pay/00000000-0000-4000-8000-000000000000",
      "/pay/not-a-uuid",
    ]) {
      const res = await svc.app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().success, false);
      assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    }
  });

  it("escapes the merchant name", async () => {
    const creds = await svc.newMerchant({ name: `<script>alert("x")</script> & 'Co'` });
    const { id } = (await create(validBody(), creds)).body.data;
    const res = await svc.app.inject({ method: "GET", url: `/pay/${id}` });
    assert.ok(!res.body.includes("<script>"));
    assert.match(res.body, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; &#39;Co&#39;/);
  });

  it("shows a canceled payment's status without a QR", async () => {
    const { id } = (await create(validBody())).body.data;
    await svc.request("POST", `/api/v1/payments/${id}/cancel`);
    const res = await svc.app.inject({ method: "GET", url: `/pay/${id}` });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /canceled/);
    assert.ok(!res.body.includes("qr.png"));
  });
});
