/**
 * Webhook URLs in the live environment (CONTRACT 12, server-side request forgery): a corpus of
 * addresses and names that lead to loopback, private, link-local, metadata and other
 * non-public addresses, in every spelling the URL parser accepts. None is accepted at
 * registration, none is reached at delivery (also when the name is re-pointed after
 * registration), and a canary listener on 127.0.0.1 sees zero connections throughout.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.ts";
import type { Deps } from "../../src/deps.ts";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { addressRefusal } from "../../src/events/url-guard.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/ids.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";
import {
  type Canary,
  cancelPendingDeliveries,
  startCanary,
  tableResolver,
  writeEvent,
} from "../helpers/webhooks.ts";

/** Stands in for a public address: a name resolving to it is accepted, but never contacted here. */
const PUBLIC_ADDRESS = "93.184.216.34";

const resolver = tableResolver({
  "public.test": [PUBLIC_ADDRESS],
  "rebind.test": [PUBLIC_ADDRESS],
  "loopback.test": ["127.0.0.1"],
  "loopback6.test": ["::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "private.test": ["10.1.2.3"],
  "metadata.test": ["169.254.169.254"],
  "mixed.test": [PUBLIC_ADDRESS, "127.0.0.1"],
  "mixed-private.test": [PUBLIC_ADDRESS, "192.168.0.10"],
  "ula.test": ["fd12:3456::1"],
  "zero.test": ["0.0.0.0"],
  "empty.test": [],
});

let svc: TestService;
let canary: Canary;

before(async () => {
  canary = await startCanary();
  svc = await startService({
    env: { SATANG_ENV: "live", SECRET_KEY: "a".repeat(64), ...LIVE_PROVIDER_ENV },
    deps: { webhooks: { resolve: resolver, timeoutMs: 2_000 } },
  });
});
after(async () => {
  await svc.close();
  await canary.close();
  assert.equal(canary.connections, 0, "nothing ever reached the canary");
});

/** Hosts (as written in a URL) that must never be reached; each URL gets the canary's port. */
const CORPUS = [
  "127.0.0.1",
  "127.1",
  "127.0.1",
  "2130706433",
  "0x7f000001",
  "0x7F.0.0.1",
  "0x7f.1",
  "0177.0.0.1",
  "017700000001",
  "00000177.0.0.1",
  "127.000.000.001",
  "127.0.0.1.",
  "127.255.255.254",
  "[::1]",
  "[0:0:0:0:0:0:0:1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "[::127.0.0.1]",
  "[64:ff9b::7f00:1]",
  "[2002:7f00:1::]",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "[::ffff:10.0.0.1]",
  "169.254.169.254",
  "[::ffff:169.254.169.254]",
  "[::ffff:a9fe:a9fe]",
  "100.64.0.1",
  "100.127.255.254",
  "0.0.0.0",
  "0",
  "[::]",
  "[fe80::1]",
  "[fc00::1]",
  "[fd00:ec2::254]",
  "224.0.0.1",
  "255.255.255.255",
  "[ff02::1]",
  "192.0.0.1",
  "198.18.0.1",
  "localhost",
  "LOCALHOST",
  "localhost.",
  "api.localhost",
  "loopback.test",
  "loopback6.test",
  "mapped.test",
  "private.test",
  "metadata.test",
  "mixed.test",
  "mixed-private.test",
  "ula.test",
  "zero.test",
  "empty.test",
  "nxdomain.test",
];

function corpusUrl(host: string): string {
  return `https://${host}:${canary.port}/hooks`;
}

describe("registration in the live environment", () => {
  it(`refuses every one of ${CORPUS.length} loopback, private, link-local and metadata URLs with 400 on url`, async () => {
    assert.ok(CORPUS.length >= 30);
    for (const host of CORPUS) {
      const res = await svc.request("POST", "/api/v1/webhook-endpoints", {
        url: corpusUrl(host),
        events: ["*"],
      });
      assert.equal(res.status, 400, `${host}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR", host);
      assert.equal(res.body.error.metadata.field, "url", host);
    }
    assert.equal(canary.connections, 0);
    const stored = await svc.deps.db.selectFrom("webhook_endpoints").select("id").execute();
    assert.equal(stored.length, 0);
  });

  it("answers a name that does not resolve exactly as one that resolves to a private address", async () => {
    // Two messages would let a caller map which internal names exist (a DNS oracle).
    const messages: string[] = [];
    for (const host of ["private.test", "no-such-name.test", "empty.test"]) {
      const res = await svc.request("POST", "/api/v1/webhook-endpoints", {
        url: `https://${host}/hooks`,
        events: ["*"],
      });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.metadata.field, "url");
      messages.push(String(res.body.error.message).replace(host, "HOST"));
    }
    assert.equal(new Set(messages).size, 1, messages.join(" | "));
  });

  it("requires https, and accepts an https URL whose every address is public", async () => {
    const plain = await svc.request("POST", "/api/v1/webhook-endpoints", {
      url: "http://public.test/hooks",
      events: ["*"],
    });
    assert.equal(plain.status, 400);
    assert.equal(plain.body.error.metadata.field, "url");
    assert.match(plain.body.error.message, /https/);
    const credentials = await svc.newMerchant();
    const secure = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url: "https://public.test/hooks", events: ["*"] },
      { credentials },
    );
    assert.equal(secure.status, 201, JSON.stringify(secure.body));
    // Never deliver to the stand-in public address from a test.
    assert.equal(
      (
        await svc.request("DELETE", `/api/v1/webhook-endpoints/${secure.body.data.id}`, undefined, {
          credentials,
        })
      ).status,
      200,
    );
  });
});

