/**
 * CONTRACT 6: `merchantReference` (and its alias `invoiceNo`) is stored, searchable by the
 * operator, and never in records. The operator's search, `GET
 * /admin/v1/payments?merchantReference=`, finds it exactly, of one merchant or all.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { runOperatorCli } from "../helpers/cli.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(() => svc.close());

let counter = 0;
async function paymentWith(merchant: Credentials, fields: Record<string, unknown>): Promise<string> {
  counter += 1;
  const res = await svc.request(
    "POST",
    "/api/v1/payments",
    {
      amount: String(1000 + counter),
      referenceId: `mref-${counter}`,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: `12345678${String(counter).padStart(2, "0")}`,
      customerBankCode: "004",
      ...fields,
    },
    { credentials: merchant },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal("merchantReference" in res.body.data, false, "never in the record");
  return res.body.data.id as string;
}

const search = (query: string) => svc.admin("GET", `/admin/v1/payments?${query}`);

describe("GET /admin/v1/payments?merchantReference= (the operator's search)", () => {
  it("finds a merchant's payments by merchantReference or invoiceNo, of one merchant or all, newest first", async () => {
    const shop = await svc.newMerchant({ promptpayReuse: false });
    const other = await svc.newMerchant({ promptpayReuse: false });
    const first = await paymentWith(shop, { merchantReference: "INV-2026-0042" });
    svc.clock.advance(1000);
    const byAlias = await paymentWith(shop, { invoiceNo: "INV-2026-0042" });
    svc.clock.advance(1000);
    const othersOwn = await paymentWith(other, { merchantReference: "INV-2026-0042" });
    await paymentWith(shop, { merchantReference: "INV-2026-00420" });
    await paymentWith(shop, { merchantReference: "inv-2026-0042" });
    await paymentWith(shop, {});

    const all = await search("merchantReference=INV-2026-0042");
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.data.data.map((p: { id: string }) => p.id),
      [othersOwn, byAlias, first],
      "exact matches only, newest first, across merchants",
    );
    assert.equal(all.body.data.total, 3);
    assert.equal(all.body.data.data[0].merchantId, other.merchantId);
    for (const record of all.body.data.data) assert.equal("merchantReference" in record, false);

    const mine = await search(`merchantReference=INV-2026-0042&merchantId=${shop.merchantId}`);
    assert.deepEqual(
      mine.body.data.data.map((p: { id: string }) => p.id),
      [byAlias, first],
    );
    const paged = await search(`merchantReference=INV-2026-0042&limit=1&page=2`);
    assert.deepEqual(
      paged.body.data.data.map((p: { id: string }) => p.id),
      [byAlias],
    );
    assert.deepEqual(
      { total: paged.body.data.total, totalPages: paged.body.data.totalPages },
      { total: 3, totalPages: 3 },
    );
    const none = await search("merchantReference=INV-NONE");
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.data.data, []);
    assert.equal(none.body.data.total, 0);
  });

  it("refuses a search without a reference or with one too long, an unknown merchant, and no token", async () => {
    const missing = await search("");
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    assert.equal(missing.body.error.metadata.field, "merchantReference");
    const long = await search(`merchantReference=${"x".repeat(256)}`);
    assert.equal(long.status, 400);
    assert.equal(long.body.error.metadata.field, "merchantReference");
    assert.equal((await search(`merchantReference=${"x".repeat(255)}`)).status, 200);
    for (const merchantId of ["5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84", "not-a-uuid"]) {
      const unknown = await search(`merchantReference=INV-1&merchantId=${merchantId}`);
      assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error.code, "RESOURCE_NOT_FOUND");
    }
    const unauthenticated = await svc.admin(
      "GET",
      "/admin/v1/payments?merchantReference=INV-1",
      undefined,
      "wrong",
    );
    assert.equal(unauthenticated.status, 401);
  });

  it("satang payment find prints the payments with their amounts in THB, or says there are none", async () => {
    const shop = await svc.newMerchant({ promptpayReuse: false });
    const id = await paymentWith(shop, { merchantReference: "ORDER 7/2026" });
    await svc.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
    const satang = (args: string[]) => runOperatorCli(url, args);
    const found = await satang(["payment", "find", "--merchant-reference", "ORDER 7/2026"]);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /1 payment\(s\) with the merchant reference ORDER 7\/2026/);
    assert.match(
      found.stdout,
      new RegExp(
        `${id}  merchant ${shop.merchantId}  requires_action  \\d+\\.00 satang \\(\\d+\\.\\d\\d THB\\)`,
      ),
    );
    const json = await satang([
      "payment",
      "find",
      "--merchant-reference",
      "ORDER 7/2026",
      "--merchant",
      shop.merchantId,
      "--json",
    ]);
    assert.equal(JSON.parse(json.stdout).data[0].id, id);
    const none = await satang(["payment", "find", "--merchant-reference", "ORDER 8/2026"]);
    assert.equal(none.code, 0);
    assert.match(none.stdout, /No payment has the merchant reference ORDER 8\/2026/);
  });
});
