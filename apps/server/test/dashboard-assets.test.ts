/**
 * The dashboard's front-end files, read as text: every string exists in English and Thai, every
 * message key the app asks for exists, and the app's lists of statuses, methods and event types
 * are the server's, so a filter never offers a value the API refuses or misses one it accepts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { LANGS, MESSAGES } from "../src/dashboard/assets/i18n.js";
import {
  DESTINATION_TYPES,
  EVENT_TYPES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WITHDRAW_STATUSES,
} from "../src/db/types.ts";
import { PAYMENT_SORT_FIELDS } from "../src/payments/schemas.ts";
import { WITHDRAW_SORT_FIELDS } from "../src/withdraws/schemas.ts";

const APP = readFileSync(new URL("../src/dashboard/assets/app.js", import.meta.url), "utf8");
const messages = MESSAGES as Record<string, Record<string, string>>;

/** A `const NAME = [ "a", "b" ];` array of app.js, parsed. */
function appArray(name: string): string[] {
  const match = new RegExp(`const ${name} = (\\[[^\\]]*\\]);`).exec(APP);
  assert.ok(match, `${name} in app.js`);
  return JSON.parse(match[1]!.replace(/,\s*\]$/, "]"));
}

describe("dashboard texts", () => {
  it("has English and Thai with the same keys, none empty, and the same {placeholders}", () => {
    assert.deepEqual(LANGS, ["en", "th"]);
    const en = messages.en!;
    const th = messages.th!;
    assert.deepEqual(Object.keys(th).sort(), Object.keys(en).sort());
    for (const key of Object.keys(en)) {
      assert.ok(en[key]!.trim() !== "" && th[key]!.trim() !== "", key);
      const holes = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
      assert.deepEqual(holes(th[key]!), holes(en[key]!), key);
    }
  });

  it("Thai texts are in Thai, apart from the brand, the word URL and the empty-value dash", () => {
    const same = Object.keys(messages.en!).filter((key) => messages.en![key] === messages.th![key]);
    assert.deepEqual(same.sort(), ["brand", "colUrl", "none"]);
  });

  it("defines every message key the app uses", () => {
    const used = new Set([...APP.matchAll(/\bt\("([^"]+)"/g)].map((match) => match[1]!));
    // Keys passed around as data: navigation, list titles, filters, columns and the wallet status.
    for (const match of APP.matchAll(/"((?:nav|col|filter|wallet)[A-Z][A-Za-z]*|[a-z]+sTitle)"/g))
      used.add(match[1]!);
    for (const key of used) assert.ok(key in messages.en!, `missing message ${key}`);
    assert.ok(used.size > 100, `found ${used.size} keys`);
  });

  it("translates every value the app shows by a composed key", () => {
    const composed: Array<[string, readonly string[]]> = [
      ["paymentStatus", PAYMENT_STATUSES],
      ["withdrawStatus", WITHDRAW_STATUSES],
      ["method", PAYMENT_METHODS],
      ["destination", DESTINATION_TYPES],
      ["event", EVENT_TYPES],
      ["deliveryStatus", WEBHOOK_DELIVERY_STATUSES],
      ["sort", [...PAYMENT_SORT_FIELDS, ...WITHDRAW_SORT_FIELDS]],
      ["", ["sandbox", "live"]],
    ];
    for (const [prefix, values] of composed) {
      for (const value of values) {
        const key = prefix ? `${prefix}.${value}` : value;
        assert.ok(key in messages.en!, `missing message ${key}`);
      }
    }
  });

  it("offers exactly the server's statuses, methods, destinations and event types as filters", () => {
    assert.deepEqual(appArray("PAYMENT_STATUSES"), [...PAYMENT_STATUSES]);
    assert.deepEqual(appArray("WITHDRAW_STATUSES"), [...WITHDRAW_STATUSES]);
    assert.deepEqual(appArray("PAYMENT_METHODS"), [...PAYMENT_METHODS]);
    assert.deepEqual(appArray("DESTINATION_TYPES"), [...DESTINATION_TYPES]);
    assert.deepEqual(appArray("EVENT_TYPES"), [...EVENT_TYPES]);
  });

  it("never writes HTML from data: no innerHTML, outerHTML, insertAdjacentHTML or eval", () => {
    assert.doesNotMatch(APP, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
  });
});
