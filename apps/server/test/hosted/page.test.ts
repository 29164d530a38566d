/**
 * The hosted payment page (issue 4 item 7) through app.inject: the HTML in both languages, the
 * PromptPay and bank transfer variants, every final state, escaping, the security headers, the
 * status route's client secret, the sandbox simulate route and its absence in live, and the
 * 404s. The same page in a real browser is hosted-browser.test.ts.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { PaymentStatus } from "../../src/db/types.ts";
import { chooseLang, LANGS, MESSAGES } from "../../src/hosted/i18n.ts";
import { displayThb, formatBangkokTime, formatRemaining } from "../../src/hosted/page.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

let svc: TestService;
let counter = 0;
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    amount: "123450",
    referenceId: `hosted-${counter}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(4_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  };
}

async function createPayment(overrides: Record<string, unknown> = {}, credentials?: Credentials) {
  const res = await svc.request(
    "POST",
    "/api/v1/payments",
    validBody(overrides),
    credentials ? { credentials } : {},
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

async function page(id: string, headers: Record<string, string> = {}, query = "") {
  return svc.app.inject({ method: "GET", url: `/pay/${id}${query}`, headers });
}

/** Puts a payment in a status directly, with the timestamps the table's checks ask for. */
async function setStatus(id: string, status: PaymentStatus): Promise<void> {
  const at = svc.clock.now();
  await svc.deps.db
    .updateTable("payments")
    .set({
      status,
      confirmed_at: status === "succeeded" ? at : null,
      captured_at: status === "succeeded" ? at : null,
      canceled_at: status === "canceled" ? at : null,
    })
    .where("id", "=", id)
    .execute();
}

/** The element with this id and its content, as rendered: enough to ask "is it hidden?". */
function openingTag(html: string, marker: string): string {
  const at = html.indexOf(marker);
  assert.ok(at >= 0, `${marker} not in page`);
  const start = html.lastIndexOf("<", at);
  return html.slice(start, html.indexOf(">", at) + 1);
}

function resultPanel(html: string, state: string): string {
  return openingTag(html, `class="result result-${state}"`);
}

/** The value of the first attribute `name` in the markup (not in the style sheet's selectors). */
function attribute(html: string, name: string): string {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(html);
  assert.ok(match, `${name} not in page`);
  return match[1]!;
}

function scriptSrc(html: string): string {
  const match = /<script type="module" src="([^"]*)"><\/script>/.exec(html);
  assert.ok(match, "no script in page");
  return match[1]!;
}

describe("language", () => {
  it("has every text in both languages, none left blank", () => {
    const keys = Object.keys(MESSAGES.en).sort();
    assert.deepEqual(Object.keys(MESSAGES.th).sort(), keys);
    for (const lang of LANGS) {
      for (const key of keys) {
        const value = (MESSAGES[lang] as unknown as Record<string, unknown>)[key];
        const text = typeof value === "function" ? (value as (...a: string[]) => string)("X", "Y") : value;
        assert.equal(typeof text, "string", `${lang}.${key}`);
        assert.ok((text as string).trim().length > 0, `${lang}.${key} is blank`);
      }
    }
    // Thai texts are Thai: each (but the brand-bearing ones) has Thai script in it.
    for (const key of keys) {
      const value = (MESSAGES.th as unknown as Record<string, unknown>)[key];
      const text = typeof value === "function" ? (value as (...a: string[]) => string)("X", "Y") : value;
      assert.match(text as string, /[\u0E00-\u0E7F]/, `th.${key} has no Thai`);
    }
  });

  it("takes ?lang first, then Accept-Language by preference, and defaults to Thai", () => {
    assert.equal(chooseLang("en", "th-TH"), "en");
    assert.equal(chooseLang("th", "en-US"), "th");
    assert.equal(chooseLang("fr", "en-US,en;q=0.9"), "en");
    assert.equal(chooseLang(undefined, undefined), "th");
    assert.equal(chooseLang(undefined, "fr-FR, de;q=0.8"), "th");
    assert.equal(chooseLang(undefined, "fr-FR, en;q=0.5, th;q=0.8"), "th");
    assert.equal(chooseLang(undefined, "th;q=0, en-GB"), "en");
    assert.equal(chooseLang(undefined, "EN-us;q=0.3"), "en");
    assert.equal(chooseLang(["en"], "th"), "th");
  });

  it("renders the page in English for an English browser and in Thai for a Thai one", async () => {
    const { id } = await createPayment();
    const en = await page(id, { "accept-language": "en-US,en;q=0.9" });
    assert.equal(en.statusCode, 200);
    assert.match(en.body, /<html lang="en">/);
    assert.equal(en.headers["content-language"], "en");
    assert.ok(en.body.includes("Scan to pay with PromptPay"));
    assert.ok(en.body.includes("Waiting for your payment"));
    assert.ok(en.body.includes("Time left to pay"));
    assert.ok(!en.body.includes(MESSAGES.th.promptpayHeading));

    const th = await page(id, { "accept-language": "th-TH,th;q=0.9,en;q=0.8" });
    assert.match(th.body, /<html lang="th">/);
    assert.ok(th.body.includes(MESSAGES.th.promptpayHeading));
    assert.ok(th.body.includes(MESSAGES.th.statusOpen));
    assert.ok(th.body.includes(MESSAGES.th.timeLeft));
    assert.ok(!th.body.includes("Scan to pay with PromptPay"));
    assert.equal(th.headers.vary, "Accept-Language");
  });

  it("lets ?lang override the browser, and offers a switch to the other language", async () => {
    const { id } = await createPayment();
    const res = await page(id, { "accept-language": "en-US" }, "?lang=th");
    assert.match(res.body, /<html lang="th">/);
    assert.ok(res.body.includes('<a href="?lang=en" hreflang="en" lang="en">English</a>'));
    assert.ok(res.body.includes('<a href="?lang=th" hreflang="th" lang="th" aria-current="true">ไทย</a>'));
    const unknown = await page(id, { "accept-language": "en-US" }, "?lang=xx");
    assert.match(unknown.body, /<html lang="en">/);
  });
});

