/**
 * The Thai web font the pages ship: served by the service itself, linked by every page that
 * shows Thai, and allowed by each page's Content-Security-Policy, so a phone (or a test
 * browser) with no Thai font draws the same Thai.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";

describe("the Thai web font", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  async function fontSheetOf(pageUrl: string): Promise<{ href: string; csp: string }> {
    const page = await svc.app.inject({ method: "GET", url: pageUrl, headers: { accept: "text/html" } });
    assert.ok(page.statusCode < 500, `${pageUrl} answers ${page.statusCode}`);
    const href = /<link rel="stylesheet" href="([^"]*\/assets\/fonts\/thai\.css[^"]*)"/.exec(page.body)?.[1];
    assert.ok(href, `${pageUrl} links the font style sheet`);
    return { href: href.replace(/&amp;/g, "&"), csp: String(page.headers["content-security-policy"]) };
  }

  it("is linked by the dashboard, the payout desk and the hosted page, and their CSP allows it", async () => {
    const created = await svc.request("POST", "/api/v1/payments", {
      amount: "10000.00",
      referenceId: "font-1",
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: "1234567890",
      customerBankCode: "004",
    });
    const payment = (created.body as any).data;
    for (const url of ["/dashboard", "/dashboard/payout-desk", `/pay/${payment.id}`]) {
      const { href, csp } = await fontSheetOf(url);
      assert.match(csp, /font-src 'self'/, `${url} allows its own fonts`);
      assert.match(csp, /style-src 'self'/, `${url} allows its own style sheets`);
      const sheet = await svc.app.inject({ method: "GET", url: href });
      assert.equal(sheet.statusCode, 200);
      assert.match(String(sheet.headers["content-type"]), /^text\/css/);
    }
  });

  it("serves Thai faces in two weights as WOFF2, limited to Thai code points, cached for a year", async () => {
    const { href } = await fontSheetOf("/dashboard");
    const css = (await svc.app.inject({ method: "GET", url: href })).body;
    const urls = [...css.matchAll(/url\("([^"]+)"\)/g)].map((match) => match[1]!);
    assert.equal(urls.length, 2, css);
    assert.match(css, /unicode-range:U\+0E01-0E5B/);
    for (const relative of urls) {
      const font = await svc.app.inject({ method: "GET", url: `/assets/fonts/${relative}` });
      assert.equal(font.statusCode, 200, relative);
      assert.equal(font.headers["content-type"], "font/woff2");
      assert.equal(font.rawPayload.subarray(0, 4).toString("latin1"), "wOF2", "a WOFF2 file");
      assert.match(String(font.headers["cache-control"]), /max-age=31536000/);
      const again = await svc.app.inject({
        method: "GET",
        url: `/assets/fonts/${relative}`,
        headers: { "if-none-match": String(font.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
    }
  });

  it("serves nothing else from its folder", async () => {
    for (const name of ["package.json", "..%2F..%2Fpackage.json", "sarabun-latin-400-normal.woff2"]) {
      const response = await svc.app.inject({ method: "GET", url: `/assets/fonts/${name}` });
      assert.equal(response.statusCode, 404, name);
      assert.equal(response.json().error.code, "RESOURCE_NOT_FOUND");
    }
  });
});
