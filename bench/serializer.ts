/**
 * The response serializer with the service's options (http/serializer.ts: formats not validated
 * when a branch is chosen) and with fast-json-stringify's defaults, compared in one process on
 * the same records: a page of ten payment records as a list answers it (nullable timestamps,
 * `nextAction` variants), serialized in alternating blocks so both see the same machine. Prints
 * the median time per page of each and their ratio.
 *
 *   node --import tsx bench/serializer.ts          # SERIALIZER_ROUNDS=40 SERIALIZER_BLOCK=2000
 */
import { performance } from "node:perf_hooks";
import Fastify from "fastify";
import { SERIALIZER_OPTIONS } from "../apps/server/src/http/serializer.ts";
import { PaymentListEnvelope, type PaymentRecord } from "../apps/server/src/payments/schemas.ts";

const rounds = Number(process.env.SERIALIZER_ROUNDS ?? 40);
const block = Number(process.env.SERIALIZER_BLOCK ?? 2000);

/** Ten records as the list of a busy merchant has them: open and final, PromptPay and transfer. */
function page(): PaymentRecord[] {
  const at = Date.parse("2026-12-01T10:00:00Z");
  return Array.from({ length: 10 }, (_, i): PaymentRecord => {
    const open = i % 3 !== 0;
    const id = `0193c0de-0000-7000-8000-${String(i).padStart(12, "0")}`;
    return {
      id,
      amount: `${100 + i}.50`,
      currency: "THB",
      status: open ? "requires_action" : "succeeded",
      paymentMethod: i % 4 === 3 ? "bank_transfer" : "promptpay",
      referenceId: `order-${i}`,
      description: i % 2 === 0 ? `Order ${i}` : null,
      metadata: i % 2 === 0 ? { cart: String(i) } : null,
      clientSecret: `pi_secret_${"x".repeat(32)}`,
      nextAction: !open
        ? null
        : i % 4 === 3
          ? {
              type: "display_bank_transfer_instructions",
              bankTransferInstructions: {
                bankName: "Siam Commercial Bank",
                accountNumber: "1234567890",
                accountName: "Shop Co., Ltd.",
                amount: `${100 + i}.50`,
                reference: `REF${i}`,
              },
            }
          : {
              type: "use_payment_app",
              paymentAppUrl: `https://pay.example/pay/${id}#cs=secret`,
              qrCode: {
                type: "promptpay",
                payload: "00020101021229370016A000000677010111".repeat(2),
                imageUrl: `https://pay.example/pay/${id}/qr.png`,
              },
            },
      confirmedAt: open ? null : new Date(at + i * 1000).toISOString(),
      capturedAt: open ? null : new Date(at + i * 1000).toISOString(),
      canceledAt: null,
      expiresAt: new Date(at + 900_000 + i).toISOString(),
      createdAt: new Date(at + i).toISOString(),
      updatedAt: new Date(at + i * 1000).toISOString(),
    };
  });
}

/** The serializer Fastify compiles for a list route's 200 answer, with `options` as serializerOpts. */
async function serializerOf(options: object | undefined): Promise<(value: unknown) => string> {
  const app = Fastify(options ? { serializerOpts: options } : {});
  let serialize: ((value: unknown) => string) | undefined;
  app.get("/payments", { schema: { response: { 200: PaymentListEnvelope } } }, async (_request, reply) => {
    serialize = reply.getSerializationFunction("200") as (value: unknown) => string;
    return body;
  });
  await app.inject({ method: "GET", url: "/payments" });
  await app.close();
  if (!serialize) throw new Error("the route did not run");
  return serialize;
}

const body = { success: true, data: { data: page(), total: 10, page: 1, limit: 10, totalPages: 1 } };
const variants = [
  { name: "the service's options", serialize: await serializerOf(SERIALIZER_OPTIONS) },
  { name: "fast-json-stringify's defaults", serialize: await serializerOf(undefined) },
];
if (variants[0]!.serialize(body) !== variants[1]!.serialize(body))
  throw new Error("the two serializers differ");

const times = variants.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  for (const [v, variant] of variants.entries()) {
    const started = performance.now();
    for (let i = 0; i < block; i++) variant.serialize(body);
    times[v]!.push(((performance.now() - started) * 1000) / block);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const [withOptions, defaults] = times.map(median) as [number, number];
for (const [v, variant] of variants.entries()) {
  console.log(`${variant.name}: ${median(times[v]!).toFixed(1)} µs per page of ten payments`);
}
console.log(`ratio (service / defaults): ${(withOptions / defaults).toFixed(2)}`);
