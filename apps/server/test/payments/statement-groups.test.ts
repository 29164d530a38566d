/**
 * Creates that arrive together go in one INSERT and one commit, retrieves in one SELECT
 * (payments/store.ts `insertPaymentGrouped` and `findPaymentGrouped`, db/statement-group.ts),
 * lists in one round trip with one statement per distinct page (db/pages.ts).
 * Each test sends its requests at once, checks from the statements that they did go in one
 * group, and that every request answered as it would have alone: a signature used twice, a
 * reference or an idempotency key taken by another write of the same group, a payment of another
 * merchant asked for in the same group.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { signedCreate, signedInject } from "../helpers/signed.ts";
import { statementsOf } from "../helpers/statements.ts";
import { describeOnPostgres } from "../helpers/store.ts";

let sequence = 0;
const paymentBody = (overrides: Record<string, unknown> = {}) => {
  sequence += 1;
  return JSON.stringify({
    amount: "100.00",
    referenceId: `group-${sequence}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: "1234567890",
    customerBankCode: "004",
    ...overrides,
  });
};

/** The payments a statement inserts: its parameters over a signed payment's 35 (31 columns + 4). */
function paymentsInserted(statement: string): number {
  if (!/insert into "payments"/.test(statement)) return 0;
  const highest = Math.max(...[...statement.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  return highest / 37;
}

describe("payments: concurrent creates and retrieves, each group in one statement", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await svc.newMerchant({ promptpayReuse: false });
    await svc.app.inject(signed(paymentBody())); // the key is in the auth cache
  });
  after(async () => {
    await svc?.close();
  });

  const signed = (body: string) => signedCreate(merchant, body);

  const paymentsWith = async (referenceId: string) =>
    Number(
      (
        await sql<{ n: bigint }>`select count(*)::bigint as n from payments
          where merchant_id = ${merchant.merchantId} and reference_id = ${referenceId}`.execute(svc.deps.db)
      ).rows[0]!.n,
    );

  /** Sends the requests at once: their answers, and the INSERTs of payments in the order sent. */
  async function atOnce(requests: ReturnType<typeof signedCreate>[]) {
    const { result, statements } = await statementsOf(() =>
      Promise.all(requests.map((request) => svc.app.inject(request))),
    );
    const inserts = statements.map(paymentsInserted).filter((n) => n > 0);
    return { answers: result, inserts };
  }

  it("sends twenty creates in fewer statements than requests, and creates each once", async () => {
    const bodies = Array.from({ length: 20 }, () => paymentBody());
    const { answers, inserts } = await atOnce(bodies.map(signed));
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      bodies.map(() => 201),
      answers.map((answer) => answer.body).join("\n"),
    );
    assert.ok(inserts.length < bodies.length, `${inserts.length} INSERTs for ${bodies.length} creates`);
    assert.equal(
      inserts.reduce((sum, n) => sum + n, 0),
      bodies.length,
    );
    assert.equal(new Set(answers.map((answer) => answer.json().data.id)).size, bodies.length);
    for (const body of bodies) assert.equal(await paymentsWith(JSON.parse(body).referenceId), 1);
  });

  it("one signed request twice in a group: the group runs again alone, one 201, one 401, the rest 201", async () => {
    const bodies = Array.from({ length: 6 }, () => paymentBody());
    const requests = bodies.map(signed);
    const { answers, inserts } = await atOnce([...requests, requests[0]!]);
    assert.ok(inserts[0]! > 1, `the first INSERT held ${inserts[0]} creates`);
    assert.ok(inserts.length > 1, "each create ran again on its own");
    assert.deepEqual(
      answers.map((answer) => answer.statusCode).sort(),
      [201, 201, 201, 201, 201, 201, 401],
      answers.map((answer) => answer.body).join("\n"),
    );
    for (const body of bodies) assert.equal(await paymentsWith(JSON.parse(body).referenceId), 1);
  });

  it("one reference twice in a group, with different amounts: one 201, one 409, the rest 201", async () => {
    const taken = paymentBody();
    const same = JSON.stringify({ ...JSON.parse(taken), amount: "250.00" });
    const others = Array.from({ length: 4 }, () => paymentBody());
    const { answers, inserts } = await atOnce([taken, same, ...others].map(signed));
    assert.ok(inserts[0]! > 1, `the first INSERT held ${inserts[0]} creates`);
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [201, 409, 201, 201, 201, 201],
      answers.map((answer) => answer.body).join("\n"),
    );
    assert.equal(answers[1]!.json().error.code, "DUPLICATE_REFERENCE_ID");
    assert.equal(await paymentsWith(JSON.parse(taken).referenceId), 1);
  });

  it("one idempotency key and body twice in a group, signed apart: one 201, one 200 replay of it", async () => {
    const body = paymentBody({ idempotencyKey: `group-key-${sequence}` });
    const others = Array.from({ length: 3 }, () => paymentBody());
    const { answers, inserts } = await atOnce([body, body, ...others].map(signed));
    assert.ok(inserts[0]! > 1, `the first INSERT held ${inserts[0]} creates`);
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [201, 200, 201, 201, 201],
      answers.map((answer) => answer.body).join("\n"),
    );
    assert.equal(answers[1]!.json().data.id, answers[0]!.json().data.id);
    assert.equal(await paymentsWith(JSON.parse(body).referenceId), 1);
  });

  it("sends concurrent retrieves in one SELECT; each answers its own payment, or 404 for another merchant's", async () => {
    const other = await svc.newMerchant({ promptpayReuse: false });
    const created = await Promise.all(Array.from({ length: 6 }, () => svc.app.inject(signed(paymentBody()))));
    const ids = created.map((answer) => answer.json().data.id as string);
    const foreignBody = paymentBody();
    const foreign = await svc.app.inject(signedCreate(other, foreignBody));
    assert.equal(foreign.statusCode, 201, foreign.body);
    const foreignId = foreign.json().data.id as string;
    const read = (id: string, credentials: Credentials = merchant) =>
      signedInject(credentials, "GET", `/api/v1/payments/${id}`);
    // The other merchant's read warms its key in the auth cache.
    assert.equal((await svc.app.inject(read(foreignId, other))).statusCode, 200);
    const asked = [...ids, foreignId, ids[0]!];
    const { result, statements } = await statementsOf(() =>
      Promise.all([...asked.map((id) => svc.app.inject(read(id))), svc.app.inject(read(foreignId, other))]),
    );
    const reads = statements.filter((statement) => /from "?payments"?/i.test(statement));
    assert.ok(reads.length < asked.length + 1, `${reads.length} SELECTs for ${asked.length + 1} retrieves`);
    assert.deepEqual(
      result.map((answer) => answer.statusCode),
      [200, 200, 200, 200, 200, 200, 404, 200, 200],
      result.map((answer) => answer.body).join("\n"),
    );
    assert.deepEqual(
      result.filter((answer) => answer.statusCode === 200).map((answer) => answer.json().data.id),
      [...ids, ids[0], foreignId],
    );
    assert.equal(result[6]!.json().error.code, "RESOURCE_NOT_FOUND");
  });
});

