/**
 * Bodies that nest arrays and objects deeper than JSON_NESTING_DEPTH_MAX are refused with 400
 * VALIDATION_ERROR on every route that takes a body (signed, operator, login, dashboard and the
 * hosted page's sandbox button), never with a 500: the 10 KB body of 5,000 `[` that once ran a
 * recursive walk out of stack is the case tried.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Schema, sampleOne, validValue } from "../../../../reliability/fuzz-schema.ts";
import { fillPath, send, type Target } from "../../../../reliability/fuzz-target.ts";
import { scanJson } from "../../src/http/body.ts";
import { JSON_NESTING_DEPTH_MAX } from "../../src/lib/limits.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("JSON nesting depth", () => {
  let svc: TestService;
  let target: Target;
  before(async () => {
    svc = await startService();
    target = { svc, dashboardToken: (await dashboardUser(svc)).token };
  });
  after(async () => {
    await svc.close();
  });

  it("is counted outside strings only, without recursion", () => {
    assert.equal(scanJson('{"a":[1,{"b":"[[[{{{"}]}').depth, 3);
    assert.equal(scanJson('{"a":"\\"[[["}').depth, 1);
    assert.equal(scanJson(nested(100_000)).depth, 100_000);
  });

  it("answers 400 VALIDATION_ERROR on every route with a body, for the password field that broke login", async () => {
    const deep = `{"email":"a@b.c","password":${nested(5000)}}`;
    const login = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: deep,
      headers: { "content-type": "application/json" },
    });
    assert.equal(login.statusCode, 400, login.body);
    assert.equal(login.json().error.code, "VALIDATION_ERROR");
    assert.equal(login.json().error.metadata.field, "body");
    assert.match(login.json().error.message, new RegExp(`deeper than ${JSON_NESTING_DEPTH_MAX} levels`));

    let tried = 0;
    for (const route of svc.app.routeCatalog) {
      if (!route.schema?.body) continue;
      const url = fillPath(route, sampleOne(validValue((route.schema?.params as Schema) ?? {}), 1) as never);
      const res = await send(target, { method: route.method, url, raw: `{"metadata":${nested(5000)}}` });
      const where = `${route.method} ${route.url}`;
      assert.ok(res.statusCode < 500, `${where}: ${res.statusCode} ${res.body}`);
      assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR", where);
      tried += 1;
    }
    assert.ok(tried > 20, `only ${tried} routes tried`);
  });

  it("accepts a body at the bound and refuses one level past it", async () => {
    const body = (levels: number) => `{"email":"a@b.c","password":"x","extra":${nested(levels - 1)}}`;
    const at = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: body(JSON_NESTING_DEPTH_MAX),
      headers: { "content-type": "application/json" },
    });
    // At the bound the body is parsed and validated like any other: the unknown field is named.
    assert.equal(at.statusCode, 400, at.body);
    assert.equal(at.json().error.metadata.field, "extra", at.body);
    const past = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: body(JSON_NESTING_DEPTH_MAX + 1),
      headers: { "content-type": "application/json" },
    });
    assert.equal(past.statusCode, 400, past.body);
    assert.equal(past.json().error.metadata.field, "body", past.body);
  });
});
