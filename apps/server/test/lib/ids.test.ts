import assert from "node:assert/strict";
import { test } from "node:test";
import { randomToken, shortReference } from "../../src/lib/ids.ts";

test("random tokens drawn from the pool are each new, of their length, across many refills", () => {
  const seen = new Set<string>();
  // 24 bytes a token: 5,000 tokens cross the 4,096-byte pool about thirty times.
  for (let i = 0; i < 5000; i += 1) {
    const token = randomToken(24);
    assert.equal(Buffer.from(token, "base64url").length, 24);
    assert.ok(!seen.has(token), "a token was handed out twice");
    seen.add(token);
  }
});

test("a token's bytes are its own: later draws do not change an earlier answer", () => {
  const first = randomToken(16);
  const copy = `${first}`;
  for (let i = 0; i < 1000; i += 1) randomToken(16);
  assert.equal(first, copy);
});

test("tokens of odd sizes and larger than the pool", () => {
  for (const bytes of [1, 7, 33, 4095, 4096, 4097, 10_000]) {
    assert.equal(Buffer.from(randomToken(bytes), "base64url").length, bytes);
  }
  assert.notEqual(randomToken(10_000), randomToken(10_000));
});

test("short references use only the unambiguous alphabet and vary", () => {
  const references = new Set<string>();
  for (let i = 0; i < 2000; i += 1) {
    const reference = shortReference(8);
    assert.match(reference, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
    references.add(reference);
  }
  assert.ok(references.size > 1990, `only ${references.size} distinct references in 2,000`);
});
