/**
 * The response serializer chooses a nullable field's branch and `nextAction`'s variant on types
 * and constants alone (http/serializer.ts: formats are not validated on the way out). Whatever
 * record a view makes, the bytes sent are that record: no field dropped, renamed, emptied or
 * taken for another variant. Records are generated with fast-check and sent through Fastify with
 * the app's serializer options and the routes' response schemas. What the option relies on is
 * checked over every route of the app: no union in a response schema has two branches that only
 * a format tells apart.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import Fastify, { type FastifyInstance } from "fastify";
import {
  DESTINATION_TYPES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  WITHDRAW_STATUSES,
} from "../../src/db/types.ts";
import { serializerCompiler } from "../../src/http/serializer.ts";
import { PaymentEnvelope, PaymentListEnvelope, type PaymentRecord } from "../../src/payments/schemas.ts";
import { WithdrawEnvelope, WithdrawListEnvelope, type WithdrawRecord } from "../../src/withdraws/schemas.ts";
import { startService } from "../helpers/harness.ts";

const timestamp = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((at) => at.toISOString());
const text = fc.string({ maxLength: 40 });
const amount = fc.bigInt({ min: 1n, max: 10n ** 12n }).map((satang) => (Number(satang) / 100).toFixed(2));
const metadata = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), text, { maxKeys: 4 });
const qrCode = fc.record({ type: fc.constant("promptpay" as const), payload: text, imageUrl: fc.webUrl() });

const nextAction = fc.oneof(
  fc.record(
    {
      type: fc.constant("use_payment_app" as const),
      paymentAppUrl: fc.webUrl(),
      qrCode,
      qrImageUrl: fc.webUrl(),
    },
    { requiredKeys: ["type"] },
  ),
  fc.record(
    { type: fc.constant("redirect" as const), redirectUrl: fc.webUrl(), qrCode, qrImageUrl: fc.webUrl() },
    { requiredKeys: ["type"] },
  ),
  fc.record({
    type: fc.constant("display_bank_transfer_instructions" as const),
    bankTransferInstructions: fc.record({
      bankName: text,
      accountNumber: fc.stringMatching(/^[0-9]{10,12}$/),
      accountName: text,
      amount,
      reference: text,
    }),
  }),
);

/** `value` or null, as a record's nullable field. */
const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