describe("PromptPay page", () => {
  it("shows the merchant, the amount in baht, the QR, the countdown and the status", async () => {
    const payment = await createPayment({ amount: "123450" });
    const res = await page(payment.id, { "accept-language": "en" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/html; charset=utf-8/);
    assert.ok(res.body.includes('<h1 id="merchant">Test Shop</h1>'));
    // 123450 satang is 1,234.50 baht.
    assert.ok(res.body.includes('<span aria-hidden="true">฿</span>1,234.50 <abbr class="ccy"'));
    assert.ok(
      res.body.includes(
        `<img src="/pay/${payment.id}/qr.png" alt="PromptPay QR code: pay 1,234.50 baht to Test Shop"`,
      ),
    );
    assert.match(openingTag(res.body, 'id="countdown"'), new RegExp(`datetime="${payment.expiresAt}"`));
    // The clock stands still in tests: exactly the default 15 minutes are left.
    assert.ok(res.body.includes('aria-live="off">15:00</time>'));
    assert.match(openingTag(res.body, 'id="status"'), /role="status" aria-live="polite"/);
    assert.equal(attribute(res.body, "data-state"), "open");
    for (const state of ["processing", "succeeded", "expired", "canceled", "failed"]) {
      assert.match(resultPanel(res.body, state), / hidden>$/, state);
    }
  });

  it("never embeds the client secret, an API key or the merchant's private data", async () => {
    const payment = await createPayment({
      merchantReference: "INV-PRIVATE-0077",
      metadata: { internalNote: "vip-customer-xyz" },
    });
    const res = await page(payment.id);
    assert.ok(!res.body.includes(payment.clientSecret), "the secret is not in the HTML");
    assert.ok(!res.body.includes("_secret_"), "no client secret of any payment is in the HTML");
    assert.equal(attribute(res.body, "data-status-url"), `/pay/${payment.id}/status`);
    assert.ok(!res.body.includes(svc.credentials.apiKey));
    assert.ok(!res.body.includes("Somchai"), "the customer's own name is not shown");
    assert.ok(!res.body.includes("0812345678"), "the merchant's PromptPay id is not shown");
    assert.ok(!res.body.includes("INV-PRIVATE-0077"), "the merchantReference is not shown");
    assert.ok(!res.body.includes("vip-customer-xyz"), "the metadata is not shown");
  });

  it("loads nothing from another origin and allows only its own script and style", async () => {
    const { id } = await createPayment();
    const res = await page(id);
    const csp = String(res.headers["content-security-policy"]);
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)![1]!;
    const hash = createHash("sha256").update(style).digest("base64");
    assert.equal(
      csp,
      "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; " +
        // 'self' for style and font: the Thai web font's style sheet and files, served by the service.
        `style-src 'self' 'sha256-${hash}'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    assert.equal(res.headers["x-frame-options"], "DENY");
    assert.equal(res.headers["referrer-policy"], "no-referrer");
    assert.equal(res.headers["cache-control"], "no-store");
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    // No absolute URL in any src or href, no inline script, no inline style attribute.
    assert.doesNotMatch(res.body, /(src|href)="(https?:)?\/\//);
    assert.doesNotMatch(res.body, /<script(?![^>]*\ssrc=)[^>]*>/);
    assert.doesNotMatch(res.body, /\sstyle="/);
    assert.doesNotMatch(res.body, /\son[a-z]+="/);
    const script = scriptSrc(res.body);
    assert.match(script, /^\/pay\/assets\/page\.js\?v=[0-9a-f]{16}$/);
    const js = await svc.app.inject({ method: "GET", url: script });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers["content-type"]), /^text\/javascript/);
    assert.match(js.body, /X-Client-Secret/);
    const icon = await svc.app.inject({ method: "GET", url: attribute(res.body, "href") });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers["content-type"], "image/svg+xml");
  });

  it("puts every URL under the path of PUBLIC_BASE_URL", async () => {
    const prefixed = await startService({ env: { PUBLIC_BASE_URL: "https://pay.example/gateway/" } });
    try {
      const created = await prefixed.request("POST", "/api/v1/payments", validBody());
      const { id, nextAction } = created.body.data;
      assert.equal(nextAction.paymentAppUrl, `https://pay.example/gateway/pay/${id}`);
      const res = await prefixed.app.inject({ method: "GET", url: `/pay/${id}` });
      assert.ok(res.body.includes(`<img src="/gateway/pay/${id}/qr.png"`));
      assert.equal(attribute(res.body, "data-status-url"), `/gateway/pay/${id}/status`);
      assert.equal(attribute(res.body, "data-simulate-url"), `/gateway/pay/${id}/simulate`);
      assert.match(scriptSrc(res.body), /^\/gateway\/pay\/assets\/page\.js/);
    } finally {
      await prefixed.close();
    }
  });

  it("escapes the merchant name in text and in attributes", async () => {
    const name = `<script>alert("x")</script> & 'Co' <img src=x onerror=alert(1)>`;
    const creds = await svc.newMerchant({ name });
    const { id } = await createPayment({}, creds);
    for (const lang of ["en", "th"]) {
      const res = await page(id, {}, `?lang=${lang}`);
      assert.ok(!res.body.includes("<script>alert"));
      assert.ok(!res.body.includes("<img src=x"));
      assert.ok(
        res.body.includes(
          "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39; &lt;img src=x onerror=alert(1)&gt;",
        ),
      );
      assert.doesNotMatch(res.body, /alt="[^"]*<script/);
    }
  });
});

