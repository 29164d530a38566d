/**
 * Request signing: the exact bytes of v1 and v2 signatures, the client's default (v2) and its
 * v1 option, against a real server and an integration that refuses v1.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type FetchLike, InvalidCredentialsError, type Satang, signRequest } from "../src/index.ts";
import { customer, type ListeningService, listeningService, ref } from "./helpers/server.ts";

const hmac = (secret: string, message: string) => createHmac("sha256", secret).update(message).digest("hex");

describe("signRequest", () => {
  const keys = { apiKey: "sk_test_key", apiSecret: "sec_secret" };

  it("signs v2 over timestamp, upper-case method, path with query and body", () => {
    const headers = signRequest({
      ...keys,
      body: '{"a":1}',
      method: "post",
      path: "/api/v1/payments?x=1",
      timestamp: 1_700_000_000_000,
      version: "v2",
    });
    assert.deepEqual(headers, {
      "X-API-Key": "sk_test_key",
      "X-Timestamp": "1700000000000",
      "X-Signature": `v2=${hmac("sec_secret", '1700000000000.POST./api/v1/payments?x=1.{"a":1}')}`,
    });
  });

  it("signs v2 when given the method and path without a version, v1 when asked", () => {
    const input = { ...keys, body: "", method: "post", path: "/api/v1/x", timestamp: 1_700_000_000_002 };
    assert.equal(
      signRequest(input)["X-Signature"],
      `v2=${hmac("sec_secret", "1700000000002.POST./api/v1/x.")}`,
    );
    assert.equal(
      signRequest({ ...input, version: "v1" })["X-Signature"],
      `sha256=${hmac("sec_secret", "1700000000002.")}`,
    );
  });

  it("signs v1 over timestamp and body when given only the body", () => {
    const headers = signRequest({ ...keys, body: "", timestamp: 1_700_000_000_001 });
    assert.equal(headers["X-Signature"], `sha256=${hmac("sec_secret", "1700000000001.")}`);
  });

  it("signs a request without a body when body is left out, and refuses a body that is not text", () => {
    const get = { ...keys, method: "GET", path: "/api/v1/balance", timestamp: 1_700_000_000_004 };
    assert.deepEqual(signRequest(get), signRequest({ ...get, body: "" }));
    assert.equal(
      signRequest(get)["X-Signature"],
      `v2=${hmac("sec_secret", "1700000000004.GET./api/v1/balance.")}`,
    );
    assert.throws(
      () => signRequest({ ...get, body: { amount: "1.00" } as unknown as string }),
      (error: unknown) => error instanceof TypeError && /JSON\.stringify/.test((error as Error).message),
    );
  });

  it("refuses a v2 signature without the method or the path", () => {
    assert.throws(
      () => signRequest({ ...keys, body: "", version: "v2", method: "GET" }),
      /method and the path/,
    );
  });
});

describe("the README's account of signRequest", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Request signing"), readme.indexOf("## Types stay"));
  const keys = {
    apiKey: "sk_test_key",
    apiSecret: "sec_secret",
    body: '{"a":1}',
    timestamp: 1_700_000_000_003,
  };

  /** Each row of the README's table, and what signRequest does given what the row says. */
  const rows: Array<{ row: RegExp; run: () => string; does: RegExp }> = [
    {
      row: /\| `method` and `path`[^|]*\| v2/,
      run: () => signRequest({ ...keys, method: "POST", path: "/api/v1/payments" })["X-Signature"],
      does: /^v2=/,
    },
    {
      row: /\| only the `body`[^|]*\| v1/,
      run: () => signRequest({ ...keys, method: "POST" })["X-Signature"],
      does: /^sha256=/,
    },
    {
      row: /\| `version: "v1"`[^|]*\| v1/,
      run: () =>
        signRequest({ ...keys, method: "POST", path: "/api/v1/payments", version: "v1" })["X-Signature"],
      does: /^sha256=/,
    },
    {
      row: /\| `version: "v2"` without[^|]*\| nothing: it throws/,
      run: () => {
        try {
          return signRequest({ ...keys, path: "/api/v1/payments", version: "v2" })["X-Signature"];
        } catch (error) {
          return `threw: ${(error as Error).message}`;
        }
      },
      does: /^threw: /,
    },
  ];

  it("states for each input the signature signRequest makes (v2 when given the method and path)", () => {
    for (const { row, run, does } of rows) {
      assert.match(section, row);
      assert.match(run(), does, String(row));
    }
    assert.doesNotMatch(section, /signs v1 unless/);
  });
});

describe("the client's signature version", () => {
  let service: ListeningService;
  before(async () => {
    service = await listeningService();
  });
  after(async () => {
    await service?.close();
  });

  /** A fetch that records the signature headers of each request before passing it on. */
  function recording() {
    const sent: Array<{ method: string; url: string; body: string; headers: Record<string, string> }> = [];
    const fetch: FetchLike = (url, init) => {
      sent.push({
        method: init.method ?? "GET",
        url,
        body: typeof init.body === "string" ? init.body : "",
        headers: { ...(init.headers as Record<string, string>) },
      });
      return globalThis.fetch(url, init);
    };
    return { fetch, sent };
  }

  const create = (client: Satang) =>
    client.payments.create({
      amount: "900.00",
      referenceId: ref("sig"),
      paymentMethod: "promptpay",
      ...customer(),
    });

  it("signs v2 by default: method, path with query and body, for writes and filtered reads", async () => {
    const { fetch, sent } = recording();
    const client = service.client({ fetch });
    const payment = await create(client);
    await client.payments.list({ status: "requires_action", limit: 5 });
    assert.equal(sent.length, 2);
    for (const request of sent) {
      const url = new URL(request.url);
      const timestamp = request.headers["X-Timestamp"];
      const message = `${timestamp}.${request.method}.${url.pathname}${url.search}.${request.body}`;
      assert.equal(request.headers["X-Signature"], `v2=${hmac(service.svc.credentials.apiSecret, message)}`);
    }
    assert.match(sent[1]!.url, /\?status=requires_action&limit=5$/);
    assert.equal(payment.status, "requires_action");
  });

  it("signs v1 with signatureVersion v1", async () => {
    const { fetch, sent } = recording();
    await create(service.client({ fetch, signatureVersion: "v1" }));
    const [request] = sent;
    const expected = hmac(
      service.svc.credentials.apiSecret,
      `${request!.headers["X-Timestamp"]}.${request!.body}`,
    );
    assert.equal(request!.headers["X-Signature"], `sha256=${expected}`);
  });

  it("works by default with an integration that requires v2, which refuses the v1 option", async () => {
    const strict = await service.svc.newMerchant({}, { requireSignatureV2: true });
    const payment = await create(service.client({}, strict));
    const listed = await service.client({}, strict).payments.list({ status: "requires_action" });
    assert.deepEqual(
      listed.data.map((p) => p.id),
      [payment.id],
    );
    await assert.rejects(create(service.client({ signatureVersion: "v1" }, strict)), InvalidCredentialsError);
  });
});
