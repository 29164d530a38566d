/**
 * An existing integration can be set to require signature v2 (CONTRACT 3(b)), and renamed or
 * given another redirectUrl: `PATCH /admin/v1/integrations/{id}` for the operator,
 * `PATCH /dashboard/api/api-keys/{id}` for the merchant's developers and owners. The rule holds
 * from the key's next request; each change is in the audit log.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

async function auditActions(recordId: string): Promise<string[]> {
  const res = await svc.admin("GET", `/admin/v1/audit-log?recordId=${recordId}&limit=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.data.map((entry: { action: string }) => entry.action);
}

describe("PATCH /admin/v1/integrations/{id}", () => {
  it("requires v2 from the key's next request, and allows v1 again when set back", async () => {
    const credentials = await svc.newMerchant();
    const balance = (version: "v1" | "v2") =>
      svc.request("GET", "/api/v1/balance", undefined, { credentials, signatureVersion: version });
    assert.equal((await balance("v1")).status, 200);

    const strict = await svc.admin("PATCH", `/admin/v1/integrations/${credentials.integrationId}`, {
      requireSignatureV2: true,
    });
    assert.equal(strict.status, 200, JSON.stringify(strict.body));
    assert.equal(strict.body.data.requireSignatureV2, true);
    assert.equal(strict.body.data.apiSecret, undefined, "the secret is never shown again");
    const refused = await balance("v1");
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "INVALID_CREDENTIALS");
    assert.equal((await balance("v2")).status, 200);

    const relaxed = await svc.admin("PATCH", `/admin/v1/integrations/${credentials.integrationId}`, {
      requireSignatureV2: false,
    });
    assert.equal(relaxed.body.data.requireSignatureV2, false);
    assert.equal((await balance("v1")).status, 200);
    assert.deepEqual(
      (await auditActions(credentials.integrationId)).filter((a) => a === "updateIntegration"),
      ["updateIntegration", "updateIntegration"],
    );
  });

  it("changes the name and redirectUrl, and keeps what the body leaves out", async () => {
    const credentials = await svc.newMerchant();
    const url = `/admin/v1/integrations/${credentials.integrationId}`;
    const named = await svc.admin("PATCH", url, {
      name: "Checkout",
      redirectUrl: "https://shop.example/done",
    });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.equal(named.body.data.name, "Checkout");
    assert.equal(named.body.data.redirectUrl, "https://shop.example/done");
    const cleared = await svc.admin("PATCH", url, { redirectUrl: null });
    assert.equal(cleared.body.data.name, "Checkout");
    assert.equal(cleared.body.data.redirectUrl, null);
    assert.equal(cleared.body.data.requireSignatureV2, false);
  });

  it("refuses an empty or unknown body, an unknown id and a revoked integration", async () => {
    const credentials = await svc.newMerchant();
    const url = `/admin/v1/integrations/${credentials.integrationId}`;
    for (const body of [{}, { requireSignatureV2: "yes" }, { apiKey: "sk_test_x" }]) {
      const bad = await svc.admin("PATCH", url, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    }
    for (const id of [randomUUID(), "not-an-id"]) {
      const missing = await svc.admin("PATCH", `/admin/v1/integrations/${id}`, { name: "x" });
      assert.equal(missing.status, 404, id);
      assert.equal(missing.body.error.code, "RESOURCE_NOT_FOUND");
    }
    assert.equal((await svc.admin("DELETE", url)).status, 200);
    const revoked = await svc.admin("PATCH", url, { requireSignatureV2: true });
    assert.equal(revoked.status, 409);
    assert.equal(revoked.body.error.code, "STATE_CONFLICT");
    assert.equal(revoked.body.error.metadata.reason, "revoked");
  });
});

describe("PATCH /dashboard/api/api-keys/{id}", () => {
  it("lets a developer require v2 on the merchant's own key only; finance may not", async () => {
    const credentials = await svc.newMerchant();
    const developer = await dashboardUser(svc, credentials.merchantId, "developer");
    const path = `/api-keys/${credentials.integrationId}`;
    const changed = await developer.request("PATCH", path, { requireSignatureV2: true });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.data.requireSignatureV2, true);
    const refused = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(refused.status, 401);
    assert.ok((await auditActions(credentials.integrationId)).includes("updateApiKey"));

    const finance = await dashboardUser(svc, credentials.merchantId, "finance");
    const forbidden = await finance.request("PATCH", path, { requireSignatureV2: false });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, "FORBIDDEN");

    const stranger = await dashboardUser(svc, (await svc.newMerchant()).merchantId, "owner");
    const foreign = await stranger.request("PATCH", path, { requireSignatureV2: false });
    assert.equal(foreign.status, 404);
    const still = await svc.admin("GET", `/admin/v1/merchants/${credentials.merchantId}/integrations`);
    assert.equal(still.body.data.data[0].requireSignatureV2, true, "nothing changed for the refused calls");
  });
});
