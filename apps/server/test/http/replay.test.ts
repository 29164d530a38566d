/**
 * A signature is accepted for one write only, whoever saw it first:
 * - a v1 signature captured from a read (GET /balance: empty body, so the same signature
 *   verifies on any empty-body write) never authorizes a write afterwards;
 * - a create's replay record commits in the create's own transaction (one commit), and a
 *   create that fails still spends its signature.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import { sql } from "kysely";
import { startService, type TestService } from "../helpers/harness.ts";
import { fundWallet } from "../helpers/ledger.ts";
import { createPayment } from "../helpers/lifecycle.ts";
import { statementsOf } from "../helpers/statements.ts";
import { withdrawBody } from "../helpers/withdraws.ts";

describe("replay of signatures across reads and writes", () => {
  let svc: TestService;
  let endpointId: string;
  before(async () => {
    svc = await startService({
      deps: { webhooks: { resolve: async () => [{ address: "93.184.216.34", family: 4 }] } },
    });
    const created = await svc.request("POST", "/api/v1/webhook-endpoints", {
      url: "https://hooks.example.com/a",
      events: ["payment.received"],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    endpointId = created.body.data.id;
  });
  after(async () => {
    await svc?.close();
  });

  /** The headers of a v1-signed GET /api/v1/balance, after the GET itself was answered. */
  const capturedFromBalance = async () => {
    const headers = signRequest({ ...svc.credentials, body: "" });
    const read = await svc.app.inject({ method: "GET", url: "/api/v1/balance", headers });
    assert.equal(read.statusCode, 200, read.body);
    return headers;
  };

  for (const [name, method, path] of [
    ["rotate-secret", "POST", () => `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`],
    ["delete", "DELETE", () => `/api/v1/webhook-endpoints/${endpointId}`],
  ] as const) {
    it(`refuses a GET's v1 signature on ${name} (401), and the endpoint is unchanged`, async () => {
      const headers = await capturedFromBalance();
      const replay = await svc.app.inject({ method, url: path(), headers });
      assert.equal(replay.statusCode, 401, replay.body);
      assert.equal(replay.json().error.code, "INVALID_CREDENTIALS");
      const still = await svc.request("GET", `/api/v1/webhook-endpoints/${endpointId}`);
      assert.equal(still.status, 200);
    });
  }

  it("refuses a GET's v1 signature on a withdraw cancel", async () => {
    await fundWallet(svc.deps, svc.credentials.merchantId, 1_000_000n);
    const withdraw = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "10.00" }));
    assert.equal(withdraw.status, 201, JSON.stringify(withdraw.body));
    const headers = await capturedFromBalance();
    const replay = await svc.app.inject({
      method: "POST",
      url: `/api/v1/withdraws/${withdraw.body.data.id}/cancel`,
      headers,
    });
    assert.equal(replay.statusCode, 401, replay.body);
    const current = await svc.request("GET", `/api/v1/withdraws/${withdraw.body.data.id}`);
    assert.equal(current.body.data.status, "pending");
  });

  for (const [name, url, status] of [
    ["an unknown route", "/api/v1/nonexistent", 404],
    ["the OpenAPI document", "/api/v1/openapi.json", 200],
    ["an unknown admin route", "/admin/v1/nonexistent", 404],
  ] as const) {
    it(`refuses on a write the v1 signature of a GET of ${name}, which no signed route authenticated`, async () => {
      const payment = await createPayment(svc, svc.credentials, { paymentMethod: "bank_transfer" });
      const headers = signRequest({ ...svc.credentials, body: "" });
      const read = await svc.app.inject({ method: "GET", url, headers });
      assert.equal(read.statusCode, status, read.body);
      const replay = await svc.app.inject({
        method: "POST",
        url: `/api/v1/payments/${payment.id}/cancel`,
        headers,
      });
      assert.equal(replay.statusCode, 401, replay.body);
      assert.equal(replay.json().error.code, "INVALID_CREDENTIALS");
      const current = await svc.request("GET", `/api/v1/payments/${payment.id}`);
      assert.equal(current.body.data.status, "requires_action");
    });
  }

  it("still lets a read repeat its own signature", async () => {
    const headers = await capturedFromBalance();
    const again = await svc.app.inject({ method: "GET", url: "/api/v1/balance", headers });
    assert.equal(again.statusCode, 200);
  });

  it("records concurrent v1 reads' signatures in fewer statements than reads, and refuses each on a write", async () => {
    const reads = Array.from({ length: 12 }, (_, i) =>
      signRequest({ ...svc.credentials, body: "", timestamp: Date.now() - 1000 * (i + 1) }),
    );
    // One read's signature twice in the same group: both answered, recorded once.
    const sent = [...reads, reads[0]!];
    const { result, statements } = await statementsOf(() =>
      Promise.all(sent.map((headers) => svc.app.inject({ method: "GET", url: "/api/v1/balance", headers }))),
    );
    assert.deepEqual(
      result.map((r) => r.statusCode),
      sent.map(() => 200),
    );
    const records = statements.filter((text) => /insert into "signature_uses"/.test(text));
    assert.ok(
      records.length < reads.length,
      `${records.length} replay-record INSERTs for ${reads.length} reads`,
    );
    for (const headers of reads) {
      const replay = await svc.app.inject({
        method: "POST",
        url: `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`,
        headers,
      });
      assert.equal(replay.statusCode, 401, replay.body);
    }
  });

  it("of one signed write sent twice at once, one is answered and one refused", async () => {
    const path = `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`;
    const headers = signRequest({ ...svc.credentials, body: "", method: "POST", path, version: "v2" });
    const answers = await Promise.all([
      svc.app.inject({ method: "POST", url: path, headers }),
      svc.app.inject({ method: "POST", url: path, headers }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [200, 401],
      answers.map((a) => a.body).join("\n"),
    );
  });

  it("records nothing for a v2 read: its signature names the method and path", async () => {
    const before = await countUses(svc);
    const headers = signRequest({
      ...svc.credentials,
      body: "",
      method: "GET",
      path: "/api/v1/balance",
      version: "v2",
    });
    assert.equal((await svc.app.inject({ method: "GET", url: "/api/v1/balance", headers })).statusCode, 200);
    assert.equal(await countUses(svc), before);
  });
});

