// The canonical JSON behind every stored request hash (lib/crypto.ts): its text must stay what it
// was when those hashes were stored, or a replay of an old create would read as a different
// request (422 instead of its first answer).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { canonicalJson, canonicalJsonHash } from "../../src/lib/crypto.ts";

/** The form the hashes were first made with, kept here as the reference. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(",")}}`;
}

test("canonical JSON is the reference text for any parsed JSON value", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(canonicalJson(value), reference(value));
    }),
    { numRuns: 2_000 },
  );
});

test("canonical JSON leaves out undefined members, orders keys by code unit, ignores key order", () => {
  const body = {
    b: 1,
    a: [1, "x", null, { d: undefined, c: true }],
    é: "é",
    Z: undefined,
    "😀": 0,
    "\uffff": 1,
  };
  const text = canonicalJson(body);
  assert.equal(text, reference(body));
  assert.equal(text, '{"a":[1,"x",null,{"c":true}],"b":1,"é":"é","😀":0,"\uffff":1}');
  const reordered = { "\uffff": 1, "😀": 0, é: "é", a: [1, "x", null, { c: true }], b: 1 };
  assert.equal(canonicalJson(reordered), text);
  assert.equal(canonicalJson([undefined, 1]), "[null,1]");
  assert.equal(canonicalJson({}), "{}");
  assert.equal(canonicalJson([]), "[]");
});

test("a create's request hash is the one stored hashes were made with", () => {
  const body = {
    amount: "150.00",
    paymentMethod: "promptpay",
    referenceId: "order-1",
    metadata: { orderId: "1", tags: ["a", "b"] },
  };
  assert.equal(
    canonicalJson(body),
    '{"amount":"150.00","metadata":{"orderId":"1","tags":["a","b"]},"paymentMethod":"promptpay","referenceId":"order-1"}',
  );
  // sha256sum of the text above, computed outside the product.
  assert.equal(canonicalJsonHash(body), "7dfc95e4c2f7d327857dd4110c27b03c405fea364cff0f1be086afebd2ed93af");
});
