/**
 * The payout desk page carries the undecided-payouts section (CONTRACT 15): its own script,
 * served like the desk's, and its own container beside the batches.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

describe("the payout desk's undecided-payouts section", () => {
  it("is loaded by the page from its own module and served as JavaScript", async () => {
    const page = await svc.app.inject({ method: "GET", url: "/dashboard/payout-desk/" });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<section id="undecided"/);
    const src = /src="([^"]*undecided\.js[^"]*)"/.exec(page.body)?.[1];
    assert.ok(src, "the page loads undecided.js");
    const script = await svc.app.inject({ method: "GET", url: src.replace(/&amp;/g, "&") });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers["content-type"]), /javascript/);
    assert.match(script.body, /\/payouts\/undecided/);
    assert.match(script.body, /\/resolve/);
  });
});