async function countUses(svc: TestService): Promise<number> {
  const result = await sql<{ n: bigint }>`select count(*)::bigint as n from signature_uses`.execute(
    svc.deps.db,
  );
  return Number(result.rows[0]!.n);
}

describe("replay record of a create, in the create's own transaction", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  const paymentBody = (referenceId: string) =>
    JSON.stringify({
      amount: "100.00",
      referenceId,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: "1234567890",
      customerBankCode: "004",
    });

  it("records the signature with the payment, and refuses the same request again", async () => {
    const body = paymentBody("replay-tx-1");
    const headers = {
      ...signRequest({ ...svc.credentials, body, method: "POST", path: "/api/v1/payments", version: "v2" }),
      "content-type": "application/json",
    };
    const request = { method: "POST" as const, url: "/api/v1/payments", payload: body, headers };
    const before = await countUses(svc);
    assert.equal((await svc.app.inject(request)).statusCode, 201);
    assert.equal(await countUses(svc), before + 1);
    const again = await svc.app.inject(request);
    assert.equal(again.statusCode, 401, again.body);
    assert.equal(await countUses(svc), before + 1);
  });

  it("spends the signature of a create that fails, so it cannot succeed later", async () => {
    // Refused before its transaction ever ran (400): its signature is recorded all the same.
    const body = JSON.stringify({ amount: "abc" });
    const headers = {
      ...signRequest({ ...svc.credentials, body, method: "POST", path: "/api/v1/payments", version: "v2" }),
      "content-type": "application/json",
    };
    const request = { method: "POST" as const, url: "/api/v1/payments", payload: body, headers };
    const before = await countUses(svc);
    const first = await svc.app.inject(request);
    assert.equal(first.statusCode, 400, first.body);
    assert.equal(await countUses(svc), before + 1, "the refused create's signature is recorded");
    assert.equal((await svc.app.inject(request)).statusCode, 401);
  });

  it("refuses a create that reuses a write's signature: a withdraw too", async () => {
    await fundWallet(svc.deps, svc.credentials.merchantId, 1_000_000n);
    const body = JSON.stringify(withdrawBody({ amount: "10.00" }));
    const headers = {
      ...signRequest({ ...svc.credentials, body, method: "POST", path: "/api/v1/withdraws", version: "v2" }),
      "content-type": "application/json",
    };
    const request = { method: "POST" as const, url: "/api/v1/withdraws", payload: body, headers };
    const [a, b] = await Promise.all([svc.app.inject(request), svc.app.inject(request)]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [201, 401], `${a.body} ${b.body}`);
    const rows = await sql<{ n: bigint }>`select count(*)::bigint as n from withdraws where reference_id = ${
      JSON.parse(body).referenceId
    }`.execute(svc.deps.db);
    assert.equal(Number(rows.rows[0]!.n), 1);
  });
});
