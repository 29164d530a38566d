/**
 * The webhook endpoints API (CONTRACT 12): create with a secret shown once and stored
 * encrypted, list without secrets, retrieve, delete, rotate, the validation of the body, the
 * URL rules of the sandbox, and merchant scoping.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EVENT_TYPES } from "../../src/db/types.ts";
import { WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX } from "../../src/lib/limits.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { tableResolver } from "../helpers/webhooks.ts";

let svc: TestService;

before(async () => {
  svc = await startService({
    deps: {
      webhooks: { resolve: tableResolver({ "hooks.example": ["93.184.216.34"], localhost: ["127.0.0.1"] }) },
    },
  });
});
after(async () => {
  await svc.close();
});

const PATH = "/api/v1/webhook-endpoints";

async function create(body: Record<string, unknown>, credentials = svc.credentials) {
  return svc.request("POST", PATH, body, { credentials });
}

describe("POST /api/v1/webhook-endpoints", () => {
  it("creates an endpoint and shows a whsec_ secret of at least 24 random bytes once", async () => {
    const res = await create({
      url: "https://hooks.example/satang",
      events: ["payment.received", "payment.expired"],
      description: "orders",
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const endpoint = res.body.data;
    assert.match(endpoint.id, /^[0-9a-f-]{36}$/);
    assert.equal(endpoint.url, "https://hooks.example/satang");
    assert.deepEqual(endpoint.events, ["payment.received", "payment.expired"]);
    assert.equal(endpoint.description, "orders");
    assert.equal(endpoint.previousSecretExpiresAt, null);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.ok(Buffer.from(endpoint.secret.slice(6), "base64").length >= 24);

    const stored = await svc.deps.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    assert.ok(!stored.secret_encrypted.includes(endpoint.secret.slice(6)), "the secret is stored encrypted");
    assert.equal(svc.deps.secrets.open(stored.secret_encrypted), endpoint.secret);

    const listed = await svc.request("GET", PATH);
    assert.equal(listed.status, 200);
    const found = listed.body.data.data.find((e: { id: string }) => e.id === endpoint.id);
    assert.ok(found);
    assert.equal("secret" in found, false, "a list never shows secrets");
    const one = await svc.request("GET", `${PATH}/${endpoint.id}`);
    assert.equal(one.status, 200);
    assert.equal("secret" in one.body.data, false);
  });

  it('accepts ["*"] for every event type and stores a type list in a fixed order', async () => {
    const all = await create({ url: "https://hooks.example/all", events: ["*"] });
    assert.equal(all.status, 201);
    assert.deepEqual(all.body.data.events, ["*"]);
    const some = await create({
      url: "https://hooks.example/w",
      events: ["withdraw.paid", "payment.received"],
    });
    assert.deepEqual(some.body.data.events, ["payment.received", "withdraw.paid"]);
    const every = await create({ url: "https://hooks.example/e", events: [...EVENT_TYPES] });
    assert.equal(every.status, 201);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["an unknown field", { url: "https://hooks.example/", events: ["*"], secret: "mine" }, "secret"],
    ["a missing url", { events: ["*"] }, "url"],
    ["missing events", { url: "https://hooks.example/" }, "events"],
    ["an empty event list", { url: "https://hooks.example/", events: [] }, "events"],
    ["an unknown event type", { url: "https://hooks.example/", events: ["payment.refunded"] }, "events"],
    [
      "a repeated event type",
      { url: "https://hooks.example/", events: ["payment.received", "payment.received"] },
      "events",
    ],
    ['"*" beside a type', { url: "https://hooks.example/", events: ["*", "payment.received"] }, "events"],
    ["a url that is not a URL", { url: "hooks.example/x", events: ["*"] }, "url"],
    ["an ftp url", { url: "ftp://hooks.example/x", events: ["*"] }, "url"],
    ["a url with credentials", { url: "https://user:pw@hooks.example/x", events: ["*"] }, "url"],
    ["a url naming port 0", { url: "https://hooks.example:0/x", events: ["*"] }, "url"],
    ["a url naming port 65536", { url: "https://hooks.example:65536/x", events: ["*"] }, "url"],
    ["a url whose host does not resolve", { url: "https://nowhere.example/x", events: ["*"] }, "url"],
    ["a private address", { url: "http://10.0.0.1/x", events: ["*"] }, "url"],
    ["the metadata address", { url: "http://169.254.169.254/latest/meta-data", events: ["*"] }, "url"],
    ["a CGNAT address", { url: "http://100.64.0.1/x", events: ["*"] }, "url"],
    [
      "a too long description",
      { url: "https://hooks.example/", events: ["*"], description: "x".repeat(256) },
      "description",
    ],
    ["a numeric url", { url: 42, events: ["*"] }, "url"],
    ["a url with a leading space", { url: " https://hooks.example/", events: ["*"] }, "url"],
    ["a url with a trailing line break", { url: "https://hooks.example/\n", events: ["*"] }, "url"],
  ];
  for (const [what, body, field] of invalid) {
    it(`refuses ${what} with 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
    });
  }

  it("accepts any port from 1 to 65535, and keeps it in the record", async () => {
    for (const url of ["https://hooks.example:1/x", "https://hooks.example:65535/x"]) {
      const res = await create({ url, events: ["*"] });
      assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.data.url, url);
      const removed = await svc.request("DELETE", `${PATH}/${res.body.data.id}`);
      assert.equal(removed.status, 200);
    }
  });

  it("takes a null description as none, as the record shows one", async () => {
    const res = await create({ url: "https://hooks.example/", events: ["*"], description: null });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.description, null);
  });

  it("allows loopback URLs in the sandbox, for local development", async () => {
    // `*.localhost` is loopback by definition (RFC 6761), whether or not a resolver knows it.
    for (const url of [
      "http://127.0.0.1:8080/hooks",
      "http://localhost:8080/hooks",
      "http://[::1]:8080/x",
      "http://shop.localhost:8080/hooks",
    ]) {
      const res = await create({ url, events: ["*"] });
      assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
    }
  });

  it("refuses loopback in the sandbox when WEBHOOK_ALLOW_LOOPBACK=false", async () => {
    const strict = await startService({ env: { WEBHOOK_ALLOW_LOOPBACK: "false" } });
    try {
      const res = await strict.request("POST", PATH, { url: "http://127.0.0.1:8080/hooks", events: ["*"] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.metadata.field, "url");
      assert.match(res.body.error.message, /loopback/);
    } finally {
      await strict.close();
    }
  });

  it(`refuses more than ${WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX} endpoints per merchant`, async () => {
    const credentials = await svc.newMerchant();
    const results = await Promise.all(
      Array.from({ length: WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX + 3 }, (_, i) =>
        create({ url: `https://hooks.example/${i}`, events: ["*"] }, credentials),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX);
    assert.equal(results.filter((r) => r.status === 400).length, 3);
  });
});

describe("listing, retrieving and deleting endpoints", () => {
  it("lists the merchant's endpoints newest first in the list envelope, and only its own", async () => {
    const credentials = await svc.newMerchant();
    const other = await svc.newMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      svc.clock.advance(1000);
      ids.push(
        (await create({ url: `https://hooks.example/${i}`, events: ["*"] }, credentials)).body.data.id,
      );
    }
    await create({ url: "https://hooks.example/other", events: ["*"] }, other);
    const res = await svc.request("GET", `${PATH}?limit=2`, undefined, { credentials });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total, 3);
    assert.equal(res.body.data.totalPages, 2);
    assert.deepEqual(
      res.body.data.data.map((e: { id: string }) => e.id),
      [ids[2], ids[1]],
    );
    const badLimit = await svc.request("GET", `${PATH}?limit=0`, undefined, { credentials });
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.error.metadata.field, "limit");
  });

  it("answers 404 for another merchant's endpoint, exactly as for a missing one", async () => {
    const owner = await svc.newMerchant();
    const id = (await create({ url: "https://hooks.example/x", events: ["*"] }, owner)).body.data.id;
    for (const path of [
      `${PATH}/${id}`,
      `${PATH}/00000000-0000-4000-8000-000000000000`,
      `${PATH}/not-a-uuid`,
    ]) {
      const get = await svc.request("GET", path);
      assert.equal(get.status, 404);
      assert.equal(get.body.error.code, "RESOURCE_NOT_FOUND");
      const del = await svc.request("DELETE", path);
      assert.equal(del.status, 404);
      const rotate = await svc.request("POST", `${path}/rotate-secret`);
      assert.equal(rotate.status, 404);
    }
  });

  it("deletes an endpoint: it leaves the list, and a second delete is 404", async () => {
    const credentials = await svc.newMerchant();
    const id = (await create({ url: "https://hooks.example/x", events: ["*"] }, credentials)).body.data.id;
    const del = await svc.request("DELETE", `${PATH}/${id}`, undefined, { credentials });
    assert.equal(del.status, 200);
    assert.equal(del.body.data.id, id);
    const list = await svc.request("GET", PATH, undefined, { credentials });
    assert.equal(list.body.data.total, 0);
    assert.equal((await svc.request("DELETE", `${PATH}/${id}`, undefined, { credentials })).status, 404);
    assert.equal((await svc.request("GET", `${PATH}/${id}`, undefined, { credentials })).status, 404);
  });
});

describe("POST /api/v1/webhook-endpoints/{id}/rotate-secret", () => {
  it("returns a new secret once, keeps the previous one for 24 hours, and refuses a body field", async () => {
    const created = (await create({ url: "https://hooks.example/r", events: ["*"] })).body.data;
    const before = Date.now();
    const res = await svc.request("POST", `${PATH}/${created.id}/rotate-secret`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.data.secret, /^whsec_/);
    assert.notEqual(res.body.data.secret, created.secret);
    const expires = Date.parse(res.body.data.previousSecretExpiresAt);
    assert.ok(expires >= before + 24 * 3_600_000 && expires <= Date.now() + 24 * 3_600_000);
    const row = await svc.deps.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    assert.equal(svc.deps.secrets.open(row.secret_encrypted), res.body.data.secret);
    assert.equal(svc.deps.secrets.open(row.previous_secret_encrypted!), created.secret);

    const extra = await svc.request("POST", `${PATH}/${created.id}/rotate-secret`, { secret: "x" });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "secret");
  });
});
