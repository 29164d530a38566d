/**
 * Named operator tokens and the audit log (CONTRACT 2): tokens are created (shown once, kept
 * hashed), listed without secrets and revoked one by one at once, on every process; the payout
 * desk records the named operator; every state-changing action lands in an append-only log
 * (the database refuses UPDATE, DELETE and TRUNCATE), readable with filters and pages.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { buildApp } from "../../src/app.ts";
import { AUDITED_ROUTES } from "../../src/audit/routes.ts";
import { insertAuditEntry } from "../../src/audit/store.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;

before(async () => {
  svc = await startService({ env: { SATANG_PAYOUTS: "manual", SANDBOX_PAYOUT_PICKUP: "automatic" } });
});
after(async () => {
  await svc?.close();
});

/** Sends `head` (its lines, without the blank line) and `body` on a socket; the whole answer. */
async function rawRequest(head: string, body: string): Promise<string> {
  if (!svc.app.server.listening) await svc.app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = svc.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
  });
}

let counter = 0;
async function newToken(name = `operator-${process.pid}-${++counter}`) {
  const res = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; name: string; token: string; tokenPrefix: string };
}

async function auditOf(query: string) {
  const res = await svc.admin("GET", `/admin/v1/audit-log?${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { data: any[]; total: number; totalPages: number };
}

describe("named operator tokens", () => {
  it("creates a token shown once, keeps only its hash, and lists it without the secret", async () => {
    const created = await newToken();
    assert.match(created.token, /^sat_op_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.token.slice(0, created.tokenPrefix.length), created.tokenPrefix);
    const row = await svc.deps.db
      .selectFrom("operator_tokens")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_sha256, sha256Hex(created.token), "stored as its SHA-256");
    assert.ok(!JSON.stringify(row).includes(created.token), "the token itself is not stored");

    const list = await svc.admin("GET", "/admin/v1/operator-tokens?limit=100");
    assert.equal(list.status, 200);
    const listed = list.body.data.data.find((t: any) => t.id === created.id);
    assert.equal(listed.name, created.name);
    assert.equal(listed.createdBy, "admin-token");
    assert.equal(listed.revokedAt, null);
    assert.ok(!JSON.stringify(list.body).includes(created.token), "no secret in the list");
  });

  it("acts under its own name, and stops at once after a revoke while ADMIN_TOKEN keeps working", async () => {
    const created = await newToken();
    const merchant = await svc.admin("POST", "/admin/v1/merchants", { name: "Named Shop" }, created.token);
    assert.equal(merchant.status, 201);
    const entries = await auditOf(`recordId=${merchant.body.data.id}`);
    assert.equal(entries.data[0].actorName, created.name);
    // The actor filter compares names as names are compared: without case.
    for (const actor of [created.name, created.name.toUpperCase()]) {
      const byActor = await auditOf(`actor=${encodeURIComponent(actor)}&recordId=${merchant.body.data.id}`);
      assert.equal(byActor.total, 1, actor);
    }
    assert.ok((await auditOf("actor=ADMIN-TOKEN&limit=1")).total > 0, "admin-token in any case");
    assert.equal(entries.data[0].actorKind, "operator_token");
    assert.equal(entries.data[0].actorId, created.id);

    // Another process (its own app over the same database) sees the revoke on its next request.
    const other = await buildApp(svc.depsWith({}));
    try {
      const revoked = await svc.admin("POST", `/admin/v1/operator-tokens/${created.id}/revoke`);
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.data.revokedAt);
      for (const app of [svc.app, other]) {
        const refused = await app.inject({
          method: "GET",
          url: `/admin/v1/merchants/${merchant.body.data.id}`,
          headers: { authorization: `Bearer ${created.token}` },
        });
        assert.equal(refused.statusCode, 401);
        assert.equal(refused.json().error.code, "INVALID_CREDENTIALS");
      }
    } finally {
      await other.close();
    }
    const still = await svc.admin(
      "GET",
      `/admin/v1/merchants/${merchant.body.data.id}`,
      undefined,
      ADMIN_TOKEN,
    );
    assert.equal(still.status, 200, "ADMIN_TOKEN stays the bootstrap token");
    const again = await svc.admin("POST", `/admin/v1/operator-tokens/${created.id}/revoke`);
    assert.equal(
      again.body.data.revokedAt,
      (await svc.admin("GET", "/admin/v1/operator-tokens?limit=100")).body.data.data.find(
        (t: any) => t.id === created.id,
      ).revokedAt,
    );
  });

  it("treats names that differ only in case or in compatibility forms as one name, under concurrent creates", async () => {
    const base = `Somchai-${process.pid}-${++counter}`;
    const created = await newToken(base);
    for (const name of [base.toLowerCase(), base.toUpperCase()]) {
      const taken = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
      assert.equal(taken.status, 409, name);
      assert.equal(taken.body.error.metadata.reason, "name_taken", name);
    }
    // Fullwidth letters fold to their ASCII forms (NFKC): the name is stored as people read it.
    const fullwidth = `ｗｉｄｅ-${process.pid}-${counter}`;
    const wide = await newToken(fullwidth);
    assert.equal(wide.name, `wide-${process.pid}-${counter}`);
    const again = await svc.admin("POST", "/admin/v1/operator-tokens", {
      name: `WIDE-${process.pid}-${counter}`,
    });
    assert.equal(again.status, 409);
    assert.notEqual(created.id, wide.id);

    // Two processes creating case variants of one new name at once: exactly one is made.
    const other = await buildApp(svc.depsWith({}));
    try {
      for (let round = 0; round < 5; round++) {
        const name = `Race-${process.pid}-${++counter}`;
        const answers = await Promise.all(
          [svc.app, other, svc.app, other].map((app, i) =>
            app.inject({
              method: "POST",
              url: "/admin/v1/operator-tokens",
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
              payload: { name: i % 2 === 0 ? name : name.toLowerCase() },
            }),
          ),
        );
        const statuses = answers.map((a) => a.statusCode).sort();
        assert.deepEqual(statuses, [201, 409, 409, 409], name);
      }
    } finally {
      await other.close();
    }
  });

  it("refuses a taken name, the reserved admin-token, a blank name and an unknown id", async () => {
    const created = await newToken();
    const taken = await svc.admin("POST", "/admin/v1/operator-tokens", { name: created.name });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.metadata.reason, "name_taken");
    assert.equal(
      taken.body.error.message,
      "An operator token with this name exists (names are never reused)",
    );
    for (const name of ["admin-token", "Admin-Token", "ADMIN-TOKEN"]) {
      const reserved = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
      assert.equal(reserved.status, 409, name);
      assert.equal(reserved.body.error.code, "STATE_CONFLICT", name);
      assert.deepEqual(reserved.body.error.metadata, { reason: "name_reserved" }, name);
      assert.equal(reserved.body.error.message, "admin-token is reserved for the ADMIN_TOKEN operator");
    }
    for (const name of [
      "",
      " padded",
      "x".repeat(101),
      "ev\u001b[2K\u001b[1Gil",
      "Somchai\u200b",
      "a\u202eb",
      // 100 characters as sent, 400 once folded (NFKC makes each "㍿" four): the bound holds for the kept name.
      "\u337f".repeat(100),
      "\ufdfa".repeat(100),
    ]) {
      const bad = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
      assert.equal(bad.status, 400, JSON.stringify(name));
      assert.equal(bad.body.error.metadata.field, "name");
    }
    const longest = await svc.admin("POST", "/admin/v1/operator-tokens", {
      name: `${"y".repeat(99)}${counter}`.slice(0, 100),
    });
    assert.equal(longest.status, 201, "100 characters is the longest name");
    const unknown = await svc.admin(
      "POST",
      "/admin/v1/operator-tokens/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84/revoke",
    );
    assert.equal(unknown.status, 404);
    const garbage = await svc.admin("POST", "/admin/v1/operator-tokens/not-an-id/revoke");
    assert.equal(garbage.status, 404);
  });

  it("answers 401 to a wrong token of the right shape", async () => {
    const res = await svc.admin("GET", "/admin/v1/operator-tokens", undefined, `sat_op_${"A".repeat(43)}`);
    assert.equal(res.status, 401);
  });
});

describe("the payout desk records the named operator", () => {
  it("keeps the token's name as recordedBy and in the audit log", async () => {
    const operator = await newToken(`desk-${process.pid}`);
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const withdraw = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "100.00" }), {
      credentials: shop,
    });
    assert.equal(withdraw.status, 201, JSON.stringify(withdraw.body));
    const batch = await svc.admin(
      "POST",
      "/admin/v1/payout-batches",
      { merchantId: shop.merchantId },
      operator.token,
    );
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const raw = await svc.app.inject({
      method: "POST",
      url: `/admin/v1/payout-batches/${batch.body.data.id}/items/${withdraw.body.data.id}/outcome`,
      headers: {
        authorization: `Bearer ${operator.token}`,
        "content-type": "application/json",
        "x-satang-client": "desk",
        "x-forwarded-for": "198.51.100.7",
      },
      payload: JSON.stringify({ outcome: "paid", bankReference: `SCB-${process.pid}` }),
      remoteAddress: "192.0.2.44",
    });
    assert.equal(raw.statusCode, 200, raw.body);
    assert.equal(raw.json().data.items[0].recordedBy, operator.name);
    assert.equal(raw.json().data.items[0].recordedVia, "desk");

    const entries = await auditOf(`recordId=${withdraw.body.data.id}&action=recordPayoutOutcome`);
    assert.equal(entries.total, 1);
    const entry = entries.data[0];
    assert.equal(entry.actorName, operator.name);
    assert.equal(entry.via, "desk");
    assert.equal(entry.recordType, "withdraw");
    assert.equal(entry.merchantId, shop.merchantId);
    assert.equal(entry.clientAddress, "192.0.2.44", "the connection's address, not a header's say-so");
    assert.equal(entry.requestId, raw.headers["x-request-id"]);
  });
});

describe("the audit log", () => {
  it("lists entries newest first, filtered by actor and action, in pages that never repeat", async () => {
    const operator = await newToken();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await svc.admin("POST", "/admin/v1/merchants", { name: `Paged ${i}` }, operator.token);
      ids.push(res.body.data.id);
    }
    const all = await auditOf(`actor=${operator.name}&action=createMerchant&limit=2`);
    assert.equal(all.total, 5);
    assert.equal(all.totalPages, 3);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const pageOf = await auditOf(`actor=${operator.name}&action=createMerchant&limit=2&page=${page}`);
      seen.push(...pageOf.data.map((e) => e.recordId));
    }
    assert.deepEqual(seen, [...ids].reverse(), "newest first, each once");
    const beyond = await auditOf(`actor=${operator.name}&page=9`);
    assert.equal(beyond.data.length, 0);
    assert.equal(beyond.total, 5, "its 5 creates (the token was created by admin-token)");
  });

  it("refuses invalid list parameters with the field", async () => {
    for (const [query, field] of [
      ["page=0", "page"],
      ["limit=101", "limit"],
      ["dateFrom=2026-02-30", "dateFrom"],
      ["merchantId=nope", "merchantId"],
      ["sortOrder=up", "sortOrder"],
      ["sortBy=amount", "sortBy"],
      ["sortBy=actorName", "sortBy"],
      ["colour=red", "colour"],
    ]) {
      const res = await svc.admin("GET", `/admin/v1/audit-log?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.metadata.field, field, query);
    }
  });

  it("sorts by createdAt either way with ties broken by id, and refuses any other sortBy", async () => {
    const action = `sortProbe${process.pid}`;
    const earlier = new Date("2026-03-01T10:00:00.000Z");
    const later = new Date("2026-03-01T10:00:00.001Z");
    // Two entries at each of two instants, so the order within an instant is the id's.
    const rows = [earlier, earlier, later, later].map((at) => ({ id: randomUUID(), at }));
    for (const { id, at } of rows) {
      await insertAuditEntry(svc.deps.db, {
        id,
        created_at: at,
        actor_kind: "admin_token",
        actor_id: null,
        actor_name: "admin-token",
        via: "api",
        action,
        record_type: "merchant",
        record_id: null,
        merchant_id: null,
        request_id: `req-${id}`,
        client_address: "192.0.2.1",
      });
    }
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    const ascending = [
      ...rows.filter((row) => row.at === earlier).sort(byId),
      ...rows.filter((row) => row.at === later).sort(byId),
    ].map((row) => row.id);
    const ids = async (query: string) => (await auditOf(`action=${action}&${query}`)).data.map((e) => e.id);

    assert.deepEqual(await ids("sortBy=createdAt&sortOrder=asc"), ascending);
    assert.deepEqual(await ids("sortBy=createdAt&sortOrder=desc"), [...ascending].reverse());
    assert.deepEqual(await ids("sortBy=createdAt"), [...ascending].reverse(), "desc by default");
    assert.deepEqual(await ids(""), [...ascending].reverse());
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++)
      paged.push(...(await ids(`sortBy=createdAt&sortOrder=asc&limit=1&page=${page}`)));
    assert.deepEqual(paged, ascending, "pages of one never repeat or skip an entry");

    const refused = await svc.admin("GET", "/admin/v1/audit-log?sortBy=action");
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "VALIDATION_ERROR");
    assert.equal(refused.body.error.metadata.field, "sortBy");
  });

  it("names each action's request by an id the service made, whatever X-Request-Id the actor sent", async () => {
    const operator = await newToken();
    const forged = "forged-id-123";
    const made: Array<{ id: string; requestId: string }> = [];
    for (const url of ["/admin/v1/merchants", "//admin/v1/merchants", "/%61dmin/v1/merchants"]) {
      const res = await svc.app.inject({
        method: "POST",
        url,
        headers: {
          authorization: `Bearer ${operator.token}`,
          "content-type": "application/json",
          "x-request-id": forged,
        },
        payload: JSON.stringify({ name: `Forged request id ${url}` }),
      });
      if (res.statusCode !== 201) {
        // A spelling the router does not take for the operator API changed nothing.
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        continue;
      }
      const requestId = String(res.headers["x-request-id"]);
      assert.notEqual(requestId, forged, url);
      assert.match(requestId, /^[0-9a-f-]{36}$/);
      made.push({ id: res.json().data.id, requestId });
    }
    assert.ok(made.length >= 1);
    // An absolute-form target reaches the operator API too, and gets the service's id as well.
    const absolute = await rawRequest(
      `POST http://127.0.0.1/admin/v1/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${operator.token}\r\n` +
        `Content-Type: application/json\r\nX-Request-Id: ${forged}\r\nConnection: close\r\n`,
      JSON.stringify({ name: "Forged request id, absolute form" }),
    );
    assert.match(absolute, /^HTTP\/1\.1 201 /);
    const absoluteId = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(absolute)?.[1];
    assert.ok(absoluteId && absoluteId !== forged, absolute);
    made.push({
      id: JSON.parse(absolute.slice(absolute.indexOf("\r\n\r\n") + 4)).data.id,
      requestId: absoluteId,
    });
    for (const { id, requestId } of made) {
      const entries = await auditOf(`recordId=${id}`);
      assert.deepEqual(
        entries.data.map((entry) => entry.requestId),
        [requestId],
      );
    }
    // The dashboard's login is recorded too: its request id is the service's as well.
    const login = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      headers: { "content-type": "application/json", "x-request-id": forged },
      payload: JSON.stringify({ email: "nobody@shop.example", password: "not-the-password" }),
    });
    assert.equal(login.statusCode, 401);
    assert.notEqual(login.headers["x-request-id"], forged);
    // The merchant API keeps the caller's own id (operations.md).
    const merchantApi = await svc.app.inject({
      method: "GET",
      url: "/api/v1/balance",
      headers: { "x-request-id": forged },
    });
    assert.equal(merchantApi.headers["x-request-id"], forged);
  });

  it("is append-only in the database: UPDATE, DELETE and TRUNCATE are refused", async () => {
    await svc.admin("POST", "/admin/v1/merchants", { name: "Append only" });
    const before = await svc.deps.db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<bigint>().as("n"))
      .executeTakeFirstOrThrow();
    await assert.rejects(
      sql`UPDATE audit_log SET actor_name = 'someone else'`.execute(svc.deps.db),
      /append-only/,
    );
    await assert.rejects(sql`DELETE FROM audit_log`.execute(svc.deps.db), /append-only/);
    await assert.rejects(sql`TRUNCATE audit_log`.execute(svc.deps.db), /append-only/);
    const afterwards = await svc.deps.db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<bigint>().as("n"))
      .executeTakeFirstOrThrow();
    assert.equal(afterwards.n, before.n);
  });

  it("records nothing for a refused or failed action", async () => {
    const before = (await auditOf("action=updateMerchant")).total;
    const bad = await svc.admin("PATCH", "/admin/v1/merchants/5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84", {
      name: "x",
    });
    assert.equal(bad.status, 404);
    const unauthenticated = await svc.admin("POST", "/admin/v1/merchants", { name: "x" }, "wrong");
    assert.equal(unauthenticated.status, 401);
    assert.equal((await auditOf("action=updateMerchant")).total, before);
  });

  it("lists every state-changing route of the operator API and the dashboard", () => {
    const routes = svc.app.printRoutes({ commonPrefix: false });
    for (const key of Object.keys(AUDITED_ROUTES)) {
      const path = key.split(" ")[1]!;
      assert.ok(routes.includes(path.split("/").pop()!), `${key} is a route of the app`);
    }
  });
});
