/**
 * Authentication's in-process cache (http/auth-cache.ts): what it keeps, when it forgets, and
 * that a revoke or a disabled merchant is seen at once on the process that made the change
 * and within one second on another server process (PostgreSQL LISTEN/NOTIFY).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ChangeFeed } from "../../src/db/changes.ts";
import type { Integration, Merchant } from "../../src/db/types.ts";
import type { ApiKeys } from "../../src/http/auth.ts";
import { cachedApiKeys } from "../../src/http/auth-cache.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type Cluster, signedFetch, startCluster } from "../helpers/cluster.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { signedInject } from "../helpers/signed.ts";
import { statementsOf } from "../helpers/statements.ts";
import { describeOnPostgres } from "../helpers/store.ts";

type Found = Awaited<ReturnType<ApiKeys["findByApiKey"]>>;

/** A key lookup that counts its calls and answers from a map a test changes. */
function fakeKeys() {
  const rows = new Map<string, NonNullable<Found>>();
  let calls = 0;
  let gate: Promise<void> | undefined;
  const keys: ApiKeys = {
    findByApiKey: async (apiKey) => {
      calls += 1;
      const answer = rows.get(apiKey);
      if (gate) await gate;
      return answer;
    },
    recordUse: async () => true,
    deleteExpiredUses: async () => {},
  };
  const row = (id: string): NonNullable<Found> => ({
    integration: { id } as Integration,
    merchant: { id: `m-${id}`, status: "active" } as Merchant,
  });
  return {
    keys,
    rows,
    row,
    calls: () => calls,
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** A feed whose notifications "arrive" (live) unless a test says otherwise. */
async function liveFeed(): Promise<ChangeFeed> {
  const feed = new ChangeFeed(async (f) => {
    f.setLive(true);
    return async () => {};
  });
  return feed;
}

describe("authentication cache", () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 1));

  it("answers a key from memory after its first lookup", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const cached = cachedApiKeys(fake.keys, await liveFeed(), { clock });
    const first = await cached.findByApiKey("k1");
    const second = await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 1);
    assert.equal(second, first, "the same row object, so its opened secret is reused too");
  });

  it("forgets everything when a merchant or integration changes", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const feed = await liveFeed();
    const cached = cachedApiKeys(fake.keys, feed, { clock });
    await cached.findByApiKey("k1");
    fake.rows.delete("k1"); // revoked
    feed.emit("integrations");
    assert.equal(await cached.findByApiKey("k1"), undefined);
    assert.equal(fake.calls(), 2);
  });

  it("keeps nothing while the feed is not live, and never keeps an unknown key", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const feed = await liveFeed();
    const cached = cachedApiKeys(fake.keys, feed, { clock });
    await cached.findByApiKey("nope");
    await cached.findByApiKey("nope");
    assert.equal(fake.calls(), 2, "unknown keys are looked up every time");
    feed.setLive(false);
    await cached.findByApiKey("k1");
    await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 4, "no memory while changes could go unheard");
    feed.setLive(true);
    await cached.findByApiKey("k1");
    await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 5);
  });

  it("does not keep a lookup that was in flight when a change was announced", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const feed = await liveFeed();
    const cached = cachedApiKeys(fake.keys, feed, { clock });
    const release = fake.hold();
    const inFlight = cached.findByApiKey("k1");
    feed.emit("merchants");
    release();
    assert.ok(await inFlight, "the request in flight still gets its answer");
    await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 2, "but the answer was not kept");
  });

  it("sends one lookup for the requests that miss a key together, the first burst or at expiry", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const local = new ManualClock(Date.UTC(2026, 2, 1));
    const cached = cachedApiKeys(fake.keys, await liveFeed(), { clock: local, ttlMs: 1000 });
    let release = fake.hold();
    const burst = Array.from({ length: 20 }, () => cached.findByApiKey("k1"));
    release();
    const answers = await Promise.all(burst);
    assert.equal(fake.calls(), 1, "twenty requests, one lookup");
    assert.ok(answers.every((answer) => answer === answers[0] && answer !== undefined));
    local.advance(1000);
    release = fake.hold();
    const atExpiry = Array.from({ length: 20 }, () => cached.findByApiKey("k1"));
    release();
    await Promise.all(atExpiry);
    assert.equal(fake.calls(), 2, "the expired entry is read again once");
    const unknown = await Promise.all([cached.findByApiKey("nope"), cached.findByApiKey("nope")]);
    assert.deepEqual(unknown, [undefined, undefined]);
    assert.equal(fake.calls(), 3, "an unknown key's lookup is shared while in flight, never kept");
    await cached.findByApiKey("nope");
    assert.equal(fake.calls(), 4);
  });

  it("does not hand a request that came after a change the lookup begun before it", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const feed = await liveFeed();
    const cached = cachedApiKeys(fake.keys, feed, { clock });
    const release = fake.hold();
    const before = cached.findByApiKey("k1");
    fake.rows.delete("k1"); // revoked, and announced while the first lookup is in flight
    feed.emit("integrations");
    const after = cached.findByApiKey("k1");
    release();
    assert.ok(await before, "the request in flight gets the row it read");
    assert.equal(await after, undefined, "the later request reads the revocation");
    assert.equal(fake.calls(), 2);
  });

  it("expires an entry after its time to live, at the exact edge", async () => {
    const fake = fakeKeys();
    fake.rows.set("k1", fake.row("i1"));
    const local = new ManualClock(Date.UTC(2026, 2, 1));
    const cached = cachedApiKeys(fake.keys, await liveFeed(), { clock: local, ttlMs: 1000 });
    await cached.findByApiKey("k1");
    local.advance(999);
    await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 1);
    local.advance(1);
    await cached.findByApiKey("k1");
    assert.equal(fake.calls(), 2);
  });

  it("holds at most maxEntries keys, dropping the least recently used", async () => {
    const fake = fakeKeys();
    for (const key of ["a", "b", "c"]) fake.rows.set(key, fake.row(key));
    const cached = cachedApiKeys(fake.keys, await liveFeed(), { clock, maxEntries: 2 });
    await cached.findByApiKey("a");
    await cached.findByApiKey("b");
    await cached.findByApiKey("a"); // a is now the most recent
    await cached.findByApiKey("c"); // drops b
    assert.equal(fake.calls(), 3);
    await cached.findByApiKey("a");
    await cached.findByApiKey("c");
    assert.equal(fake.calls(), 3, "a and c are kept");
    await cached.findByApiKey("b");
    assert.equal(fake.calls(), 4, "b was dropped");
  });
});

