/**
 * The payout desk page's texts, the way the dashboard's are checked (test/dashboard/assets.test.ts):
 * complete in English and Thai, a text for every value of the server's lists the page shows, and
 * a shell that starts in the browser's language and announces every module it loads.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { OPERATOR_CHANNELS } from "../../src/admin/actor.ts";
import {
  DESTINATION_TYPES,
  PAYOUT_BATCH_STATUSES,
  PAYOUT_OUTCOMES,
  WITHDRAW_STATUSES,
} from "../../src/db/types.ts";
import { startService, type TestService } from "../helpers/harness.ts";

// i18n.js is a browser module, outside the server's type check: it is loaded as a plain module.
const i18n = (await import(new URL("../../src/payout-desk/assets/i18n.js", import.meta.url).href)) as {
  LANGS: string[];
  MESSAGES: Record<string, Record<string, string>>;
};
const en = i18n.MESSAGES.en!;
const th = i18n.MESSAGES.th!;

let svc: TestService;
before(async () => {
  svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
});
after(async () => {
  await svc?.close();
});

describe("payout desk texts", () => {
  it("has English and Thai with the same keys, none empty, and the same {placeholders}", () => {
    assert.deepEqual(i18n.LANGS, ["en", "th"]);
    assert.deepEqual(Object.keys(th).sort(), Object.keys(en).sort());
    for (const key of Object.keys(en)) {
      assert.ok(en[key]!.trim() !== "" && th[key]!.trim() !== "", key);
      const holes = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
      assert.deepEqual(holes(th[key]!), holes(en[key]!), key);
    }
  });

  it("Thai texts are in Thai, apart from the empty-value dash", () => {
    const same = Object.keys(en).filter((key) => en[key] === th[key]);
    assert.deepEqual(same, ["none"]);
  });

  it("has a text for every value of the server's lists that the page shows", () => {
    const families: Array<[string, readonly string[]]> = [
      ["withdrawStatus", WITHDRAW_STATUSES],
      ["destination", DESTINATION_TYPES],
      ["batchStatus", PAYOUT_BATCH_STATUSES],
      ["outcome", PAYOUT_OUTCOMES],
      ["via", OPERATOR_CHANNELS],
    ];
    for (const [family, values] of families) {
      for (const value of values) assert.ok(`${family}.${value}` in en, `missing message ${family}.${value}`);
    }
  });

  it("says on the page which unit its amounts are in", () => {
    assert.match(en.colAmount!, /\(THB\)/);
    assert.match(th.colAmount!, /\(บาท\)/);
    assert.match(en.amountsNote!, /THB/);
  });
});

describe("payout desk shell", () => {
  it("starts in the browser's language and preloads every module the entry imports", async () => {
    const thai = await svc.app.inject({
      method: "GET",
      url: "/dashboard/payout-desk",
      headers: { "accept-language": "th-TH,th;q=0.9,en;q=0.8" },
    });
    assert.equal(thai.statusCode, 200);
    assert.match(thai.body, /<html lang="th"/);
    assert.match(thai.body, /<title>ระบบจ่ายเงินถอน Satang<\/title>/);
    assert.equal(thai.headers.vary, "Accept-Language");
    const english = await svc.app.inject({ method: "GET", url: "/dashboard/payout-desk" });
    assert.match(english.body, /<html lang="en"/);

    assert.match(
      english.body,
      /<script type="module" src="\/dashboard\/payout-desk\/assets\/desk\.js\?v=[0-9a-f]{16}">/,
    );
    assert.match(
      english.body,
      /<link rel="modulepreload" href="\/dashboard\/payout-desk\/assets\/i18n\.js">/,
    );
    const module = await svc.app.inject({ method: "GET", url: "/dashboard/payout-desk/assets/i18n.js" });
    assert.equal(module.statusCode, 200);
    assert.match(String(module.headers["content-type"]), /^text\/javascript/);
  });
});
