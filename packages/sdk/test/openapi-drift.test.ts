/**
 * The SDK against the server's OpenAPI document, which the server generates from the schemas
 * that validate its requests: the committed copy of the document and the types generated from
 * it must be what the server produces now, and the SDK's routes, field lists and enumerations
 * must match the document. Any field or route added, renamed or removed on one side only fails
 * here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { ERROR_STATUS as SERVER_ERROR_STATUS } from "../../../apps/server/src/lib/errors.ts";
import { DOCUMENT_SERVICE_OPTIONS, type GeneratedFiles, renderFiles } from "../scripts/generate.ts";
import {
  BALANCE_FIELDS,
  BANK_TRANSFER_INSTRUCTIONS_FIELDS,
  DELIVERY_ATTEMPT_FIELDS,
  DESTINATION_TYPES,
  ERROR_CLASSES,
  ERROR_STATUS,
  EVENT_TYPES,
  PAGE_FIELDS,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  QR_CODE_FIELDS,
  RESPONSE_MODES,
  ROUTES,
  type Route,
  WALLET_STATUSES,
  WEBHOOK_DELIVERY_FIELDS,
  WEBHOOK_DELIVERY_STATUSES,
  WITHDRAW_STATUSES,
} from "../src/index.ts";
import { type ListeningService, listeningService } from "./helpers/server.ts";

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  required?: string[];
};
type Operation = {
  parameters?: Array<{ in: string; name: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, unknown>>;
};
type Document = { paths: Record<string, Record<string, Operation>> };

let service: ListeningService;
let doc: Document;

before(async () => {
  // Configured as `npm run generate` configures it, so the two documents can be compared.
  service = await listeningService(DOCUMENT_SERVICE_OPTIONS);
  const response = await fetch(`${service.baseUrl}/api/v1/openapi.json`);
  assert.equal(response.status, 200);
  doc = (await response.json()) as Document;
});
after(async () => {
  await service?.close();
});

const sorted = (values: Iterable<string>) => [...values].sort();

function operation(route: Route): Operation {
  const op = doc.paths[route.path]?.[route.method.toLowerCase()];
  assert.ok(op, `${route.method} ${route.path} is in the OpenAPI document`);
  return op;
}

/** The schema of `data` in the success envelope (for a list: of one item). */
function dataSchema(route: Route): Schema {
  const response = operation(route).responses[String(route.status)];
  assert.ok(response, `${route.method} ${route.path} answers ${route.status}`);
  const envelope = response.content?.["application/json"]?.schema;
  const data = envelope?.properties?.data;
  assert.ok(data, `${route.method} ${route.path} has a data envelope`);
  if (!route.list) return data;
  assert.deepEqual(sorted(Object.keys(data.properties ?? {})), sorted(PAGE_FIELDS), "list envelope fields");
  const item = data.properties?.data?.items;
  assert.ok(item, `${route.method} ${route.path} lists records`);
  return item;
}

/** The object variants of a schema that may be wrapped in anyOf (nullable, unions). */
function objectVariants(schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  if (schema.anyOf) return schema.anyOf.flatMap(objectVariants);
  return schema.type === "object" || schema.properties ? [schema] : [];
}

function enumOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.enum) return schema.enum.map(String);
  return (schema.anyOf ?? []).flatMap(enumOf);
}