describe("bank transfer page", () => {
  it("shows the bank, account, name, exact amount and reference instead of a QR", async () => {
    const payment = await createPayment({ paymentMethod: "bank_transfer", amount: "500075" });
    const instructions = payment.nextAction.bankTransferInstructions;
    const en = await page(payment.id, {}, "?lang=en");
    assert.equal(en.statusCode, 200);
    assert.ok(en.body.includes("Transfer to this account"));
    assert.ok(en.body.includes("<dd>Siam Commercial Bank (014)</dd>"));
    assert.ok(en.body.includes('<span class="mono">1234567890</span>'));
    assert.ok(en.body.includes("<dd>Test Shop Co., Ltd.</dd>"));
    assert.ok(en.body.includes("<dd>฿5,000.75"));
    assert.ok(en.body.includes(`<span class="mono">${instructions.reference}</span>`));
    assert.ok(en.body.includes(`data-copy="${instructions.reference}"`));
    assert.ok(en.body.includes('data-copy="5000.75"'), "the copied amount has no thousands separator");
    assert.ok(!en.body.includes("qr.png"));
    // Bank transfers default to 24 hours.
    assert.ok(en.body.includes('aria-live="off">24:00:00</time>'));

    const th = await page(payment.id, {}, "?lang=th");
    assert.ok(th.body.includes("<dd>ธนาคารไทยพาณิชย์ (014)</dd>"));
    assert.ok(th.body.includes(MESSAGES.th.bankNote));
  });

  it("shows the account the payment was told to pay into, even after the merchant changes it", async () => {
    const creds = await svc.newMerchant({ name: "Mover" });
    const payment = await createPayment({ paymentMethod: "bank_transfer" }, creds);
    await svc.deps.db
      .updateTable("merchants")
      .set({ collection_bank_code: "004", collection_account_number: "9999999999" })
      .where("id", "=", creds.merchantId)
      .execute();
    const res = await page(payment.id, {}, "?lang=en");
    assert.ok(res.body.includes("Siam Commercial Bank (014)"));
    assert.ok(!res.body.includes("9999999999"));
  });
});

