/**
 * Every error code the server can produce through the SDK arrives as its own class, with its
 * status, message, request id and typed metadata. INTERNAL_ERROR and SERVICE_UNAVAILABLE cannot
 * be caused on purpose by a correct server, so they are answered by a fake fetch instead.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { updateMerchant } from "../../../apps/server/src/merchants/service.ts";
import type { Credentials } from "../../../apps/server/test/helpers/harness.ts";
import { fundWallet } from "../../../apps/server/test/helpers/ledger.ts";
import * as sdk from "../src/index.ts";
import {
  AuthenticationError,
  type CreatePaymentParams,
  type CreateWithdrawParams,
  DuplicateReferenceIdError,
  IdempotencyKeyMismatchError,
  InsufficientBalanceError,
  InternalError,
  InvalidAmountError,
  InvalidBankCodeError,
  InvalidCredentialsError,
  InvalidCurrencyError,
  InvalidInputError,
  InvalidReferenceIdError,
  PayloadTooLargeError,
  RateLimitError,
  ResourceNotFoundError,
  Satang,
  SatangError,
  ServiceUnavailableError,
  StateConflictError,
  UnexpectedResponseError,
  ValidationError,
  WalletInactiveError,
} from "../src/index.ts";
import { customer, type ListeningService, listeningService, ref } from "./helpers/server.ts";

let service: ListeningService;
let satang: Satang;

before(async () => {
  service = await listeningService();
  satang = service.client();
});
after(async () => {
  await service?.close();
});

const MISSING = "00000000-0000-4000-8000-000000000000";

function paymentParams(overrides: Record<string, unknown> = {}): CreatePaymentParams {
  return {
    amount: "1000.00",
    referenceId: ref("err"),
    paymentMethod: "promptpay",
    ...customer(),
    ...overrides,
  } as CreatePaymentParams;
}

function withdrawParams(overrides: Partial<CreateWithdrawParams> = {}): CreateWithdrawParams {
  return {
    amount: "1000.00",
    referenceId: ref("wd"),
    destinationType: "bank_account",
    customerBankAccountName: `Payee ${randomUUID().slice(0, 12)}`,
    customerBankAccountNumber: "1234567890",
    customerBankCode: "014",
    ...overrides,
  };
}

/** Awaits a rejection of class `type` and hands it over for more checks. */
async function refused<E extends SatangError<any>>(
  promise: Promise<unknown>,
  type: abstract new (...args: any[]) => E,
  code: string,
  status: number,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      error instanceof type,
      `expected ${type.name}, got ${(error as Error)?.constructor?.name}: ${error}`,
    );
    assert.ok(error instanceof SatangError);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.equal(error.name, type.name);
    assert.ok(error.message.length > 0);
    assert.match(error.requestId ?? "", /.+/, "carries the request id");
    return error;
  }
  assert.fail(`expected ${type.name}`);
}

describe("the error classes", () => {
  it("exports the class of every code under its own name, so a caller can test for it", () => {
    for (const [code, ErrorClass] of Object.entries(sdk.ERROR_CLASSES)) {
      assert.equal((sdk as Record<string, unknown>)[ErrorClass.name], ErrorClass, code);
    }
  });
});

