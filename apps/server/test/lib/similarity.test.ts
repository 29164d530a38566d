import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { levenshtein, nameSimilarity, normalizeName, similarity } from "../../src/lib/similarity.ts";

describe("payout guard name normalization and similarity", () => {
  it("removes only case, whitespace and punctuation, keeping titles and Thai script", () => {
    assert.equal(normalizeName("Mr. Somchai  Jai-dee"), "mrsomchaijaidee");
    assert.equal(normalizeName("นาย สมชาย ใจดี"), "นายสมชายใจดี");
    assert.equal(normalizeName("O'Brien, (Jr.)"), "obrienjr");
  });

  it("treats names differing only in case, spacing and punctuation as identical", () => {
    assert.equal(nameSimilarity("SOMCHAI JAIDEE", "somchai-jaidee."), 1);
  });

  it("counts Thai code points, not UTF-16 units", () => {
    assert.equal(levenshtein("สมชาย", "สมชาญ"), 1);
    assert.equal(similarity("สมชาย", "สมชาญ"), 0.8);
  });

  it("is symmetric, bounded and 1 only for equal normalized names", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const s = nameSimilarity(a, b);
        assert.equal(s, nameSimilarity(b, a));
        assert.ok(s >= 0 && s <= 1);
        assert.equal(s === 1, normalizeName(a) === normalizeName(b));
      }),
    );
  });

  it("normalizes idempotently", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (a) => {
        assert.equal(normalizeName(normalizeName(a)), normalizeName(a));
      }),
    );
  });

  it("satisfies the triangle inequality for edit distance", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        assert.ok(levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c));
      }),
    );
  });
});