describe("final states", () => {
  const cases: Array<[PaymentStatus, string, keyof typeof MESSAGES.en]> = [
    ["succeeded", "succeeded", "statusSucceeded"],
    ["canceled", "canceled", "statusCanceled"],
    ["expired", "expired", "statusExpired"],
    ["payment_failed", "failed", "statusFailed"],
    ["processing", "processing", "statusProcessing"],
  ];
  for (const [status, state, message] of cases) {
    it(`shows ${status} with its panel and no way to pay`, async () => {
      for (const paymentMethod of ["promptpay", "bank_transfer"]) {
        const { id } = await createPayment({ paymentMethod });
        await setStatus(id, status);
        const res = await page(id, {}, "?lang=en");
        assert.equal(res.statusCode, 200);
        assert.equal(attribute(res.body, "data-state"), state);
        assert.ok(res.body.includes(`<span id="status-text">${MESSAGES.en[message]}</span>`));
        assert.doesNotMatch(resultPanel(res.body, state), /hidden/);
        assert.ok(!res.body.includes("qr.png"), "no QR");
        assert.ok(!res.body.includes("1234567890"), "no account to pay into");
        assert.ok(!res.body.includes('id="countdown"'), "no countdown");
        assert.ok(!res.body.includes('id="simulate"'), "no sandbox button");
      }
    });
  }

  it("shows an open payment past expiresAt as expired before the expiry worker marks it", async () => {
    const { id } = await createPayment({ expiresInMinutes: 5 });
    svc.clock.advance(5 * 60_000);
    try {
      const res = await page(id, {}, "?lang=en");
      assert.equal(attribute(res.body, "data-state"), "expired");
      assert.ok(!res.body.includes("qr.png"));
      assert.doesNotMatch(resultPanel(res.body, "expired"), /hidden/);
    } finally {
      svc.clock.advance(-5 * 60_000);
    }
  });

  it("counts down in the merchant's business time, which its sandbox test clock moves", async () => {
    const creds = await svc.newMerchant({ name: "Clocked" });
    const { id } = await createPayment({ expiresInMinutes: 10 }, creds);
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: 4n * 60_000n })
      .where("id", "=", creds.merchantId)
      .execute();
    const res = await page(id);
    assert.ok(res.body.includes('aria-live="off">06:00</time>'));
  });

  it("shows a deadline that agrees with the countdown, and the test clock's offset, when the merchant's clock runs ahead", async () => {
    const creds = await svc.newMerchant({ name: "Clock Ahead" });
    // The clock moves first, so the payment is made (and expires) in the moved time, as after
    // `satang trigger payment.expired` without a reset.
    const advanced = await svc.request(
      "POST",
      "/api/v1/sandbox/clock/advance",
      { seconds: 301 },
      { credentials: creds },
    );
    assert.equal(advanced.status, 200);
    const payment = await createPayment({ expiresInMinutes: 10 }, creds);
    const expiresAt = new Date(payment.expiresAt);
    const realDeadline = new Date(svc.clock.now().getTime() + 10 * 60_000);
    assert.equal(expiresAt.getTime() - realDeadline.getTime(), 301_000);

    const en = (await page(payment.id, { "accept-language": "en" })).body;
    assert.ok(en.includes('aria-live="off">10:00</time>'), "ten minutes are left by the merchant's clock");
    // "Pay before" is ten real minutes from now, where the countdown reaches zero.
    assert.match(openingTag(en, 'id="pay-before"'), new RegExp(`datetime="${realDeadline.toISOString()}"`));
    assert.ok(en.includes(`>${formatBangkokTime(realDeadline, "en")}</time>`));
    assert.ok(!en.includes(`Pay before ${formatBangkokTime(expiresAt, "en")}`));
    assert.ok(en.includes("Sandbox test clock: 5 min 1 s ahead of real time."));
    assert.ok(en.includes(`By that clock this payment expires at ${formatBangkokTime(expiresAt, "en")}`));

    const th = (await page(payment.id, { "accept-language": "th" })).body;
    assert.ok(th.includes("นาฬิกาทดสอบของแซนด์บ็อกซ์เร็วกว่าเวลาจริง 5 นาที 1 วินาที"));
    assert.ok(th.includes(`ชำระภายใน <time id="pay-before"`));

    const status = await svc.app.inject({
      method: "GET",
      url: `/pay/${payment.id}/status`,
      headers: { "x-client-secret": payment.clientSecret },
    });
    assert.equal(status.json().data.payBefore, realDeadline.toISOString());
    assert.equal(status.json().data.expiresAt, payment.expiresAt);

    // After a reset the payment keeps its expiry: the countdown and the deadline both move on.
    const reset = await svc.request("POST", "/api/v1/sandbox/clock/reset", undefined, { credentials: creds });
    assert.equal(reset.status, 200);
    const afterReset = (await page(payment.id, { "accept-language": "en" })).body;
    assert.ok(afterReset.includes('aria-live="off">15:01</time>'));
    assert.match(openingTag(afterReset, 'id="pay-before"'), new RegExp(`datetime="${payment.expiresAt}"`));
    assert.ok(!afterReset.includes('id="test-clock"'), "no test-clock note at real time");
  });

  it("shows no test-clock note for a merchant at real time", async () => {
    const payment = await createPayment();
    const res = await page(payment.id, { "accept-language": "en" });
    assert.ok(!res.body.includes('id="test-clock"'));
    assert.match(openingTag(res.body, 'id="pay-before"'), new RegExp(`datetime="${payment.expiresAt}"`));
  });
});

