/**
 * The batch file's cells (payout-desk/csv.ts): formulas defused, RFC 4180 quoting, and account
 * names without control or invisible characters (names recorded before the API refused them).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { csvCell, shownName } from "../../src/payout-desk/csv.ts";

describe("the payout batch file's cells", () => {
  it("shows an account name's control and invisible characters as a space", () => {
    assert.equal(shownName("Esc\u001b[31mRED\u001b[0m"), "Esc [31mRED [0m");
    assert.equal(shownName("Two\r\nlines"), "Two lines");
    assert.equal(shownName("a\u202eb\u200bc"), "a b c");
    assert.equal(shownName("สมชาย ใจดี"), "สมชาย ใจดี", "Thai is kept as it is");
  });

  it("defuses formulas and quotes what RFC 4180 needs quoted", () => {
    assert.equal(csvCell("=SUM(A1)"), "'=SUM(A1)");
    assert.equal(csvCell("-5"), "'-5");
    assert.equal(csvCell('Say "hi", then'), '"Say ""hi"", then"');
    assert.equal(csvCell("plain"), "plain");
  });
});
