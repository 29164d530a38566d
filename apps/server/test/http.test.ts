import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "./helpers/harness.ts";

describe("envelope and routing", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("answers an unknown route with a 404 envelope and a request id", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/nope" });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().success, false);
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    assert.ok(res.headers["x-request-id"]);
  });

  it("keeps a sane caller request id", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/nope", headers: { "x-request-id": "abc-123" } });
    assert.equal(res.headers["x-request-id"], "abc-123");
  });

  it("refuses an unsigned API request with INVALID_CREDENTIALS", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/payments" });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
  });
});
