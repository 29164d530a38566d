/**
 * The lines `satang serve` prints when it has started: with SATANG_PAYOUTS=manual they name the
 * payout desk's page, so the operator who has to pay withdraws by hand finds where to do it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addressesMessage } from "../../src/start-output.ts";

const LISTENING = "http://127.0.0.1:3000";

describe("start banner", () => {
  it("names /dashboard/payout-desk when withdraws are paid by hand", () => {
    const text = addressesMessage(
      { env: "live", publicBaseUrl: "https://pay.example.com/", payouts: "manual" },
      LISTENING,
    );
    assert.match(text, /^ {2}Payout desk +https:\/\/pay\.example\.com\/dashboard\/payout-desk$/m);
    assert.match(text, /^ {2}Dashboard +https:\/\/pay\.example\.com\/dashboard$/m);
  });

  it("does not name the desk when a provider pays withdraws", () => {
    const text = addressesMessage(
      { env: "sandbox", publicBaseUrl: "http://127.0.0.1:0", payouts: "provider" },
      LISTENING,
    );
    assert.doesNotMatch(text, /payout-desk|Payout desk/);
    assert.match(text, /^ {2}Start page +http:\/\/127\.0\.0\.1:3000\/$/m);
  });

  it("warns in live when the public address is not https, and only then", () => {
    for (const publicBaseUrl of ["http://pay.example.com", "http://127.0.0.1:3000"]) {
      const text = addressesMessage({ env: "live", publicBaseUrl, payouts: "provider" }, LISTENING);
      assert.match(text, /^Warning: PUBLIC_BASE_URL is http:\/\/\S+, not https/m, text);
    }
    const https = addressesMessage(
      { env: "live", publicBaseUrl: "https://pay.example.com", payouts: "provider" },
      LISTENING,
    );
    assert.doesNotMatch(https, /Warning/);
    const sandbox = addressesMessage(
      { env: "sandbox", publicBaseUrl: "http://127.0.0.1:3000", payouts: "provider" },
      LISTENING,
    );
    assert.doesNotMatch(sandbox, /Warning/);
  });

  it("lines the addresses up in one column", () => {
    const text = addressesMessage(
      { env: "sandbox", publicBaseUrl: "http://127.0.0.1:3000", payouts: "manual" },
      LISTENING,
    );
    const columns = text
      .split("\n")
      .slice(1)
      .filter((line) => line !== "")
      .map((line) => line.indexOf("http://"));
    assert.equal(columns.length, 5);
    assert.equal(new Set(columns).size, 1, text);
  });
});
