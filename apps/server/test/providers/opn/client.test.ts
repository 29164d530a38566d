import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { OPN_API_VERSION, OpnClient, opnAmount, satangOf } from "../../../src/providers/opn/client.ts";
import { OpnSimulator } from "../../helpers/opn/simulator.ts";

const SECRET = "skey_test_client";

describe("Opn amounts: satang at both ends", () => {
  it("sends 1 satang and 150,000,000 satang as the same whole numbers", () => {
    assert.equal(opnAmount(1n), 1);
    assert.equal(opnAmount(150_000_000n), 150_000_000);
    assert.equal(opnAmount(BigInt(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  });

  it("refuses to send zero, a negative amount or one a JSON number cannot hold exactly", () => {
    assert.throws(() => opnAmount(0n), RangeError);
    assert.throws(() => opnAmount(-1n), RangeError);
    assert.throws(() => opnAmount(BigInt(Number.MAX_SAFE_INTEGER) + 1n), RangeError);
  });

  it("reads whole amounts back as satang and refuses fractions, text and negatives", () => {
    assert.equal(satangOf(1), 1n);
    assert.equal(satangOf(150_000_000), 150_000_000n);
    assert.equal(satangOf(0), 0n);
    assert.equal(satangOf(1.5), null);
    assert.equal(satangOf("100"), null);
    assert.equal(satangOf(-1), null);
    assert.equal(satangOf(Number.MAX_SAFE_INTEGER + 2), null);
    assert.equal(satangOf(null), null);
  });
});

describe("Opn client: requests and error mapping", () => {
  let sim: OpnSimulator;
  let client: OpnClient;
  before(async () => {
    sim = await OpnSimulator.start({ secretKey: SECRET });
    client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: 500 });
  });
  after(() => sim.close());

  it("authenticates with the secret key as the Basic user, pins Omise-Version and posts a nested form", async () => {
    const answer = await client.post("/charges", {
      amount: opnAmount(150_000_000n),
      currency: "thb",
      source: { type: "promptpay" },
      metadata: { satang_reference: "REF1" },
    });
    assert.equal(answer.ok, true, JSON.stringify(answer));
    const request = sim.requests.at(-1)!;
    assert.equal(request.headers.authorization, `Basic ${Buffer.from(`${SECRET}:`).toString("base64")}`);
    assert.equal(request.headers["omise-version"], OPN_API_VERSION);
    assert.deepEqual(request.body, {
      amount: "150000000",
      currency: "thb",
      source: { type: "promptpay" },
      metadata: { satang_reference: "REF1" },
    });
  });

  it("sends a 1-satang charge as amount 1 and reads Opn's refusal with its code", async () => {
    const answer = await client.post("/charges", {
      amount: opnAmount(1n),
      currency: "thb",
      source: { type: "promptpay" },
    });
    assert.equal(sim.requests.at(-1)!.body.amount, "1");
    assert.deepEqual(answer.ok ? null : { kind: answer.kind, code: "code" in answer ? answer.code : null }, {
      kind: "refused",
      code: "invalid_amount",
    });
  });

  it("maps a wrong secret key to a refusal with Opn's authentication_failure", async () => {
    const wrong = new OpnClient({ baseUrl: sim.url, secretKey: "skey_test_wrong", timeoutMs: 500 });
    const answer = await wrong.get("/charges/chrg_test_x");
    assert.equal(answer.ok, false);
    if (answer.ok || answer.kind !== "refused") assert.fail(JSON.stringify(answer));
    assert.equal(answer.status, 401);
    assert.equal(answer.code, "authentication_failure");
    assert.doesNotMatch(JSON.stringify(answer), /skey_test_wrong/);
  });

  it("maps 404 to a refusal with not_found", async () => {
    const answer = await client.get("/charges/chrg_test_unknown");
    if (answer.ok || answer.kind !== "refused") assert.fail(JSON.stringify(answer));
    assert.equal(answer.code, "not_found");
  });

  it("maps 500 and 503 to unavailable", async () => {
    for (const status of [500, 503]) {
      sim.failNext({ status });
      const answer = await client.get("/charges/chrg_test_any");
      if (answer.ok || answer.kind !== "unavailable") assert.fail(JSON.stringify(answer));
      assert.equal(answer.status, status);
      assert.equal(answer.retryAfterMs, null);
    }
  });

  it("maps 429 to unavailable and honours Retry-After in seconds and as a date", async () => {
    sim.failNext({ status: 429, code: "too_many_requests", retryAfter: "7" });
    const seconds = await client.get("/charges/chrg_test_any");
    if (seconds.ok || seconds.kind !== "unavailable") assert.fail(JSON.stringify(seconds));
    assert.equal(seconds.retryAfterMs, 7_000);
    sim.failNext({ status: 429, retryAfter: new Date(Date.now() + 60_000).toUTCString() });
    const date = await client.get("/charges/chrg_test_any");
    if (date.ok || date.kind !== "unavailable") assert.fail(JSON.stringify(date));
    assert.ok(
      date.retryAfterMs !== null && date.retryAfterMs > 50_000 && date.retryAfterMs <= 60_000,
      String(date.retryAfterMs),
    );
  });

  it("maps no answer within the timeout to unavailable, naming the bound", async () => {
    const created = await client.post<{ id: string }>("/recipients", {
      name: "Somchai",
      type: "individual",
      bank_account: { brand: "kbank", number: "1234567890", name: "Somchai" },
    });
    if (!created.ok) assert.fail(JSON.stringify(created));
    sim.verifyRecipient(created.body.id);
    sim.hangNextTransferCreate(1_500);
    const answer = await client.post("/transfers", { amount: 100, recipient: created.body.id });
    if (answer.ok || answer.kind !== "unavailable") assert.fail(JSON.stringify(answer));
    assert.match(answer.error, /no answer within 500 ms/);
  });

  it("maps a refused connection to unavailable", async () => {
    const closed = await OpnSimulator.start({ secretKey: SECRET });
    const url = closed.url;
    await closed.close();
    const answer = await new OpnClient({ baseUrl: url, secretKey: SECRET, timeoutMs: 500 }).get("/charges/x");
    if (answer.ok || answer.kind !== "unavailable") assert.fail(JSON.stringify(answer));
    assert.match(answer.error, /network error/);
  });

  it("maps a 200 whose body is not a JSON object to unavailable", async () => {
    const html = new OpnClient({
      baseUrl: "http://opn.invalid",
      secretKey: SECRET,
      timeoutMs: 500,
      fetch: async () => new Response("<html>maintenance</html>", { status: 200 }),
    });
    const answer = await html.get("/charges/x");
    if (answer.ok || answer.kind !== "unavailable") assert.fail(JSON.stringify(answer));
    assert.match(answer.error, /not a JSON object/);
  });

  it("sends nothing once the caller's signal is aborted", async () => {
    const before = sim.requests.length;
    const answer = await client.get("/charges/x", {}, { signal: AbortSignal.abort() });
    assert.equal(answer.ok, false);
    assert.equal(sim.requests.length, before);
  });
});
