import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  levenshtein,
  nameSimilarity,
  namesSimilarAbove,
  normalizeName,
  similarity,
  withinDistance,
} from "../../src/lib/similarity.ts";

describe("payout guard name normalization and similarity", () => {
  it("removes only case, whitespace and punctuation, keeping titles and Thai script", () => {
    assert.equal(normalizeName("Mr. Somchai  Jai-dee"), "mrsomchaijaidee");
    assert.equal(normalizeName("นาย สมชาย ใจดี"), "นายสมชายใจดี");
    assert.equal(normalizeName("O'Brien, (Jr.)"), "obrienjr");
  });

  it("treats names differing only in case, spacing and punctuation as identical", () => {
    assert.equal(nameSimilarity("SOMCHAI JAIDEE", "somchai-jaidee."), 1);
  });

  it("reads one name typed composed or decomposed as the same name", () => {
    assert.equal(nameSimilarity("Ame\u0301lie Dupont", "Am\u00e9lie Dupont"), 1);
    assert.equal(namesSimilarAbove("Ame\u0301lie Dupont", "Am\u00e9lie Dupont", 0.9), true);
    assert.equal(normalizeName("Ame\u0301lie"), "am\u00e9lie");
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

  // Few letters, so that random names are often near each other.
  const nearName = fc.string({
    unit: fc.constantFrom("a", "b", "c", "ส", "ม", "ญ", " ", ".", "-"),
    maxLength: 40,
  });

  it("the bounded distance answers as the full one: within k exactly when levenshtein <= k", () => {
    fc.assert(
      fc.property(nearName, nearName, fc.integer({ min: -1, max: 12 }), (a, b, k) => {
        const left = Array.from(a);
        const right = Array.from(b);
        assert.equal(withinDistance(left, right, k), levenshtein(a, b) <= k);
      }),
      { numRuns: 2_000 },
    );
  });

  it("the guard's test answers as the similarity: above 0.9 exactly when nameSimilarity is", () => {
    fc.assert(
      fc.property(nearName, nearName, (a, b) => {
        assert.equal(namesSimilarAbove(a, b, 0.9), nameSimilarity(a, b) > 0.9);
      }),
      { numRuns: 2_000 },
    );
    // One edit in ten code points is exactly 0.9: not above it. One in eleven is.
    assert.equal(namesSimilarAbove("abcdefghij", "abcdefghiX", 0.9), false);
    assert.equal(namesSimilarAbove("abcdefghijk", "abcdefghijX", 0.9), true);
    assert.equal(namesSimilarAbove("", "", 0.9), true);
    assert.equal(namesSimilarAbove("Somchai Jaidee", "somchai-jaidee", 0.9), true);
  });
});
