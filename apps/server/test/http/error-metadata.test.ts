/**
 * Every error the service answers carries exactly the metadata its code's schema describes
 * (lib/error-metadata.ts), the schema the OpenAPI document and the SDK's error types are made
 * from. Real requests produce the errors; each envelope is checked against the error envelope
 * schema (one closed variant per code), so a key added, renamed or retyped at a call site
 * without its schema fails here.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { Value } from "typebox/value";
import { buildApp } from "../../src/app.ts";
import { createPasswordQueue } from "../../src/dashboard/password-queue.ts";
import { buildDeps } from "../../src/deps.ts";
import {
  ERROR_OBJECT_SCHEMAS,
  ErrorEnvelope,
  errorBody,
  errorObjectSchema,
} from "../../src/http/envelope.ts";
import { AppError, ERROR_STATUS, type ErrorCode } from "../../src/lib/errors.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { createPayment } from "../helpers/lifecycle.ts";
import { fundedMerchant, payeeName, withdrawBody } from "../helpers/withdraws.ts";

const MISSING_ID = "00000000-0000-4000-8000-000000000000";

/** Asserts the answer is the error envelope of `code`, with metadata matching that code's schema. */
function assertDocumented(res: TestResponse, code: ErrorCode): any {
  const body = res.body;
  assert.equal(res.status, ERROR_STATUS[code], JSON.stringify(body));
  assert.equal(body?.error?.code, code, JSON.stringify(body));
  const errors = Value.Errors(errorObjectSchema(code), body.error);
  assert.deepEqual(errors, [], `${code} ${JSON.stringify(body.error)}`);
  assert.equal(Value.Check(ErrorEnvelope, body), true, JSON.stringify(body));
  return body.error.metadata;
}

