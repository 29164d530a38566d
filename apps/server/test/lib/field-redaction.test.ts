/**
 * lib/redaction.ts `fieldRedaction`: the values of named members of a JSON log line become
 * "[redacted]" at any depth, whatever their type, and nothing else of the line changes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fieldRedaction } from "../../src/lib/redaction.ts";

const redact = fieldRedaction(["password", "token", "x-api-key", "accountNumber"]);
const line = (value: unknown) => JSON.stringify(value);

describe("field redaction of log lines", () => {
  it("hides a named member's value at any depth, of any type, and keeps the rest", () => {
    const input = {
      level: 30,
      password: "hunter2",
      a: { b: { c: { d: { e: { accountNumber: "1234567890", keep: "yes" } } } } },
      headers: { "x-api-key": "sk_test_1", "content-type": "application/json" },
      token: { nested: ["x", { y: "z" }], n: 1 },
      list: [{ password: 42 }, { password: null }, { password: true }, { password: [1, [2, "]"]] }],
      msg: "done",
    };
    const out = JSON.parse(redact(line(input)));
    assert.deepEqual(out, {
      level: 30,
      password: "[redacted]",
      a: { b: { c: { d: { e: { accountNumber: "[redacted]", keep: "yes" } } } } },
      headers: { "x-api-key": "[redacted]", "content-type": "application/json" },
      token: "[redacted]",
      list: [
        { password: "[redacted]" },
        { password: "[redacted]" },
        { password: "[redacted]" },
        { password: "[redacted]" },
      ],
      msg: "done",
    });
  });

  it("reads strings as JSON does: escaped quotes and braces inside values, a name inside a value", () => {
    const input = {
      password: 'a "quoted" {brace} [bracket] \\ back',
      msg: 'the body was {"password":"secret"}',
      other: "password",
    };
    const out = JSON.parse(redact(line(input)));
    assert.equal(out.password, "[redacted]");
    // The name inside a string value is not a member: the value stays (its shape is the other
    // redactions' business), and the line stays valid JSON.
    assert.equal(out.msg, input.msg);
    assert.equal(out.other, "password");
  });

  it("leaves a line without named members unchanged, and names are whole names", () => {
    const text = line({ passwords: "x", myToken: "y", tokenType: "z", n: 1 });
    assert.equal(redact(text), text);
  });

  it("any JSON: the line stays JSON, no named value survives, every other member is kept", () => {
    const names = ["password", "token", "x-api-key", "accountNumber"];
    const value = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "small" },
        fc.string(),
        fc.integer(),
        fc.constant(null),
        fc.boolean(),
        fc.array(tie("tree"), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 })), tie("tree"), {
          maxKeys: 4,
        }),
      ),
    })).tree;
    const expected = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(expected);
      if (v && typeof v === "object") {
        return Object.fromEntries(
          Object.entries(v).map(([k, inner]) => [k, names.includes(k) ? "[redacted]" : expected(inner)]),
        );
      }
      return v;
    };
    fc.assert(
      fc.property(value, (v) => {
        assert.deepEqual(JSON.parse(redact(JSON.stringify(v))), expected(v));
      }),
      { numRuns: 500 },
    );
  });
});
