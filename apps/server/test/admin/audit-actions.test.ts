/**
 * An audit entry's `action` is the route's operationId where the route has one (docs/security.md),
 * so an operator who filters the log by the names of the published API finds every entry: each
 * audited operator route's action is checked against the OpenAPI document.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AUDITED_ROUTES } from "../../src/audit/routes.ts";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

describe("audit actions", () => {
  it("are the operationIds of the audited operator routes", async () => {
    const doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const operationIds = new Map<string, string>();
    for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation?.operationId) {
          operationIds.set(
            `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`,
            operation.operationId,
          );
        }
      }
    }
    let checked = 0;
    for (const [route, audited] of Object.entries(AUDITED_ROUTES)) {
      if (!route.includes(" /admin/v1/")) continue;
      const operationId = operationIds.get(route);
      assert.ok(operationId, `${route} is in the OpenAPI document`);
      assert.equal(audited.action, operationId, route);
      checked += 1;
    }
    assert.ok(checked >= 19, `only ${checked} operator routes checked`);

    const shop = await svc.newMerchant();
    await svc.admin("POST", `/admin/v1/merchants/${shop.merchantId}/wallet/adjustments`, {
      amount: "100.00",
      reason: "float",
    });
    const found = await svc.admin("GET", "/admin/v1/audit-log?action=adjustMerchantWallet");
    assert.equal(found.body.data.total, 1, "found by the published name");
  });
});