const payment: fc.Arbitrary<PaymentRecord> = fc.record({
  id: fc.uuid(),
  amount,
  currency: fc.constant("THB" as const),
  status: fc.constantFrom(...PAYMENT_STATUSES),
  paymentMethod: nullable(fc.constantFrom(...PAYMENT_METHODS)),
  referenceId: text,
  description: nullable(text),
  metadata: nullable(metadata),
  clientSecret: nullable(text),
  nextAction: nullable(nextAction),
  confirmedAt: nullable(timestamp),
  capturedAt: nullable(timestamp),
  canceledAt: nullable(timestamp),
  expiresAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const withdraw: fc.Arbitrary<WithdrawRecord> = fc.record({
  id: fc.uuid(),
  amount,
  currency: fc.constant("THB" as const),
  status: fc.constantFrom(...WITHDRAW_STATUSES),
  referenceId: text,
  destinationType: fc.constantFrom(...DESTINATION_TYPES),
  bankAccountNumber: nullable(fc.stringMatching(/^\*{6}[0-9]{4}$/)),
  bankAccountName: nullable(text),
  bankCode: nullable(fc.stringMatching(/^[0-9]{3}$/)),
  destinationId: nullable(fc.uuid()),
  description: nullable(text),
  metadata: nullable(metadata),
  paidAt: nullable(timestamp),
  canceledAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const page = <T>(records: fc.Arbitrary<T>) =>
  fc.array(records, { maxLength: 5 }).map((data) => ({
    data,
    total: data.length,
    page: 1,
    limit: 10,
    totalPages: data.length === 0 ? 0 : 1,
  }));

let app: FastifyInstance;
let sending: unknown;

before(async () => {
  app = Fastify();
  app.setSerializerCompiler(serializerCompiler);
  const envelopes = {
    payment: PaymentEnvelope,
    payments: PaymentListEnvelope,
    withdraw: WithdrawEnvelope,
    withdraws: WithdrawListEnvelope,
  };
  for (const [name, schema] of Object.entries(envelopes)) {
    app.get(`/${name}`, { schema: { response: { 200: schema } } }, async () => ({
      success: true,
      data: sending,
    }));
  }
  await app.ready();
});

after(() => app.close());

/** `value` as JSON carries it (fast-check's records have no prototype; JSON's objects do). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** What `path`'s route sends for `data`, read back. */
async function sent(path: string, data: unknown): Promise<unknown> {
  sending = data;
  const response = await app.inject({ method: "GET", url: path });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

describe("the response serializer", () => {
  it("sends every payment record as it is", async () => {
    await fc.assert(
      fc.asyncProperty(payment, async (record) => {
        assert.deepEqual(await sent("/payment", record), asJson({ success: true, data: record }));
      }),
      { seed: 23, numRuns: 300 },
    );
  });

  it("sends every withdraw record as it is", async () => {
    await fc.assert(
      fc.asyncProperty(withdraw, async (record) => {
        assert.deepEqual(await sent("/withdraw", record), asJson({ success: true, data: record }));
      }),
      { seed: 23, numRuns: 300 },
    );
  });

  it("sends pages of records as they are", async () => {
    await fc.assert(
      fc.asyncProperty(page(payment), page(withdraw), async (payments, withdraws) => {
        assert.deepEqual(await sent("/payments", payments), asJson({ success: true, data: payments }));
        assert.deepEqual(await sent("/withdraws", withdraws), asJson({ success: true, data: withdraws }));
      }),
      { seed: 23, numRuns: 100 },
    );
  });

  it("compiles a schema once per process, whichever app asks", () => {
    const route = { schema: PaymentEnvelope, method: "GET", url: "/a", httpStatus: "200" };
    const first = serializerCompiler(route);
    assert.equal(serializerCompiler({ ...route, url: "/b" }), first, "the same schema, the same function");
    assert.notEqual(serializerCompiler({ ...route, schema: WithdrawEnvelope }), first);
    const small = { type: "object", properties: { a: { type: "string" } } };
    assert.equal(serializerCompiler({ ...route, schema: small })({ a: "x", extra: 1 }), '{"a":"x"}');
  });

  it("answers 500 rather than send a record whose field fits no branch", async () => {
    // The branches are still told apart by type: a number where a timestamp or null belongs is
    // refused, not sent as something else.
    const [record] = fc.sample(payment, { seed: 1, numRuns: 1 });
    sending = { ...record, confirmedAt: 12 };
    const response = await app.inject({ method: "GET", url: "/payment" });
    assert.equal(response.statusCode, 500, response.body);
  });
});

/** A schema without the keywords that do not decide a branch by type: formats and annotations. */
function withoutFormats(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutFormats);
  if (schema === null || typeof schema !== "object") return schema;
  const ignored = new Set(["format", "description", "examples", "example", "title"]);
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !ignored.has(key))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, value]) => [key, withoutFormats(value)]),
  );
}

/** Every `anyOf` and `oneOf` inside `schema`, with where it is. */
function unionsIn(schema: unknown, at: string, found: { at: string; branches: unknown[] }[] = []) {
  if (schema === null || typeof schema !== "object") return found;
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) found.push({ at, branches: value });
    unionsIn(value, `${at}/${key}`, found);
  }
  return found;
}

describe("the app's response schemas", () => {
  it("have no union whose branches only a format tells apart", async () => {
    const svc = await startService();
    try {
      const clashes: string[] = [];
      let unions = 0;
      for (const route of svc.app.routeCatalog) {
        const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
        for (const [status, schema] of Object.entries(responses)) {
          for (const union of unionsIn(schema, `${route.method} ${route.url} ${status}`)) {
            unions += 1;
            const shapes = union.branches.map((branch) => JSON.stringify(withoutFormats(branch)));
            if (new Set(shapes).size !== shapes.length) clashes.push(union.at);
          }
        }
      }
      assert.ok(unions > 50, `only ${unions} unions found: the walk did not reach the schemas`);
      assert.deepEqual(clashes, []);
    } finally {
      await svc.close();
    }
  });

  it("would be told of a union that only a format tells apart", () => {
    const schema = { anyOf: [{ type: "string", format: "uuid" }, { type: "string" }] };
    const [union] = unionsIn(schema, "example");
    const shapes = union!.branches.map((branch) => JSON.stringify(withoutFormats(branch)));
    assert.notEqual(new Set(shapes).size, shapes.length);
  });
});