describe("authentication cache on the running service", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("looks up keys not yet kept together: fewer statements than keys, each request its own merchant", async () => {
    const merchants = [];
    for (let i = 0; i < 6; i += 1) {
      const credentials = await svc.newMerchant();
      await fundWallet(svc.deps, credentials.merchantId, BigInt(1_000 + i));
      merchants.push(credentials);
    }
    // A merchant created just now announced a change: nothing is kept, every key is looked up.
    const unknown = { ...merchants[0]!, apiKey: "sk_test_unknownkey0123456789abcdef" };
    const requests = [...merchants, unknown].map((credentials) =>
      svc.app.inject(signedInject(credentials, "GET", "/api/v1/balance")),
    );
    const { result: answers, statements } = await statementsOf(() => Promise.all(requests));
    const lookups = statements.filter((statement) => /from "integrations" as "i"/.test(statement));
    assert.ok(lookups.length < requests.length, `${lookups.length} lookups for ${requests.length} keys`);
    for (const [i, answer] of answers.slice(0, 6).entries()) {
      assert.equal(answer.statusCode, 200, answer.body);
      assert.equal(answer.json().data.walletBalance, 1_000 + i);
    }
    assert.equal(answers[6]!.statusCode, 401);
    assert.equal(answers[6]!.json().error.code, "INVALID_CREDENTIALS");
  });

  it("refuses a revoked key on the very next request of the process that revoked it", async () => {
    const credentials = await svc.newMerchant();
    const ok = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(ok.status, 200);
    const revoked = await svc.admin("DELETE", `/admin/v1/integrations/${credentials.integrationId}`);
    assert.equal(revoked.status, 200);
    const refused = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "INVALID_CREDENTIALS");
  });

  it("refuses a disabled merchant's key on the very next request", async () => {
    const credentials = await svc.newMerchant();
    assert.equal((await svc.request("GET", "/api/v1/balance", undefined, { credentials })).status, 200);
    const disabled = await svc.admin("PATCH", `/admin/v1/merchants/${credentials.merchantId}`, {
      status: "disabled",
    });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    const refused = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "AUTHENTICATION_ERROR");
  });

  it("hears a change made by another instance on the same store", async () => {
    const credentials = await svc.newMerchant();
    assert.equal((await svc.request("GET", "/api/v1/balance", undefined, { credentials })).status, 200);
    // Another process's dependencies over the same store, revoking through its own services.
    const other = svc.depsWith({});
    await other.db
      .updateTable("integrations")
      .set({ revoked_at: new Date() })
      .where("id", "=", credentials.integrationId)
      .execute();
    const refused = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
    assert.equal(refused.status, 401);
  });
});

describeOnPostgres("authentication cache across two server processes", () => {
  let svc: TestService;
  let cluster: Cluster;
  before(async () => {
    svc = await startService();
    cluster = await startCluster(svc.store.databaseUrl!, Date.now(), 2);
  });
  after(async () => {
    await cluster?.close();
    await svc?.close();
  });

  it("refuses a key revoked on one process on the other within one second", async () => {
    const credentials = await svc.newMerchant();
    const [first, second] = cluster.urls as [string, string];
    // Both processes have the key in memory.
    for (const url of [first, second]) {
      for (let i = 0; i < 3; i += 1) {
        assert.equal((await signedFetch(url, credentials, "GET", "/api/v1/balance")).status, 200);
      }
    }
    const revoke = await fetch(`${first}/admin/v1/integrations/${credentials.integrationId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(revoke.status, 200);
    assert.equal((await signedFetch(first, credentials, "GET", "/api/v1/balance")).status, 401);
    // The other process must refuse it within one second of the revoke's answer.
    const deadline = Date.now() + 1000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await signedFetch(second, credentials, "GET", "/api/v1/balance")).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, "the second process still accepted the key one second after the revoke");
  });

  it("refuses v1 on the other process within one second once the key is set to require v2", async () => {
    const credentials = await svc.newMerchant();
    const [first, second] = cluster.urls as [string, string];
    for (const url of [first, second]) {
      assert.equal(
        (await signedFetch(url, credentials, "GET", "/api/v1/balance", undefined, "v1")).status,
        200,
      );
    }
    const strict = await fetch(`${first}/admin/v1/integrations/${credentials.integrationId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ requireSignatureV2: true }),
    });
    assert.equal(strict.status, 200);
    assert.equal(
      (await signedFetch(first, credentials, "GET", "/api/v1/balance", undefined, "v1")).status,
      401,
    );
    assert.equal(
      (await signedFetch(first, credentials, "GET", "/api/v1/balance", undefined, "v2")).status,
      200,
    );
    const deadline = Date.now() + 1000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await signedFetch(second, credentials, "GET", "/api/v1/balance", undefined, "v1")).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, "the second process still accepted v1 one second after the change");
  });
});
