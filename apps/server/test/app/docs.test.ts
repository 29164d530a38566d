/**
 * /docs and the OpenAPI document as a reader meets them: a real example on every request and
 * response (each one valid against its own schema, none a placeholder), the merchant API before
 * the operator API, signing explained at the top, and in sandbox a page that signs "Try it out"
 * requests in the browser (tried in headless Chromium, with a screenshot).
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { type AddressInfo, createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import type { Browser } from "playwright-core";
import { launchChromium, RESULTS_DIR } from "../helpers/browser.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

// ajv and ajv-formats are CommonJS: their classes are on .default under ESM.
const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

// Globals of the page, for the functions that run in it (this project compiles without DOM types).
declare const document: any;

type Json = any;

let svc: TestService;
let doc: Json;

before(async () => {
  svc = await startService();
  doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
});
after(async () => {
  await svc.close();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Example {
  where: string;
  schema: Json;
  example: unknown;
}

function examples(document: Json): Example[] {
  const out: Example[] = [];
  for (const [url, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const body = operation.requestBody?.content?.["application/json"];
      if (body) out.push({ where: `${method} ${url} request`, schema: body.schema, example: body.example });
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const media = response.content?.["application/json"];
        if (!media) continue;
        // An error response shows one example per error it documents (http/openapi-errors.ts).
        const named = Object.entries<Json>(media.examples ?? {});
        if (named.length === 0) {
          out.push({ where: `${method} ${url} ${status}`, schema: media.schema, example: media.example });
        }
        for (const [name, example] of named) {
          out.push({
            where: `${method} ${url} ${status} ${name}`,
            schema: media.schema,
            example: example.value,
          });
        }
      }
    }
  }
  return out;
}

/** Every string leaf of an example, to look for placeholders. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

describe("OpenAPI examples", () => {
  it("gives every JSON request body and response an example that its schema accepts", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
    const all = examples(doc);
    assert.ok(all.length > 60, `only ${all.length} bodies and responses`);
    // Many responses share a schema (the error envelope above all): compile each schema once.
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    for (const { where, schema, example } of all) {
      assert.notEqual(example, undefined, `${where} has no example`);
      const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
      const validate = compiled.get(text) ?? ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
      assert.ok(
        validate(example),
        `${where}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(example)}`,
      );
    }
  });

  it("uses realistic values, not placeholders", () => {
    const payment = doc.paths["/api/v1/payments"].post;
    const request = payment.requestBody.content["application/json"].example;
    assert.equal(request.amount.endsWith(".00"), true);
    assert.equal(request.customerBankAccountNumber, "1234567890");
    assert.equal(request.customerBankCode, "004");
    const created = payment.responses["201"].content["application/json"].example.data;
    assert.equal(created.status, "requires_action");
    assert.match(created.nextAction.paymentAppUrl, /\/pay\/[0-9a-f-]{36}$/);
    for (const { where, example } of examples(doc)) {
      for (const text of strings(example)) {
        assert.ok(!["string", "text", ""].includes(text.trim()), `${where}: placeholder "${text}"`);
      }
    }
  });
});

describe("document order", () => {
  it("puts the merchant API first and the operator API last, in a group of its own", () => {
    const urls = Object.keys(doc.paths);
    const firstAdmin = urls.findIndex((url) => url.startsWith("/admin/"));
    assert.ok(firstAdmin > 0);
    assert.ok(
      urls.slice(firstAdmin).every((url) => url.startsWith("/admin/")),
      "no merchant path after the first admin one",
    );
    const tags = doc.tags.map((tag: Json) => tag.name);
    assert.equal(tags[0], "payments");
    assert.equal(tags.at(-1), "admin");
    assert.deepEqual(
      doc["x-tagGroups"].map((group: Json) => group.name),
      ["Merchant API", "Operator API"],
    );
    assert.deepEqual(doc["x-tagGroups"][1].tags, ["admin"]);
    // Every operation's tag is listed, so no merchant section falls after the operator API.
    const grouped = doc["x-tagGroups"].flatMap((group: Json) => group.tags);
    for (const [url, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const operation of Object.values(operations)) {
        for (const tag of operation.tags ?? []) {
          assert.ok(tags.includes(tag), `${url}: tag ${tag} is not in the document's tags`);
          assert.ok(grouped.includes(tag), `${url}: tag ${tag} is in no tag group`);
        }
      }
    }
  });

  it("explains signing at the top of the description", () => {
    const description: string = doc.info.description;
    const firstHeading = /^## (.+)$/m.exec(description)?.[1];
    assert.equal(firstHeading, "Authentication");
    assert.ok(description.includes("HMAC-SHA256(secret, timestamp"));
    assert.ok(description.includes("## Try it out (sandbox)"));
  });

  it("in live, has no signing script and says nothing of signing in the page", async () => {
    const live = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "cd".repeat(32), ...LIVE_PROVIDER_ENV },
    });
    try {
      const page = await live.app.inject({ method: "GET", url: "/docs/" });
      assert.ok(!page.body.includes("docs-signing.js"));
      const liveDoc = (await live.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
      assert.ok(!liveDoc.info.description.includes("Try it out (sandbox)"));
      const sandboxPage = await svc.app.inject({ method: "GET", url: "/docs/" });
      assert.ok(sandboxPage.body.includes("docs-signing.js"));
    } finally {
      await live.close();
    }
  });
});

describe("sandbox docs in Chromium", () => {
  let browser: Browser;
  let origin: string;
  let served: TestService;
  before(async () => {
    browser = await launchChromium("the /docs signing test");
    // The document names PUBLIC_BASE_URL as its server, so the service must know its port first.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    served = await startService({ env: { PUBLIC_BASE_URL: origin } });
    await served.app.listen({ host: "127.0.0.1", port });
  });
  after(async () => {
    await browser?.close();
    await served?.close();
  });

  it("signs Try it out in the page, and the secret never leaves it", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const { apiKey, apiSecret } = served.credentials;
    const sent: string[] = [];
    const errors: string[] = [];
    page.on("request", (request) => {
      sent.push(`${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ""}`);
    });
    page.on("pageerror", (error) => errors.push(String(error)));
    try {
      await page.goto(`${origin}/docs/`);
      await page.locator("#satang-api-key").fill(apiKey);
      await page.locator("#satang-api-secret").fill(apiSecret);
      const operation = page
        .locator("#operations-balance-getBalance, .opblock-get:has-text('/api/v1/balance')")
        .first();
      await operation.locator(".opblock-summary").first().click();
      await operation.getByRole("button", { name: "Try it out" }).click();
      await operation.getByRole("button", { name: "Execute" }).click();
      const status = operation.locator(".live-responses-table tbody .response-col_status").first();
      await status.waitFor();
      assert.equal((await status.textContent())?.trim(), "200");
      const shown = (await page.locator("#satang-signing-status").textContent()) ?? "";
      assert.match(shown, /^Signed GET \/api\/v1\/balance/);
      await page.screenshot({ path: `${RESULTS_DIR}docs-signed-request.png`, fullPage: false });
      const balanceCalls = sent.filter((line) => line.includes("/api/v1/balance"));
      assert.equal(balanceCalls.length, 1);
      assert.match(balanceCalls[0] ?? "", /"x-signature":"v2=[0-9a-f]{64}"/);
      // The box shows the signature it sent and the message it signed, as a developer's own code would.
      const sentSignature = /"x-signature":"v2=([0-9a-f]{64})"/.exec(balanceCalls[0] ?? "")?.[1];
      const sentTimestamp = /"x-timestamp":"(\d+)"/.exec(balanceCalls[0] ?? "")?.[1];
      assert.ok(shown.includes(`X-Signature v2=${sentSignature}`), shown);
      assert.ok(shown.includes(`"${sentTimestamp}.GET./api/v1/balance."`), shown);
      assert.equal(
        createHmac("sha256", apiSecret).update(`${sentTimestamp}.GET./api/v1/balance.`).digest("hex"),
        sentSignature,
      );
      for (const line of sent) assert.ok(!line.includes(apiSecret), `the secret left the page: ${line}`);
      assert.equal(await page.evaluate(() => document.cookie), "");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