describe("delivery in the live environment", () => {
  function workerDeps(): Deps {
    return svc.depsWith({ wallClock: new ManualClock(Date.now()) });
  }

  it("checks again at every delivery: endpoints stored with corpus URLs are never contacted", async () => {
    // As if each URL had passed registration while its name pointed elsewhere.
    const credentials = await svc.newMerchant();
    const at = new Date();
    await svc.deps.db
      .insertInto("webhook_endpoints")
      .values(
        CORPUS.map((host) => ({
          id: newId(),
          merchant_id: credentials.merchantId,
          url: corpusUrl(host),
          description: host,
          event_types: ["*"],
          secret_encrypted: svc.deps.secrets.seal(`whsec_${Buffer.alloc(32, 1).toString("base64")}`),
          previous_secret_encrypted: null,
          previous_secret_expires_at: null,
          created_at: at,
          updated_at: at,
          deleted_at: null,
        })),
      )
      .execute();
    const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
    const deps = workerDeps();
    while ((await deliverDueWebhooks(deps)) > 0) {}

    const attempts = await svc.deps.db
      .selectFrom("webhook_delivery_attempts as a")
      .innerJoin("webhook_deliveries as d", "d.id", "a.delivery_id")
      .select(["a.error", "a.status_code", "a.succeeded"])
      .where("d.event_id", "=", event.id)
      .execute();
    assert.equal(attempts.length, CORPUS.length);
    for (const attempt of attempts) {
      assert.equal(attempt.succeeded, false);
      assert.equal(attempt.status_code, null);
      assert.match(attempt.error ?? "", /^refused: /);
    }
    assert.equal(canary.connections, 0);
    await cancelPendingDeliveries(svc.deps);
  });

  it("refuses a name that was public at registration and points at loopback at delivery (DNS rebinding)", async () => {
    const credentials = await svc.newMerchant();
    const url = corpusUrl("rebind.test");
    const created = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url, events: ["*"] },
      { credentials },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    resolver.table["rebind.test"] = ["127.0.0.1"];
    try {
      const event = await writeEvent(svc.deps, credentials.merchantId, "withdraw.paid");
      await deliverDueWebhooks(workerDeps());
      const detail = await svc.request("GET", `/api/v1/events/${event.id}`, undefined, { credentials });
      const attempt = detail.body.data.deliveries[0].attempts[0];
      assert.match(attempt.error, /^refused: url host rebind\.test is not an address webhooks may reach/);
      assert.doesNotMatch(attempt.error, /127\.0\.0\.1/, "the resolved address is not told");
      assert.equal(canary.connections, 0);
    } finally {
      resolver.table["rebind.test"] = [PUBLIC_ADDRESS];
      await cancelPendingDeliveries(svc.deps);
    }
  });
});

describe("the address rules", () => {
  const refused = [
    "127.0.0.1",
    "::1",
    "::ffff:127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "ff02::1",
    "::ffff:8.8.8.8",
    "2001:db8::1",
    "not an address",
  ];
  const allowed = ["8.8.8.8", "1.1.1.1", PUBLIC_ADDRESS, "2606:4700:4700::1111", "2a00:1450:4001:80e::200e"];

  it("refuses loopback, private, link-local, metadata, embedded and reserved addresses", () => {
    for (const address of refused) {
      assert.ok(addressRefusal(address, { allowLoopback: false }), `${address} must be refused`);
    }
  });

  it("allows public unicast addresses, and loopback only when the policy allows it", () => {
    for (const address of allowed)
      assert.equal(addressRefusal(address, { allowLoopback: false }), undefined, address);
    assert.equal(addressRefusal("127.0.0.1", { allowLoopback: true }), undefined);
    assert.equal(addressRefusal("::1", { allowLoopback: true }), undefined);
    assert.equal(addressRefusal("::ffff:127.0.0.1", { allowLoopback: true }) !== undefined, true);
    assert.ok(addressRefusal("10.0.0.1", { allowLoopback: true }), "sandbox still refuses private addresses");
    assert.ok(addressRefusal("169.254.169.254", { allowLoopback: true }));
  });

  it("allows loopback by default in the sandbox only; live refuses to start when asked to allow it", () => {
    assert.equal(loadConfig({}).webhookAllowLoopback, true);
    assert.equal(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: "false" }).webhookAllowLoopback, false);
    assert.equal(
      loadConfig({ SATANG_ENV: "live", SECRET_KEY: "a".repeat(64), ...LIVE_PROVIDER_ENV })
        .webhookAllowLoopback,
      false,
    );
    assert.throws(
      () =>
        loadConfig({
          SATANG_ENV: "live",
          SECRET_KEY: "a".repeat(64),
          ...LIVE_PROVIDER_ENV,
          WEBHOOK_ALLOW_LOOPBACK: "true",
        }),
      /WEBHOOK_ALLOW_LOOPBACK/,
    );
    assert.throws(() => loadConfig({ WEBHOOK_ALLOW_LOOPBACK: "maybe" }), /WEBHOOK_ALLOW_LOOPBACK/);
  });
});