describe("payments and withdraws lists asked together: one statement per distinct page", () => {
  let svc: TestService;
  let merchant: Credentials;
  let other: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await svc.newMerchant({ promptpayReuse: false });
    other = await svc.newMerchant({ promptpayReuse: false });
    for (const credentials of [merchant, merchant, merchant, other]) {
      const created = await svc.app.inject(signedCreate(credentials, paymentBody()));
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(async () => {
    await svc?.close();
  });

  const list = (credentials: Credentials, path: string) => signedInject(credentials, "GET", path);
  const pageStatements = (statements: string[], table: string) =>
    statements.filter((statement) => new RegExp(`^select .* from "${table}"`, "i").test(statement));

  it("twelve lists of one page asked at once: fewer page statements than lists, each the page read alone", async () => {
    const alone = await svc.app.inject(list(merchant, "/api/v1/payments"));
    assert.equal(alone.statusCode, 200, alone.body);
    assert.equal(alone.json().data.total, 3);
    const { result, statements } = await statementsOf(() =>
      Promise.all(Array.from({ length: 12 }, () => svc.app.inject(list(merchant, "/api/v1/payments")))),
    );
    const reads = pageStatements(statements, "payments");
    assert.ok(reads.length < 12, `${reads.length} page statements for 12 lists`);
    for (const answer of result) {
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual(answer.json().data, alone.json().data);
    }
  });

  it("lists of two merchants and of other filters and pages in one group: each answers its own page", async () => {
    const paths = [
      [merchant, "/api/v1/payments"],
      [other, "/api/v1/payments"],
      [merchant, "/api/v1/payments?limit=1&page=2"],
      [merchant, "/api/v1/payments?status=succeeded"],
      [other, "/api/v1/payments?sortBy=amount&sortOrder=asc"],
      [merchant, "/api/v1/payments?page=9"],
      [merchant, "/api/v1/withdraws"],
    ] as const;
    const alone: { data: { total: number; data: { id: string }[] } }[] = [];
    for (const [credentials, path] of paths)
      alone.push((await svc.app.inject(list(credentials, path))).json());
    const { result, statements } = await statementsOf(() =>
      Promise.all([...paths, ...paths].map(([credentials, path]) => svc.app.inject(list(credentials, path)))),
    );
    assert.ok(
      pageStatements(statements, "payments").length < 12,
      `${pageStatements(statements, "payments").length} page statements for 12 payment lists`,
    );
    assert.deepEqual(
      result.map((answer) => answer.json()),
      [...alone, ...alone],
    );
    assert.deepEqual(
      alone.map((answer) => [answer.data.total, answer.data.data.length]),
      [
        [3, 3],
        [1, 1],
        [3, 1],
        [0, 0],
        [1, 1],
        [3, 0],
        [0, 0],
      ],
    );
    // The other merchant's page holds none of this merchant's payments.
    const ids = (answer: (typeof alone)[number] | undefined) =>
      answer!.data.data.map((payment) => payment.id);
    assert.ok(!ids(alone[1]).some((id) => ids(alone[0]).includes(id)));
  });

  it("a list asked after a create was answered shows it, with the total counted", async () => {
    const created = await svc.app.inject(signedCreate(other, paymentBody()));
    assert.equal(created.statusCode, 201, created.body);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => svc.app.inject(list(other, "/api/v1/payments"))),
    );
    for (const answer of answers) {
      assert.equal(answer.json().data.total, 2);
      assert.ok(
        answer.json().data.data.some((payment: { id: string }) => payment.id === created.json().data.id),
      );
    }
  });
});

