// The storable-text check's quick walk (http/storable-text.ts): it decides whether the walk that
// names each bad place runs at all, so a bad string or key it missed anywhere in a request part
// would be stored. Set here against a plain recursive reading of CONTRACT 4's rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { isStorableText, unstorableTextErrors } from "../../src/http/storable-text.ts";

function holdsBadText(value: unknown): boolean {
  if (typeof value === "string") return !isStorableText(value);
  if (Array.isArray(value)) return value.some(holdsBadText);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).some(([key, item]) => !isStorableText(key) || holdsBadText(item));
  return false;
}

/** Short strings that are often NUL, a lone surrogate of either half, or a pair. */
const text = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom("a\u0000", "\ud800", "x\udc00", "\ud83d\ude00", "ok"),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 4 }),
  ),
})).value;

test("a request part is refused exactly when some string or key in it, at any depth, is unstorable", () => {
  fc.assert(
    fc.property(json, (value) => {
      assert.equal(unstorableTextErrors(value).length > 0, holdsBadText(value));
    }),
    { numRuns: 5_000 },
  );
});

test("bad text deep in an array of objects is found and named", () => {
  const body = { metadata: { items: [{ ok: "fine" }, { list: ["fine", ["x\u0000"]] }] } };
  assert.deepEqual(
    unstorableTextErrors(body).map((error) => error.instancePath),
    ["/metadata/items/1/list/1/0"],
  );
  assert.deepEqual(
    unstorableTextErrors({ a: [{ "k\ud800": 1 }] }).map((error) => error.instancePath),
    ["/a/0"],
  );
  assert.deepEqual(unstorableTextErrors({ a: [1, "fine", { b: null }] }), []);
});