describe("typed errors from a real server", () => {
  it("VALIDATION_ERROR names the field", async () => {
    const error = await refused(
      satang.payments.list({ limit: 500 }),
      ValidationError,
      "VALIDATION_ERROR",
      400,
    );
    assert.equal(error.metadata?.field, "limit");
    await refused(satang.payments.retrieveByReference("bad ref!"), ValidationError, "VALIDATION_ERROR", 400);
  });

  it("INVALID_AMOUNT, INVALID_CURRENCY, INVALID_REFERENCE_ID and INVALID_BANK_CODE name the field", async () => {
    const amount = await refused(
      satang.payments.create(paymentParams({ amount: "10.50" })),
      InvalidAmountError,
      "INVALID_AMOUNT",
      400,
    );
    assert.equal(amount.metadata.field, "amount");
    const currency = await refused(
      satang.payments.create(paymentParams({ currency: "USD" })),
      InvalidCurrencyError,
      "INVALID_CURRENCY",
      400,
    );
    assert.equal(currency.metadata.field, "currency");
    const reference = await refused(
      satang.payments.create(paymentParams({ referenceId: "has space" })),
      InvalidReferenceIdError,
      "INVALID_REFERENCE_ID",
      400,
    );
    assert.equal(reference.metadata.field, "referenceId");
    const bank = await refused(
      satang.payments.create(paymentParams({ customerBankCode: "999" })),
      InvalidBankCodeError,
      "INVALID_BANK_CODE",
      400,
    );
    assert.equal(bank.metadata.field, "customerBankCode");
  });

  it("RESOURCE_NOT_FOUND for a missing payment, withdraw, event or endpoint", async () => {
    await refused(satang.payments.retrieve(MISSING), ResourceNotFoundError, "RESOURCE_NOT_FOUND", 404);
    await refused(satang.withdraws.retrieve(MISSING), ResourceNotFoundError, "RESOURCE_NOT_FOUND", 404);
    await refused(satang.events.retrieve(MISSING), ResourceNotFoundError, "RESOURCE_NOT_FOUND", 404);
    await refused(satang.webhookEndpoints.delete(MISSING), ResourceNotFoundError, "RESOURCE_NOT_FOUND", 404);
  });

  it("DUPLICATE_REFERENCE_ID for a used referenceId under a new idempotency key", async () => {
    const params = paymentParams();
    await satang.payments.create(params);
    const error = await refused(
      satang.payments.create({ ...params, ...customer() }),
      DuplicateReferenceIdError,
      "DUPLICATE_REFERENCE_ID",
      409,
    );
    assert.equal(error.metadata.field, "referenceId");
  });

  it("IDEMPOTENCY_KEY_MISMATCH when a key is reused with another body", async () => {
    const idempotencyKey = randomUUID();
    await satang.payments.create(paymentParams({ idempotencyKey }));
    const error = await refused(
      satang.payments.create(paymentParams({ idempotencyKey })),
      IdempotencyKeyMismatchError,
      "IDEMPOTENCY_KEY_MISMATCH",
      422,
    );
    assert.equal(error.metadata.field, "idempotencyKey");
  });

  it("PAYLOAD_TOO_LARGE for a body over 64 KiB", async () => {
    await refused(
      satang.payments.create(paymentParams({ description: "x".repeat(70_000) })),
      PayloadTooLargeError,
      "PAYLOAD_TOO_LARGE",
      413,
    );
  });

  it("INVALID_CREDENTIALS for a wrong secret, AUTHENTICATION_ERROR for a disabled merchant", async () => {
    const wrong = new Satang({
      apiKey: service.svc.credentials.apiKey,
      apiSecret: "wrong",
      baseUrl: service.baseUrl,
    });
    await refused(wrong.balance.retrieve(), InvalidCredentialsError, "INVALID_CREDENTIALS", 401);
    const shop = await service.svc.newMerchant({ status: "disabled" });
    await refused(
      service.client({}, shop).balance.retrieve(),
      AuthenticationError,
      "AUTHENTICATION_ERROR",
      401,
    );
  });

  describe("withdraw refusals", () => {
    let shop: Credentials;
    let client: Satang;
    before(async () => {
      shop = await service.svc.newMerchant({ dailyWithdrawLimitSatang: 500_000n });
      client = service.client({}, shop);
    });

    it("INSUFFICIENT_BALANCE with the available amount", async () => {
      const error = await refused(
        client.withdraws.create(withdrawParams()),
        InsufficientBalanceError,
        "INSUFFICIENT_BALANCE",
        400,
      );
      assert.deepEqual(error.metadata, { available: "0.00", amount: "1000.00" });
    });

    it("INVALID_INPUT with the daily limit metadata", async () => {
      await fundWallet(service.svc.deps, shop.merchantId, 1_000_000n);
      const error = await refused(
        client.withdraws.create(withdrawParams({ amount: "600000.00" })),
        InvalidInputError,
        "INVALID_INPUT",
        400,
      );
      assert.ok("dailyLimit" in error.metadata);
      assert.equal(error.metadata.dailyLimit, "500000.00");
      assert.equal(error.metadata.amount, "600000.00");
    });

    it("STATE_CONFLICT from the payout guard names the matching payout", async () => {
      const first = await client.withdraws.create(
        withdrawParams({ customerBankAccountName: "Somsri Rakdee" }),
      );
      const error = await refused(
        client.withdraws.create(withdrawParams({ customerBankAccountName: "somsri  RAKDEE." })),
        StateConflictError,
        "STATE_CONFLICT",
        409,
      );
      assert.ok(error.isPayoutGuard());
      assert.equal(error.metadata.existingWithdrawId, first.id);
      assert.equal(error.metadata.existingWithdrawStatus, "pending");
      assert.equal(error.metadata.reason, "active_payout");
    });

    it("STATE_CONFLICT from a simulation the status does not allow is not a guard block", async () => {
      const payment = await client.payments.create(paymentParams());
      await client.payments.cancel(payment.id);
      const error = await refused(
        client.sandbox.simulatePayment(payment.id, "succeeded"),
        StateConflictError,
        "STATE_CONFLICT",
        409,
      );
      assert.equal(error.isPayoutGuard(), false);
      assert.ok("reason" in error.metadata);
      assert.equal(typeof error.metadata.reason, "string");
    });

    it("WALLET_INACTIVE once the wallet is frozen", async () => {
      await updateMerchant(service.svc.deps, shop.merchantId, { walletStatus: "frozen" });
      const error = await refused(
        client.withdraws.create(withdrawParams()),
        WalletInactiveError,
        "WALLET_INACTIVE",
        403,
      );
      assert.equal(error.metadata.walletStatus, "frozen");
    });
  });

  it("RATE_LIMIT_EXCEEDED with typed limit metadata once the minute's budget is spent", async () => {
    const limited = await listeningService({ env: { RATE_LIMIT_PER_MINUTE: "2" } });
    try {
      const client = limited.client({ maxRetries: 0 });
      await client.balance.retrieve();
      await client.balance.retrieve();
      const error = await refused(client.balance.retrieve(), RateLimitError, "RATE_LIMIT_EXCEEDED", 429);
      assert.equal(error.metadata.limit, 2);
      assert.equal(error.metadata.remaining, 0);
      assert.ok(error.metadata.retryAfter > 0 && error.metadata.retryAfter <= 60);
      assert.ok(Date.parse(error.metadata.resetAt) > Date.now());
      // With retries on, the SDK waits what the server's Retry-After says (the fake sleep does not
      // really wait, so the window is still spent and the last 429 reaches the caller).
      const waits: number[] = [];
      const patient = limited.client({ maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
      await refused(patient.balance.retrieve(), RateLimitError, "RATE_LIMIT_EXCEEDED", 429);
      assert.equal(waits.length, 2);
      for (const ms of waits) assert.ok(ms > 0 && ms <= 60_000 && ms % 1000 === 0, `waited ${ms} ms`);
    } finally {
      await limited.close();
    }
  });
});

describe("errors without a server", () => {
  const answering =
    (status: number, body: string, headers: Record<string, string> = {}) =>
    async () =>
      new Response(body, { status, headers: { "x-request-id": "req-1", ...headers } });
  const client = (fetch: () => Promise<Response>) =>
    new Satang({ apiKey: "k", apiSecret: "s", baseUrl: "http://satang.test", fetch, maxRetries: 0 });

  it("INTERNAL_ERROR and SERVICE_UNAVAILABLE have their classes", async () => {
    const internal = JSON.stringify({
      success: false,
      error: { code: "INTERNAL_ERROR", message: "Internal server error" },
    });
    await refused(client(answering(500, internal)).balance.retrieve(), InternalError, "INTERNAL_ERROR", 500);
    const down = JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "down" } });
    await refused(
      client(answering(503, down)).balance.retrieve(),
      ServiceUnavailableError,
      "SERVICE_UNAVAILABLE",
      503,
    );
  });

  it("a code newer than the SDK is a SatangError with that code; a page without an envelope is UnexpectedResponseError", async () => {
    const newer = JSON.stringify({
      success: false,
      error: { code: "SOMETHING_NEW", message: "new", metadata: { a: 1 } },
    });
    const error = await refused(
      client(answering(400, newer)).balance.retrieve(),
      SatangError,
      "SOMETHING_NEW",
      400,
    );
    assert.deepEqual(error.metadata, { a: 1 });
    await refused(
      client(answering(502, "<html>Bad gateway</html>")).balance.retrieve(),
      UnexpectedResponseError,
      "UNEXPECTED_RESPONSE",
      502,
    );
  });
});