describe("description, reference and receipt", () => {
  /** A fixed paid time: 05:30 UTC is 12:30 in Bangkok, on 15 January 2026 (2569 in the Buddhist era). */
  const PAID_AT = new Date("2026-01-15T05:30:00.000Z");

  async function markSucceeded(id: string): Promise<void> {
    await svc.deps.db
      .updateTable("payments")
      .set({ status: "succeeded", confirmed_at: PAID_AT, captured_at: PAID_AT })
      .where("id", "=", id)
      .execute();
  }

  function receiptOf(html: string): string {
    const start = html.indexOf('<section class="receipt"');
    assert.ok(start >= 0, "no receipt in the page");
    return html.slice(start, html.indexOf("</section>", start));
  }

  it("shows the description and the merchant's reference under the amount, in both languages", async () => {
    const payment = await createPayment({ description: "2 T-shirts, size M" });
    const en = (await page(payment.id, {}, "?lang=en")).body;
    assert.ok(
      en.includes(
        `<dl class="order"><div><dt>For</dt><dd>2 T-shirts, size M</dd></div><div><dt>Order reference</dt><dd><span class="mono">${payment.referenceId}</span></dd></div></dl>`,
      ),
    );
    const th = (await page(payment.id, {}, "?lang=th")).body;
    assert.ok(th.includes(`<dt>${MESSAGES.th.description}</dt><dd>2 T-shirts, size M</dd>`));
    assert.ok(th.includes(`<dt>${MESSAGES.th.orderReference}</dt>`));
  });

  it("leaves the description out when the payment has none", async () => {
    const payment = await createPayment();
    const en = (await page(payment.id, {}, "?lang=en")).body;
    assert.ok(
      en.includes(
        `<dl class="order"><div><dt>Order reference</dt><dd><span class="mono">${payment.referenceId}</span></dd></div></dl>`,
      ),
    );
    assert.ok(!en.includes("<dt>For</dt>"));
  });

  it("escapes the description, which is merchant input, in the summary and in the receipt", async () => {
    const description = `<img src=x onerror=alert(1)> "quoted" & 'single' </dd><script>alert(2)</script>`;
    const escaped =
      "&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &amp; &#39;single&#39; &lt;/dd&gt;&lt;script&gt;alert(2)&lt;/script&gt;";
    const payment = await createPayment({ description });
    await markSucceeded(payment.id);
    for (const lang of ["en", "th"]) {
      const html = (await page(payment.id, {}, `?lang=${lang}`)).body;
      assert.ok(!html.includes("<img src=x"), lang);
      assert.ok(!html.includes("<script>alert"), lang);
      assert.equal(html.split(escaped).length - 1, 2, `${lang}: escaped in the summary and the receipt`);
    }
  });

  it("has the receipt hidden while the payment is open, its paid time empty", async () => {
    const payment = await createPayment();
    const html = (await page(payment.id, {}, "?lang=en")).body;
    assert.match(resultPanel(html, "succeeded"), / hidden>$/);
    assert.match(openingTag(html, 'id="paid-at-row"'), / hidden>$/);
    assert.ok(
      html.includes('data-locale="en-GB" data-format="{&quot;timeZone&quot;:&quot;Asia/Bangkok&quot;'),
    );
    assert.match(html, /<time id="paid-at" data-locale="en-GB" data-format="[^"]*"><\/time>/);
  });

  it("shows a succeeded payment's receipt: paid time in Bangkok, amount, reference, id, merchant", async () => {
    const payment = await createPayment({ amount: "123450", description: "Invoice 42" });
    await markSucceeded(payment.id);
    const en = await page(payment.id, {}, "?lang=en");
    assert.doesNotMatch(resultPanel(en.body, "succeeded"), /hidden/);
    const receipt = receiptOf(en.body);
    assert.ok(receipt.includes('<h3 id="receipt-heading">Receipt</h3>'));
    assert.ok(receipt.includes("<div><dt>Paid to</dt><dd>Test Shop</dd></div>"));
    assert.ok(receipt.includes("<div><dt>Amount paid</dt><dd>฿1,234.50 THB</dd></div>"));
    assert.ok(
      receipt.includes(`<dt>Order reference</dt><dd><span class="mono">${payment.referenceId}</span>`),
    );
    assert.ok(receipt.includes("<div><dt>For</dt><dd>Invoice 42</dd></div>"));
    assert.ok(receipt.includes(`<dt>Payment ID</dt><dd><span class="mono">${payment.id}</span>`));
    assert.ok(receipt.includes(MESSAGES.en.receiptNote));
    assert.doesNotMatch(openingTag(receipt, 'id="paid-at-row"'), /hidden/);
    const paidAt = /<time id="paid-at"[^>]* datetime="([^"]+)">([^<]*)<\/time>/.exec(receipt);
    assert.ok(paidAt, "the paid time is rendered");
    assert.equal(paidAt[1], PAID_AT.toISOString());
    // 05:30 UTC is 12:30 in Bangkok, whatever the server's time zone.
    assert.match(paidAt[2]!, /^15 Jan 2026.* 12:30 GMT\+7$/);

    const th = receiptOf((await page(payment.id, {}, "?lang=th")).body);
    assert.ok(th.includes(`<h3 id="receipt-heading">${MESSAGES.th.receiptHeading}</h3>`));
    assert.ok(th.includes(`<dt>${MESSAGES.th.amountPaid}</dt><dd>฿1,234.50 THB</dd>`));
    const thaiTime = /<time id="paid-at"[^>]*>([^<]*)<\/time>/.exec(th)![1]!;
    // Thai dates are in the Buddhist era: 2026 is 2569.
    assert.match(thaiTime, /^15 ม\.ค\. 2569.*12:30/);
  });

  it("shows no receipt for a payment that did not succeed", async () => {
    for (const status of ["canceled", "expired", "processing"] as const) {
      const payment = await createPayment();
      await setStatus(payment.id, status);
      const html = (await page(payment.id, {}, "?lang=en")).body;
      assert.match(resultPanel(html, "succeeded"), / hidden>$/, status);
      assert.match(openingTag(html, 'id="paid-at-row"'), / hidden>$/, status);
    }
  });
});