describe("error metadata matches each code's schema", () => {
  let svc: TestService;
  let funded: Credentials;

  before(async () => {
    svc = await startService();
    funded = await fundedMerchant(svc);
  });
  after(async () => {
    await svc?.close();
  });

  const as = (credentials: Credentials, method: string, path: string, body?: unknown) =>
    svc.request(method, path, body, { credentials });
  const createWithdraw = (body: unknown, credentials: Credentials = funded) =>
    as(credentials, "POST", "/api/v1/withdraws", body);

  it("has one closed variant per code, and refuses a key its code does not describe", () => {
    assert.equal(ERROR_OBJECT_SCHEMAS.length, Object.keys(ERROR_STATUS).length);
    const envelope = {
      success: false,
      error: { code: "INSUFFICIENT_BALANCE", message: "m", metadata: { available: "0.00", amount: "1.00" } },
    };
    assert.ok(Value.Check(ErrorEnvelope, envelope));
    const extra = structuredClone(envelope);
    Object.assign(extra.error.metadata, { currency: "THB" });
    assert.equal(Value.Check(ErrorEnvelope, extra), false);
    const none = { success: false, error: { code: "RESOURCE_NOT_FOUND", message: "m", metadata: {} } };
    assert.equal(Value.Check(ErrorEnvelope, none), false);
    const missing = { success: false, error: { code: "INSUFFICIENT_BALANCE", message: "m" } };
    assert.equal(Value.Check(ErrorEnvelope, missing), false);
  });

  it("field errors: VALIDATION_ERROR, INVALID_AMOUNT, INVALID_CURRENCY, INVALID_BANK_CODE", async () => {
    const { customerBankCode: _omitted, ...noBank } = withdrawBody();
    assert.deepEqual(assertDocumented(await createWithdraw(noBank), "VALIDATION_ERROR"), {
      field: "customerBankCode",
    });
    assertDocumented(await createWithdraw(withdrawBody({ amount: "1.234" })), "INVALID_AMOUNT");
    assertDocumented(await createWithdraw(withdrawBody({ currency: "USD" })), "INVALID_CURRENCY");
    assertDocumented(await createWithdraw(withdrawBody({ customerBankCode: "999" })), "INVALID_BANK_CODE");
    assertDocumented(await createWithdraw(withdrawBody({ referenceId: "a b" })), "INVALID_REFERENCE_ID");
  });

  it("VALIDATION_ERROR of a cancel the status does not allow, and RESOURCE_NOT_FOUND without metadata", async () => {
    const created = (await createWithdraw(withdrawBody())).body.data;
    assert.equal((await as(funded, "POST", `/api/v1/withdraws/${created.id}/cancel`)).status, 200);
    const again = await as(funded, "POST", `/api/v1/withdraws/${created.id}/cancel`);
    assert.deepEqual(assertDocumented(again, "VALIDATION_ERROR"), { field: "status" });
    const missing = await svc.request("GET", `/api/v1/withdraws/${MISSING_ID}`);
    assert.equal(assertDocumented(missing, "RESOURCE_NOT_FOUND"), undefined);
  });

  it("INSUFFICIENT_BALANCE, and the daily and monthly limits (INVALID_INPUT)", async () => {
    const empty = await svc.newMerchant();
    const poor = assertDocumented(await createWithdraw(withdrawBody(), empty), "INSUFFICIENT_BALANCE");
    assert.deepEqual(poor, { available: "0.00", amount: "1000.00" });

    const daily = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 500n });
    const overDaily = assertDocumented(await createWithdraw(withdrawBody(), daily), "INVALID_INPUT");
    assert.equal(overDaily.dailyLimit, "500.00");
    const monthly = await fundedMerchant(svc, { monthlyWithdrawLimitSatang: 500n });
    const overMonthly = assertDocumented(await createWithdraw(withdrawBody(), monthly), "INVALID_INPUT");
    assert.equal(overMonthly.monthlyLimit, "500.00");
  });

  it("STATE_CONFLICT of the payout guard: active_payout, then recent_payout with retryAfter", async () => {
    const name = payeeName();
    const first = (await createWithdraw(withdrawBody({ customerBankAccountName: name }))).body.data;
    const active = assertDocumented(
      await createWithdraw(withdrawBody({ customerBankAccountName: name })),
      "STATE_CONFLICT",
    );
    assert.deepEqual(active, {
      existingWithdrawId: first.id,
      existingWithdrawStatus: "pending",
      reason: "active_payout",
    });
    assert.equal((await as(funded, "POST", `/api/v1/withdraws/${first.id}/cancel`)).status, 200);
    const recent = assertDocumented(
      await createWithdraw(withdrawBody({ customerBankAccountName: name })),
      "STATE_CONFLICT",
    );
    assert.equal(recent.reason, "recent_payout");
    assert.equal(recent.existingWithdrawStatus, "canceled");
  });

  it("STATE_CONFLICT of a transition, an operator decision and the payout desk", async () => {
    const payment = await createPayment(svc, funded);
    assert.equal((await as(funded, "POST", `/api/v1/payments/${payment.id}/cancel`)).status, 200);
    const simulated = await as(funded, "POST", `/api/v1/sandbox/payments/${payment.id}/simulate`, {
      outcome: "succeeded",
    });
    assert.equal(typeof assertDocumented(simulated, "STATE_CONFLICT").reason, "string");

    const pending = (await createWithdraw(withdrawBody())).body.data;
    const approve = await svc.admin("POST", `/admin/v1/withdraws/${pending.id}/approve`);
    assert.deepEqual(assertDocumented(approve, "STATE_CONFLICT"), { status: "pending" });

    const desk = await svc.admin("POST", "/admin/v1/payout-batches", {});
    assert.deepEqual(assertDocumented(desk, "STATE_CONFLICT"), { reason: "payout_desk_off" });
  });

  it("WALLET_INACTIVE, DUPLICATE_REFERENCE_ID and IDEMPOTENCY_KEY_MISMATCH", async () => {
    const frozen = await fundedMerchant(svc, { walletStatus: "frozen" });
    const inactive = assertDocumented(await createWithdraw(withdrawBody(), frozen), "WALLET_INACTIVE");
    assert.deepEqual(inactive, { walletStatus: "frozen" });

    const body = withdrawBody({ idempotencyKey: `key-${Date.now()}` });
    assert.equal((await createWithdraw(body)).status, 201);
    const reused = withdrawBody({ referenceId: body.referenceId });
    assert.deepEqual(assertDocumented(await createWithdraw(reused), "DUPLICATE_REFERENCE_ID"), {
      field: "referenceId",
    });
    const mismatch = withdrawBody({ idempotencyKey: body.idempotencyKey });
    assert.deepEqual(assertDocumented(await createWithdraw(mismatch), "IDEMPOTENCY_KEY_MISMATCH"), {
      field: "idempotencyKey",
    });
  });

  it("INVALID_CREDENTIALS with each sandbox reason, AUTHENTICATION_ERROR, PAYLOAD_TOO_LARGE", async () => {
    const bare = await svc.app.inject({ method: "GET", url: "/api/v1/balance" });
    const unsigned = { status: bare.statusCode, body: bare.json() } as TestResponse;
    assert.equal(assertDocumented(unsigned, "INVALID_CREDENTIALS").reason, "missing_header");
    const refusals: Array<[Record<string, string>, string]> = [
      [{ "x-timestamp": "soon" }, "timestamp_format"],
      [{ "x-timestamp": "1000" }, "timestamp_skew"],
      [{ "x-signature": "md5=abc" }, "signature_format"],
      [{ "x-signature": `sha256=${"0".repeat(64)}` }, "signature_mismatch"],
      [{ "x-api-key": "sk_test_unknown" }, "signature_mismatch"],
    ];
    for (const [headers, reason] of refusals) {
      const res = await svc.request("GET", "/api/v1/balance", undefined, { headers });
      assert.equal(assertDocumented(res, "INVALID_CREDENTIALS").reason, reason);
    }
    const disabled = await svc.newMerchant({ status: "disabled" });
    const off = await svc.request("GET", "/api/v1/balance", undefined, { credentials: disabled });
    assert.equal(assertDocumented(off, "AUTHENTICATION_ERROR"), undefined);
    const rawBody = JSON.stringify({ ...withdrawBody(), description: "x".repeat(70_000) });
    const large = await svc.request("POST", "/api/v1/withdraws", undefined, { rawBody });
    assert.equal(assertDocumented(large, "PAYLOAD_TOO_LARGE"), undefined);
  });

  it("RATE_LIMIT_EXCEEDED once the minute's budget is spent", async () => {
    let limited: FastifyInstance | undefined;
    try {
      limited = await buildApp(
        buildDeps({
          config: { ...svc.deps.config, rateLimitPerMinute: 1 },
          db: svc.deps.db,
          storeKind: svc.deps.storeKind,
          secrets: svc.deps.secrets,
          clock: svc.deps.clock,
        }),
      );
      assert.equal((await svc.request("GET", "/api/v1/balance", undefined, { app: limited })).status, 200);
      const refused = await svc.request("GET", "/api/v1/balance", undefined, { app: limited });
      const metadata = assertDocumented(refused, "RATE_LIMIT_EXCEEDED");
      assert.equal(metadata.limit, 1);
      assert.equal(metadata.remaining, 0);
    } finally {
      await limited?.close();
    }
  });

  it("SERVICE_UNAVAILABLE of a full login queue", async () => {
    const queue = createPasswordQueue({ running: 1, waiting: 0 });
    let release = () => {};
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    const error = await queue
      .run(async () => {})
      .then(
        () => assert.fail("a full queue admitted a login"),
        (e: unknown) => e,
      );
    release();
    await running;
    assert.ok(error instanceof AppError);
    const body = errorBody(error);
    assert.equal(body.error.code, "SERVICE_UNAVAILABLE");
    assert.deepEqual(Value.Errors(ErrorEnvelope, body), []);
  });
});