describeOnPostgres("create payment groups: one merchant's wait does not hold another's creates", () => {
  // The service's default lock bound: CONTRACT 14 lets another merchant wait at most 2 s.
  const LOCK_TIMEOUT_MS = 2_000;
  const HOLD_MS = 5_000;
  let svc: TestService;
  before(async () => {
    svc = await startService({ bounds: { lockTimeoutMs: LOCK_TIMEOUT_MS, poolAcquireTimeoutMs: 10_000 } });
  });
  after(async () => {
    await svc?.close();
  });

  it("a create waiting for another transaction's uncommitted reference holds its group only briefly", async () => {
    const a = await svc.newMerchant({ promptpayReuse: false });
    const b = await svc.newMerchant({ promptpayReuse: false });
    const seed = await svc.app.inject(signedCreate(a, paymentBody()));
    assert.equal(seed.statusCode, 201, seed.body);
    assert.equal((await svc.app.inject(signedCreate(b, paymentBody()))).statusCode, 201, "B's key is cached");
    // Another transaction inserts A's payment with reference "held" and does not commit yet.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const holder = svc.deps.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO payments SELECT (jsonb_populate_record(null::payments, to_jsonb(p) || jsonb_build_object(
          'id', gen_random_uuid(), 'reference_id', 'held', 'idempotency_key', 'held-key',
          'bank_transfer_reference', null, 'collection_reference', null))).*
        FROM payments p WHERE p.id = ${seed.json().data.id}`.execute(trx);
      inserted();
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, HOLD_MS))]);
      throw new Error("rolled back");
    });
    const holderEnded = holder.catch(() => undefined);
    await insertedOnce;

    const started = performance.now();
    const { result, statements } = await statementsOf(async () => {
      const waiting = svc.app.inject(signedCreate(a, paymentBody({ referenceId: "held" })));
      const others = await Promise.all(
        Array.from({ length: 4 }, () => svc.app.inject(signedCreate(b, paymentBody()))).map(
          async (answer) => {
            const answered = await answer;
            return { answered, ms: performance.now() - started };
          },
        ),
      );
      release();
      return { waiting: await waiting, others };
    });
    await holderEnded;

    const first = statements.map(paymentsInserted).find((n) => n > 0);
    assert.ok(first !== undefined && first > 1, `the first INSERT held ${first} creates`);
    for (const { answered, ms } of result.others) {
      assert.equal(answered.statusCode, 201, answered.body);
      // Well inside the 2 s: the group gives up after PAYMENT_GROUP_LOCK_WAIT_MAX_MS, not the lock bound.
      assert.ok(ms < 1_500, `B's create answered after ${Math.round(ms)} ms`);
    }
    // The held transaction rolled back: A's create then took the reference.
    assert.equal(result.waiting.statusCode, 201, result.waiting.body);
  });
});
