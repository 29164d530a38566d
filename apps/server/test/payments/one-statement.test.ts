/**
 * A create with fresh keys is one statement: the payment INSERT with the signed request's
 * replay record in a data-modifying CTE, committed on its own (payments/service.ts). Everything
 * else falls back to the rules in one transaction. These tests count what the driver is sent
 * and try each way the one statement can lose: a signature used before (alone and racing),
 * an idempotency key or a reference taken, a merchant not set up for the method.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { signedCreate } from "../helpers/signed.ts";
import { statementsOf } from "../helpers/statements.ts";

let sequence = 0;
const paymentBody = (overrides: Record<string, unknown> = {}) => {
  sequence += 1;
  return JSON.stringify({
    amount: "100.00",
    referenceId: `one-statement-${sequence}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: "1234567890",
    customerBankCode: "004",
    ...overrides,
  });
};

describe("create payment in one statement", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    // PromptPay reuse looks for an open payment under a lock first: the transaction's path.
    merchant = await svc.newMerchant({ promptpayReuse: false });
  });
  after(async () => {
    await svc?.close();
  });

  const signed = (body: string, credentials = merchant) => signedCreate(credentials, body);

  const count = async (table: "signature_uses" | "payments", where = sql`true`) =>
    Number(
      (
        await sql<{
          n: bigint;
        }>`select count(*)::bigint as n from ${sql.table(table)} where ${where}`.execute(svc.deps.db)
      ).rows[0]!.n,
    );

  it("sends one statement, which writes the payment and the replay record, and no BEGIN", async () => {
    await svc.app.inject(signed(paymentBody())); // warm-up: the key is in the auth cache
    const uses = await count("signature_uses");
    const { result, statements } = await statementsOf(() => svc.app.inject(signed(paymentBody())));
    assert.equal(result.statusCode, 201, result.body);
    assert.equal(statements.length, 1, statements.join("\n"));
    assert.match(statements[0]!, /^with "replay_record" as \(insert into "signature_uses"/);
    assert.match(statements[0]!, /insert into "payments"/);
    assert.equal(await count("signature_uses"), uses + 1);
  });

  it("refuses the same signed request again (401) and creates nothing", async () => {
    const body = paymentBody();
    const request = signed(body);
    assert.equal((await svc.app.inject(request)).statusCode, 201);
    const again = await svc.app.inject(request);
    assert.equal(again.statusCode, 401, again.body);
    assert.equal(await count("payments", sql`reference_id = ${JSON.parse(body).referenceId}`), 1);
  });

  it("of one signed request sent twice at once, one is created and one refused", async () => {
    for (let round = 0; round < 5; round += 1) {
      const body = paymentBody();
      const request = signed(body);
      const answers = await Promise.all([svc.app.inject(request), svc.app.inject(request)]);
      assert.deepEqual(
        answers.map((answer) => answer.statusCode).sort(),
        [201, 401],
        answers.map((a) => a.body).join("\n"),
      );
      assert.equal(await count("payments", sql`reference_id = ${JSON.parse(body).referenceId}`), 1);
    }
  });

  it("replays a taken idempotency key (200, the original), spending the new signature once", async () => {
    const body = paymentBody({ idempotencyKey: `one-statement-key-${sequence}` });
    const first = await svc.app.inject(signed(body));
    assert.equal(first.statusCode, 201);
    const uses = await count("signature_uses");
    // The same body signed again (a new timestamp): the key is taken, so the insert does nothing.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const retry = signed(body);
    const replayed = await svc.app.inject(retry);
    assert.equal(replayed.statusCode, 200, replayed.body);
    assert.equal(replayed.json().data.id, first.json().data.id);
    assert.equal(await count("signature_uses"), uses + 1, "the retry's signature is recorded once");
    assert.equal((await svc.app.inject(retry)).statusCode, 401, "and cannot be used again");
  });

  it("answers 409 for a taken reference, and the refused request's signature is spent", async () => {
    const body = paymentBody();
    assert.equal((await svc.app.inject(signed(body))).statusCode, 201);
    const other = JSON.stringify({ ...JSON.parse(body), amount: "200.00" });
    const request = signed(other);
    const conflict = await svc.app.inject(request);
    assert.equal(conflict.statusCode, 409, conflict.body);
    assert.equal((await svc.app.inject(request)).statusCode, 401);
    assert.equal(await count("payments", sql`reference_id = ${JSON.parse(body).referenceId}`), 1);
  });

  it("answers a method the merchant is not set up for in the rules' order (400)", async () => {
    const bare = await svc.newMerchant({ promptpayId: null, promptpayReuse: false });
    const body = paymentBody();
    const answer = await svc.app.inject(signed(body, bare));
    assert.equal(answer.statusCode, 400, answer.body);
    assert.match(answer.body, /promptpay is not available/);
    assert.equal(await count("payments", sql`reference_id = ${JSON.parse(body).referenceId}`), 0);
  });

  it("many concurrent creates with fresh keys are all created, each once", async () => {
    const bodies = Array.from({ length: 20 }, () => paymentBody());
    const answers = await Promise.all(bodies.map((body) => svc.app.inject(signed(body))));
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      bodies.map(() => 201),
    );
    const ids = new Set(answers.map((answer) => answer.json().data.id));
    assert.equal(ids.size, bodies.length);
  });
});