describe("status route", () => {
  const status = (id: string, query: string, headers: Record<string, string> = {}) =>
    svc.app.inject({ method: "GET", url: `/pay/${id}/status${query}`, headers });

  it("answers the link alone (paymentAppUrl's id) and the right X-Client-Secret alike: the status, without keys or merchant data", async () => {
    const payment = await createPayment();
    const alone = await status(payment.id, "");
    const res = await status(payment.id, "", { "x-client-secret": payment.clientSecret });
    assert.equal(alone.statusCode, 200, alone.body);
    assert.deepEqual(alone.json(), res.json());
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["cache-control"], "no-store");
    assert.deepEqual(res.json(), {
      success: true,
      data: {
        id: payment.id,
        status: "requires_action",
        state: "open",
        final: false,
        amount: "123450.00",
        currency: "THB",
        expiresAt: payment.expiresAt,
        payBefore: payment.expiresAt,
        paidAt: null,
        now: svc.clock.now().toISOString(),
      },
    });
  });

  it("carries the paid time once the payment succeeded: the record's capturedAt", async () => {
    const payment = await createPayment();
    const simulated = await svc.app.inject({
      method: "POST",
      url: `/pay/${payment.id}/simulate`,
      headers: { "x-client-secret": payment.clientSecret },
    });
    assert.equal(simulated.statusCode, 200, simulated.body);
    const record = (await svc.request("GET", `/api/v1/payments/${payment.id}`)).body.data;
    assert.equal(record.status, "succeeded");
    assert.ok(record.capturedAt);
    assert.equal(simulated.json().data.paidAt, record.capturedAt);
    const res = await status(payment.id, "", { "x-client-secret": payment.clientSecret });
    assert.equal(res.json().data.state, "succeeded");
    assert.equal(res.json().data.paidAt, record.capturedAt);
    // The page shows the paid time to whoever holds the link, and so does the route.
    assert.equal((await status(payment.id, "")).json().data.paidAt, record.capturedAt);
  });

  it("does not read a secret from the query string: a wrong one there is not checked", async () => {
    const payment = await createPayment();
    const res = await status(payment.id, "?clientSecret=wrong");
    assert.equal(res.statusCode, 200, res.body);
  });

  it("refuses a wrong or another payment's secret, when one is sent, with 401", async () => {
    const payment = await createPayment();
    const other = await createPayment();
    const wrong = `${payment.clientSecret.slice(0, -1)}${payment.clientSecret.endsWith("A") ? "B" : "A"}`;
    for (const secret of [
      wrong,
      other.clientSecret,
      payment.id,
      "x".repeat(5000),
      `${payment.clientSecret}x`,
    ]) {
      const headers: Record<string, string> = { "x-client-secret": secret };
      const res = await status(payment.id, "", headers);
      assert.equal(res.statusCode, 401, String(secret).slice(0, 40));
      assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
    }
  });

  it("answers an unknown or malformed payment id with 404", async () => {
    for (const id of [MISSING_ID, "not-a-uuid"]) {
      const res = await status(id, "", { "x-client-secret": "whatever" });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    }
  });

  it("reports a final status as final", async () => {
    const payment = await createPayment();
    await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`);
    const res = await status(payment.id, "", { "x-client-secret": payment.clientSecret });
    assert.equal(res.json().data.status, "canceled");
    assert.equal(res.json().data.state, "canceled");
    assert.equal(res.json().data.final, true);
  });
});

describe("sandbox simulate route", () => {
  /** As the page sends it: no body, the secret in X-Client-Secret. */
  const simulate = (id: string, secret: string | undefined, body?: unknown): Promise<TestResponse> =>
    svc.app
      .inject({
        method: "POST",
        url: `/pay/${id}/simulate`,
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...(secret === undefined ? {} : { "x-client-secret": secret }),
        },
      })
      .then((raw) => ({ status: raw.statusCode, headers: raw.headers, body: raw.json(), raw }));

  it("shows the button in sandbox, in both languages", async () => {
    const { id } = await createPayment();
    const en = await page(id, {}, "?lang=en");
    assert.ok(en.body.includes(">Simulate customer payment</button>"));
    assert.equal(attribute(en.body, "data-simulate-url"), `/pay/${id}/simulate`);
    const th = await page(id, {}, "?lang=th");
    assert.ok(th.body.includes(`>${MESSAGES.th.simulate}</button>`));
  });

  it("moves the payment to succeeded with the right secret, and the page then shows success", async () => {
    const payment = await createPayment();
    const res = await simulate(payment.id, payment.clientSecret);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "succeeded");
    assert.equal(res.body.data.final, true);
    const record = await svc.request("GET", `/api/v1/payments/${payment.id}`);
    assert.equal(record.body.data.status, "succeeded");
    const html = (await page(payment.id, {}, "?lang=en")).body;
    assert.equal(attribute(html, "data-state"), "succeeded");
    assert.doesNotMatch(resultPanel(html, "succeeded"), /hidden/);
    assert.ok(html.includes("Test Shop has received your payment."));
  });

  it("moves the payment with the link alone (no secret sent), as the button of paymentAppUrl's page does", async () => {
    const payment = await createPayment();
    const res = await simulate(payment.id, undefined);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "succeeded");
    assert.equal((await svc.request("GET", `/api/v1/payments/${payment.id}`)).body.data.status, "succeeded");
  });

  it("refuses a wrong secret, when one is sent, and leaves the payment as it was", async () => {
    const payment = await createPayment();
    const other = await createPayment();
    const wrong = await simulate(payment.id, other.clientSecret);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, "INVALID_CREDENTIALS");
    const notJson = await svc.app.inject({
      method: "POST",
      url: `/pay/${payment.id}/simulate`,
      payload: `clientSecret=${payment.clientSecret}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(notJson.statusCode, 400);
    const record = await svc.request("GET", `/api/v1/payments/${payment.id}`);
    assert.equal(record.body.data.status, "requires_action");
  });

  it("takes the secret in the header only: a body that carries one is refused and moves nothing", async () => {
    const payment = await createPayment();
    const inBody = await simulate(payment.id, undefined, { clientSecret: payment.clientSecret });
    assert.equal(inBody.status, 400, JSON.stringify(inBody.body));
    assert.equal(inBody.body.error.code, "VALIDATION_ERROR");
    const record = await svc.request("GET", `/api/v1/payments/${payment.id}`);
    assert.equal(record.body.data.status, "requires_action");
    const received = await svc.deps.db
      .selectFrom("events")
      .select("id")
      .where("object_id", "=", payment.id)
      .where("type", "=", "payment.received")
      .execute();
    assert.deepEqual(received, [], "no payment.received was emitted");
  });

  it("cannot pay a canceled payment: 409, and the payment stays canceled", async () => {
    const payment = await createPayment();
    await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`);
    const res = await simulate(payment.id, payment.clientSecret);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "STATE_CONFLICT");
    const record = await svc.request("GET", `/api/v1/payments/${payment.id}`);
    assert.equal(record.body.data.status, "canceled");
  });

  it("answers an unknown payment with 404", async () => {
    const res = await simulate(MISSING_ID, "x");
    assert.equal(res.status, 404);
  });
});

describe("live", () => {
  let live: TestService;
  before(async () => {
    live = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "cd".repeat(32), ...LIVE_PROVIDER_ENV },
    });
  });
  after(async () => {
    await live.close();
  });

  it("has no sandbox button and no simulate route", async () => {
    const created = await live.request("POST", "/api/v1/payments", validBody());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const payment = created.body.data;
    const html = (await live.app.inject({ method: "GET", url: `/pay/${payment.id}?lang=en` })).body;
    assert.ok(html.includes("qr.png"));
    assert.ok(!html.includes('id="simulate"'));
    assert.ok(!html.includes("Simulate customer payment"));
    assert.equal(attribute(html, "data-simulate-url"), "");
    const res = await live.app.inject({
      method: "POST",
      url: `/pay/${payment.id}/simulate`,
      headers: { "x-client-secret": payment.clientSecret },
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    const record = await live.request("GET", `/api/v1/payments/${payment.id}`);
    assert.equal(record.body.data.status, "requires_action");
  });
});

describe("not found", () => {
  it("answers a browser with a 404 page in its language, and anything else with the envelope", async () => {
    for (const id of [MISSING_ID, "not-a-uuid"]) {
      const html = await page(id, { accept: "text/html,application/xhtml+xml", "accept-language": "en" });
      assert.equal(html.statusCode, 404);
      assert.match(String(html.headers["content-type"]), /^text\/html/);
      assert.ok(html.body.includes("<h1>Payment not found</h1>"));
      assert.match(String(html.headers["content-security-policy"]), /default-src 'none'/);
      const th = await page(id, { accept: "text/html" }, "?lang=th");
      assert.ok(th.body.includes(`<h1>${MESSAGES.th.notFoundTitle}</h1>`));

      const json = await page(id, { accept: "application/json" });
      assert.equal(json.statusCode, 404);
      assert.equal(json.json().error.code, "RESOURCE_NOT_FOUND");
    }
  });
});

describe("formatting", () => {
  it("prints baht with separators and the time left like the script does", () => {
    assert.equal(displayThb(1n), "0.01");
    assert.equal(displayThb(100n), "1.00");
    assert.equal(displayThb(123456789n), "1,234,567.89");
    assert.equal(displayThb(999_999_999_999n), "9,999,999,999.99");
    assert.equal(formatRemaining(15 * 60_000), "15:00");
    assert.equal(formatRemaining(59_001), "01:00");
    assert.equal(formatRemaining(-5), "00:00");
    assert.equal(formatRemaining(24 * 3_600_000), "24:00:00");
  });
});