/** The first line where two texts differ, for a failure message that fits on a screen. */
function firstDifference(committed: string, current: string): string {
  const a = committed.split("\n");
  const b = current.split("\n");
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? "")}, server now ${JSON.stringify(b[at] ?? "")}`;
}

describe("the committed OpenAPI document and generated types", () => {
  it("are what the server produces now (else run npm run generate -w @satang/sdk)", async () => {
    const current = await renderFiles(doc);
    for (const file of Object.keys(current) as Array<keyof GeneratedFiles>) {
      const committed = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
      if (committed !== current[file]) {
        assert.fail(
          `packages/sdk/${file} is not what the server produces now: run npm run generate -w @satang/sdk ` +
            `(${firstDifference(committed, current[file])})`,
        );
      }
    }
  });
});

describe("SDK routes and types match the server's OpenAPI document", () => {
  for (const [name, route] of Object.entries(ROUTES) as Array<[string, Route]>) {
    it(`${name}: ${route.method} ${route.path} exists with the SDK's parameters, body and response fields`, () => {
      const op = operation(route);
      const parameters = op.parameters ?? [];
      const pathParams = [...route.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
      assert.deepEqual(
        sorted(parameters.filter((p) => p.in === "path").map((p) => p.name)),
        sorted(pathParams),
        "path parameters",
      );
      assert.deepEqual(
        sorted(parameters.filter((p) => p.in === "query").map((p) => p.name)),
        sorted(route.query ?? []),
        "query parameters",
      );
      const body = op.requestBody?.content["application/json"]?.schema;
      assert.deepEqual(sorted(Object.keys(body?.properties ?? {})), sorted(route.body ?? []), "body fields");
      assert.deepEqual(
        sorted(Object.keys(dataSchema(route).properties ?? {})),
        sorted(route.response),
        "response record fields",
      );
    });
  }

  it("covers every operation authenticated with an API key", () => {
    const covered = new Set(Object.values(ROUTES).map((r) => `${r.method} ${r.path}`));
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const hmac = (op.security ?? []).some((scheme) => "ApiKey" in scheme);
        if (hmac && !covered.has(`${method.toUpperCase()} ${path}`))
          missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    // The CSV exports stream text, not the JSON envelope the client parses: they are signed with
    // signRequest and fetched as they are (README, "CSV exports").
    const csvExports = [
      "GET /api/v1/reports/payments.csv",
      "GET /api/v1/reports/withdraws.csv",
      "GET /api/v1/reports/ledger.csv",
      "GET /api/v1/reports/refunds.csv",
    ];
    assert.deepEqual(
      missing.filter((operation) => !csvExports.includes(operation)),
      [],
      "every HMAC operation has an SDK method",
    );
  });

  it("nested records match: nextAction's QR code and bank transfer instructions, delivery attempts", () => {
    const payment = dataSchema(ROUTES["payments.retrieve"]);
    const variants = objectVariants(payment.properties?.nextAction);
    const qr = variants.flatMap((v) => objectVariants(v.properties?.qrCode));
    assert.ok(qr.length > 0, "a nextAction variant carries qrCode");
    for (const schema of qr)
      assert.deepEqual(sorted(Object.keys(schema.properties ?? {})), sorted(QR_CODE_FIELDS));
    const instructions = variants.flatMap((v) => objectVariants(v.properties?.bankTransferInstructions));
    assert.equal(instructions.length, 1);
    assert.deepEqual(
      sorted(Object.keys(instructions[0]!.properties ?? {})),
      sorted(BANK_TRANSFER_INSTRUCTIONS_FIELDS),
    );
    assert.deepEqual(sorted(variants.map((v) => enumOf(v.properties?.type)[0]!)), [
      "display_bank_transfer_instructions",
      "redirect",
      "use_payment_app",
    ]);

    const event = dataSchema(ROUTES["events.retrieve"]);
    const delivery = event.properties?.deliveries?.items;
    assert.deepEqual(sorted(Object.keys(delivery?.properties ?? {})), sorted(WEBHOOK_DELIVERY_FIELDS));
    assert.deepEqual(
      sorted(Object.keys(delivery?.properties?.attempts?.items?.properties ?? {})),
      sorted(DELIVERY_ATTEMPT_FIELDS),
    );
    assert.deepEqual(sorted(enumOf(delivery?.properties?.status)), sorted(WEBHOOK_DELIVERY_STATUSES));
  });

  it("enumerations match: statuses, methods, response modes, destination types, event types", () => {
    const payment = dataSchema(ROUTES["payments.retrieve"]);
    assert.deepEqual(sorted(enumOf(payment.properties?.status)), sorted(PAYMENT_STATUSES));
    assert.deepEqual(sorted(enumOf(payment.properties?.paymentMethod)), sorted(PAYMENT_METHODS));
    const withdraw = dataSchema(ROUTES["withdraws.retrieve"]);
    assert.deepEqual(sorted(enumOf(withdraw.properties?.status)), sorted(WITHDRAW_STATUSES));
    assert.deepEqual(sorted(enumOf(withdraw.properties?.destinationType)), sorted(DESTINATION_TYPES));
    const balance = dataSchema(ROUTES["balance.retrieve"]);
    assert.deepEqual(sorted(Object.keys(balance.properties ?? {})), sorted(BALANCE_FIELDS));
    assert.deepEqual(sorted(enumOf(balance.properties?.status)), sorted(WALLET_STATUSES));
    const query = (route: Route, name: string) =>
      enumOf(operation(route).parameters?.find((p) => p.in === "query" && p.name === name)?.schema);
    assert.deepEqual(sorted(query(ROUTES["payments.retrieve"], "responseMode")), sorted(RESPONSE_MODES));
    assert.deepEqual(sorted(query(ROUTES["events.list"], "type")), sorted(EVENT_TYPES));
    const event = dataSchema(ROUTES["events.list"]);
    assert.deepEqual(sorted(enumOf(event.properties?.type)), sorted(EVENT_TYPES));
  });

  it("has one error class for each code of the server's error list, with the same HTTP status", () => {
    assert.deepEqual(ERROR_STATUS, SERVER_ERROR_STATUS);
    assert.deepEqual(sorted(Object.keys(ERROR_CLASSES)), sorted(Object.keys(SERVER_ERROR_STATUS)));
    const classes = new Set(Object.values(ERROR_CLASSES));
    assert.equal(classes.size, Object.keys(ERROR_CLASSES).length, "no two codes share a class");
  });
});
