/**
 * The OpenAPI document tells the truth about errors and is usable by generated clients and by
 * "Try it out": every error an operation really answers is documented under its status with an
 * example of that code (never a 404 example under 401), the examples are what the service sends,
 * every operation has a unique camelCase operationId, a create's request and response examples
 * show the same amount, no list filter is pre-filled, and the signing formulas in /docs render
 * as text rather than as list items.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Value } from "typebox/value";
import { errorObjectSchema } from "../../src/http/envelope.ts";
import { ERROR_STATUS, type ErrorCode } from "../../src/lib/errors.ts";
import { updateMerchant } from "../../src/merchants/service.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { createRefund, succeededPayment } from "../helpers/refunds.ts";
import { fundedMerchant, payeeName, withdrawBody } from "../helpers/withdraws.ts";

type Json = any;

let svc: TestService;
let doc: Json;

before(async () => {
  svc = await startService();
  doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
});
after(async () => {
  await svc.close();
});

interface Operation {
  method: string;
  path: string;
  operation: Json;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(methods)) out.push({ method, path, operation });
  }
  return out;
}

function operationById(id: string): Operation {
  const found = operations().find((op) => op.operation.operationId === id);
  assert.ok(found, `operation ${id} is documented`);
  return found;
}

/** The error bodies documented for one status of an operation. */
function documentedErrors(
  id: string,
  status: number,
): Array<{ code: string; message: string; metadata?: Json }> {
  const response = operationById(id).operation.responses[String(status)];
  const examples = response?.content?.["application/json"]?.examples ?? {};
  return Object.values<Json>(examples).map((example) => example.value.error);
}

/**
 * A real answer is documented: its status is a documented response of the operation, with an
 * example of its code; with `exact`, an example with its very message too.
 */
function assertDocumented(id: string, answer: { status: number; body: Json }, exact = true): void {
  const error = answer.body?.error;
  assert.ok(error, `${id} answered ${answer.status} without an error: ${JSON.stringify(answer.body)}`);
  const documented = documentedErrors(id, answer.status);
  const sameCode = documented.filter((example) => example.code === error.code);
  assert.ok(
    sameCode.length > 0,
    `${id}: a real ${answer.status} ${error.code} is not documented (documented: ${JSON.stringify(documented)})`,
  );
  if (exact) {
    assert.ok(
      sameCode.some((example) => example.message === error.message),
      `${id}: the real message "${error.message}" is not an example (${JSON.stringify(sameCode)})`,
    );
  }
}

const paymentBody = (overrides: Record<string, unknown> = {}) => ({
  amount: "1000.00",
  referenceId: `pay-${randomUUID()}`,
  paymentMethod: "promptpay",
  customerBankAccountName: "Somchai Jaidee",
  customerBankAccountNumber: "1234567890",
  customerBankCode: "004",
  ...overrides,
});

describe("operationIds", () => {
  it("gives every operation a unique camelCase operationId", () => {
    const ids = operations().map(({ method, path, operation }) => {
      assert.equal(typeof operation.operationId, "string", `${method} ${path} has no operationId`);
      assert.match(operation.operationId, /^[a-z][a-zA-Z0-9]*$/, `${method} ${path}`);
      return operation.operationId as string;
    });
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(", ")}`);
  });

  it("names the published endpoints as generated clients call them", () => {
    const expected: Record<string, string> = {
      "post /api/v1/payments": "createPayment",
      "get /api/v1/payments": "listPayments",
      "get /api/v1/payments/{payment_id}": "retrievePayment",
      "get /api/v1/payments/by-reference/{referenceId}": "retrievePaymentByReference",
      "post /api/v1/payments/{payment_id}/cancel": "cancelPayment",
      "post /api/v1/withdraws": "createWithdraw",
      "get /api/v1/withdraws": "listWithdraws",
      "get /api/v1/withdraws/{withdraw_id}": "retrieveWithdraw",
      "get /api/v1/withdraws/by-reference/{referenceId}": "retrieveWithdrawByReference",
      "post /api/v1/withdraws/{withdraw_id}/cancel": "cancelWithdraw",
      "get /api/v1/balance": "getBalance",
    };
    for (const [where, id] of Object.entries(expected)) {
      const [method, path] = where.split(" ") as [string, string];
      assert.equal(doc.paths[path]?.[method]?.operationId, id, where);
    }
  });
});

describe("documented errors", () => {
  it("documents each error under the status the service answers it with, each with an example", () => {
    let count = 0;
    for (const { method, path, operation } of operations()) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) < 400) continue;
        const examples = Object.entries<Json>(response.content?.["application/json"]?.examples ?? {});
        assert.ok(examples.length > 0, `${method} ${path} ${status} has no example`);
        for (const [name, example] of examples) {
          const code = example.value?.error?.code as ErrorCode;
          assert.equal(example.value.success, false);
          assert.equal(
            ERROR_STATUS[code],
            Number(status),
            `${method} ${path} ${status} example ${name}: ${code}`,
          );
          assert.ok(
            response.description.includes(code),
            `${method} ${path} ${status} description names ${code}`,
          );
          assert.ok(example.summary, `${method} ${path} ${status} example ${name} says when`);
          count++;
        }
      }
    }
    assert.ok(count > 200, `only ${count} error examples`);
  });

  it("documents 404 RESOURCE_NOT_FOUND on every operation that names a record in its path", () => {
    const named = operations().filter(({ path }) => /\{[^}]+\}/.test(path));
    assert.ok(named.length > 20, `only ${named.length} operations name a record`);
    const undocumented = named
      .filter(({ operation }) => {
        const examples = operation.responses["404"]?.content?.["application/json"]?.examples ?? {};
        return !Object.values<Json>(examples).some(
          (example) => example.value?.error?.code === "RESOURCE_NOT_FOUND",
        );
      })
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    assert.deepEqual(
      undocumented,
      [],
      "operations that answer 404 for an unknown record without documenting it",
    );
  });

  it("documents the headers a create's 200 carries, as the server sends them", async () => {
    const declared = (id: string) =>
      Object.keys(operationById(id).operation.responses["200"].headers ?? {}).filter(
        (name) => !name.startsWith("X-RateLimit-"),
      );
    assert.deepEqual(declared("createPayment").sort(), ["Idempotent-Replayed", "Satang-Payment-Reused"]);
    assert.deepEqual(declared("createWithdraw"), ["Idempotent-Replayed"]);
    assert.deepEqual(declared("createRefund"), ["Idempotent-Replayed"]);

    const body = {
      amount: "1000.00",
      referenceId: `hdr-${randomUUID()}`,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: String(1e9 + Math.floor(Math.random() * 8e9)),
      customerBankCode: "004",
      idempotencyKey: randomUUID(),
    };
    const created = await svc.request("POST", "/api/v1/payments", body);
    assert.equal(created.status, 201);
    const replay = await svc.request("POST", "/api/v1/payments", body);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    const reused = await svc.request("POST", "/api/v1/payments", {
      ...body,
      referenceId: `hdr-${randomUUID()}`,
      idempotencyKey: randomUUID(),
    });
    assert.equal(reused.headers["satang-payment-reused"], "true");
  });

  it("documents the X-RateLimit headers on every answer the rate limit counts, as the server sends them", async () => {
    const counted = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
    for (const { method, path, operation } of operations()) {
      const hmac = (operation.security ?? []).some((scheme: Json) => "ApiKey" in scheme);
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const declared = Object.keys(response.headers ?? {});
        const where = `${method} ${path} ${status}`;
        if (hmac && !["401", "408", "413"].includes(status)) {
          for (const name of counted) assert.ok(declared.includes(name), `${where} declares ${name}`);
        } else if (status !== "429") {
          for (const name of counted)
            assert.ok(!declared.includes(name), `${where} does not declare ${name}`);
        }
      }
    }
    // What the server sends: a success, a 404, a 400 and a 409 carry them; a 401 does not.
    const reference = `rl-${randomUUID()}`;
    const account = String(1e9 + Math.floor(Math.random() * 8e9));
    const answers = [
      await svc.request(
        "POST",
        "/api/v1/payments",
        paymentBody({ referenceId: reference, customerBankAccountNumber: account }),
      ),
      await svc.request("GET", "/api/v1/balance"),
      await svc.request("GET", `/api/v1/payments/${randomUUID()}`),
      await svc.request("POST", "/api/v1/payments", paymentBody({ amount: "1.001" })),
      await svc.request(
        "POST",
        "/api/v1/payments",
        paymentBody({ referenceId: reference, amount: "1001.00" }),
      ),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 200, 404, 400, 409],
    );
    for (const answer of answers) {
      for (const name of counted)
        assert.ok(answer.headers[name.toLowerCase()], `${answer.status} carries ${name}`);
    }
    const unsigned = await svc.app.inject({ method: "GET", url: "/api/v1/balance" });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(unsigned.headers["x-ratelimit-limit"], undefined);
    const tooLarge = await svc.request(
      "POST",
      "/api/v1/payments",
      paymentBody({ metadata: { x: "a".repeat(70_000) } }),
    );
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.headers["x-ratelimit-limit"], undefined);
  });

  it("documents a dashboard login's 429 with Retry-After alone, as its lockout answers", async () => {
    const login = operations().find(({ operation }) => operation.operationId === "logIn")!;
    assert.deepEqual(Object.keys(login.operation.responses["429"].headers), ["Retry-After"]);
    const email = `${randomUUID()}@nobody.example`;
    let res = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email, password: "wrong-password" },
    });
    for (let attempt = 1; attempt <= 5; attempt++) {
      res = await svc.app.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: { email, password: "wrong-password" },
      });
    }
    assert.equal(res.statusCode, 429, res.body);
    assert.ok(res.headers["retry-after"]);
    assert.equal(res.headers["x-ratelimit-limit"], undefined);
  });

  it("documents authentication, the rate limit, 408 and 503 with Retry-After on every HMAC operation", () => {
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`;
      const hmac = (operation.security ?? []).some((scheme: Json) => "ApiKey" in scheme);
      if (hmac) {
        const codes401 = documentedErrors(operation.operationId, 401).map((e) => e.code);
        assert.deepEqual(codes401.sort(), ["AUTHENTICATION_ERROR", "INVALID_CREDENTIALS"], where);
        // The rate limit on every one; the CSV exports also document their per-merchant bound.
        const codes429 = documentedErrors(operation.operationId, 429).map((e) => e.code);
        assert.ok(codes429.length >= 1, `${where} documents 429`);
        assert.ok(
          codes429.every((code) => code === "RATE_LIMIT_EXCEEDED"),
          `${where} 429 is RATE_LIMIT_EXCEEDED`,
        );
        assert.ok(operation.responses["429"].headers["Retry-After"], `${where} 429 Retry-After`);
        assert.ok(operation.responses["429"].headers["X-RateLimit-Limit"], `${where} 429 X-RateLimit-Limit`);
      }
      assert.ok(operation.responses["503"]?.headers?.["Retry-After"], `${where} 503 with Retry-After`);
      // Any request can stop arriving (its headers, or its body): 408 with its own code.
      assert.deepEqual(
        documentedErrors(operation.operationId, 408).map((e) => e.code),
        ["REQUEST_TIMEOUT"],
        where,
      );
      if (operation.requestBody) {
        assert.ok(operation.responses["400"], `${where} takes a body and documents 400`);
        assert.deepEqual(
          documentedErrors(operation.operationId, 413).map((e) => e.code),
          ["PAYLOAD_TOO_LARGE"],
          where,
        );
      }
    }
  });

  it("documents the field codes of the create bodies and the create's own conflicts", () => {
    const codes = (id: string, status: number) => new Set(documentedErrors(id, status).map((e) => e.code));
    for (const id of ["createPayment", "createWithdraw"]) {
      for (const code of [
        "VALIDATION_ERROR",
        "INVALID_AMOUNT",
        "INVALID_CURRENCY",
        "INVALID_REFERENCE_ID",
        "INVALID_BANK_CODE",
      ]) {
        assert.ok(codes(id, 400).has(code), `${id} 400 ${code}`);
      }
      assert.ok(codes(id, 409).has("DUPLICATE_REFERENCE_ID"), `${id} 409`);
      assert.ok(codes(id, 422).has("IDEMPOTENCY_KEY_MISMATCH"), `${id} 422`);
    }
    assert.ok(codes("createWithdraw", 403).has("WALLET_INACTIVE"));
    assert.ok(codes("createWithdraw", 409).has("STATE_CONFLICT"));
    assert.ok(codes("createWithdraw", 400).has("INVALID_INPUT"));
    assert.ok(codes("createWithdraw", 400).has("INSUFFICIENT_BALANCE"));
    assert.deepEqual(documentedErrors("retrievePayment", 404), [
      { code: "RESOURCE_NOT_FOUND", message: "Payment not found" },
    ]);
    assert.deepEqual(documentedErrors("retrieveWithdraw", 404), [
      { code: "RESOURCE_NOT_FOUND", message: "Withdraw not found" },
    ]);
    // The balance has no record to miss.
    assert.equal(operationById("getBalance").operation.responses["404"], undefined);
  });
});

describe("real errors are documented for the operation that answered them", () => {
  it("an unsigned request to every HMAC operation: 401 INVALID_CREDENTIALS, as documented", async () => {
    for (const { method, path, operation } of operations()) {
      if (!(operation.security ?? []).some((scheme: Json) => "ApiKey" in scheme)) continue;
      const url = path.replace(/\{[^}]+\}/g, randomUUID());
      const answer = await svc.app.inject({
        method: method.toUpperCase() as "GET",
        url,
        ...(operation.requestBody ? { payload: {} } : {}),
      });
      assertDocumented(operation.operationId, { status: answer.statusCode, body: answer.json() });
    }
  });

  it("payments: 404, 400 for a missing field, 409 for a used referenceId, 422, 413, and a refused cancel", async () => {
    assertDocumented("retrievePayment", await svc.request("GET", `/api/v1/payments/${randomUUID()}`));
    assertDocumented(
      "retrievePaymentByReference",
      await svc.request("GET", "/api/v1/payments/by-reference/none-here"),
    );
    assertDocumented("cancelPayment", await svc.request("POST", `/api/v1/payments/${randomUUID()}/cancel`));
    assertDocumented("createPayment", await svc.request("POST", "/api/v1/payments", {}));
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", paymentBody({ merchantId: "x" })),
    );
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", paymentBody({ amount: "1,000" })),
    );
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", paymentBody({ currency: "USD" })),
    );
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", paymentBody({ customerBankCode: "999" })),
    );
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", undefined, { rawBody: '{"amount":' }),
    );
    assertDocumented(
      "createPayment",
      await svc.request("POST", "/api/v1/payments", { description: "x".repeat(70_000) }),
    );

    const first = paymentBody({ idempotencyKey: `key-${randomUUID()}` });
    const created = await svc.request("POST", "/api/v1/payments", first);
    assert.equal(created.status, 201);
    const duplicate = await svc.request(
      "POST",
      "/api/v1/payments",
      paymentBody({ referenceId: first.referenceId }),
    );
    assert.equal(duplicate.status, 409);
    assertDocumented("createPayment", duplicate, false);
    const mismatch = await svc.request("POST", "/api/v1/payments", { ...first, amount: "2000.00" });
    assert.equal(mismatch.status, 422);
    assertDocumented("createPayment", mismatch);

    const id = created.body.data.id;
    assert.equal((await svc.request("POST", `/api/v1/payments/${id}/cancel`)).status, 200);
    const again = await svc.request("POST", `/api/v1/payments/${id}/cancel`);
    assert.equal(again.status, 400);
    assertDocumented("cancelPayment", again, false);
    assert.equal(again.body.error.metadata.field, "status");

    assertDocumented("listPayments", await svc.request("GET", "/api/v1/payments?page=abc"));

    // A merchant set up for neither method: each method's own refusal, word for word.
    const bare = await svc.newMerchant({ promptpayId: undefined, collectionAccount: undefined });
    for (const paymentMethod of ["promptpay", "bank_transfer"]) {
      const refused = await svc.request("POST", "/api/v1/payments", paymentBody({ paymentMethod }), {
        credentials: bare,
      });
      assert.equal(refused.status, 400);
      assertDocumented("createPayment", refused);
    }
  });

  it("withdraws: 404, a frozen wallet's 403, a matching payout's 409 and a refused cancel", async () => {
    assertDocumented("retrieveWithdraw", await svc.request("GET", `/api/v1/withdraws/${randomUUID()}`));
    assertDocumented("cancelWithdraw", await svc.request("POST", `/api/v1/withdraws/${randomUUID()}/cancel`));
    assertDocumented("createWithdraw", await svc.request("POST", "/api/v1/withdraws", {}));

    const merchant = await fundedMerchant(svc);
    const name = payeeName();
    const first = await svc.request(
      "POST",
      "/api/v1/withdraws",
      withdrawBody({ customerBankAccountName: name }),
      {
        credentials: merchant,
      },
    );
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const matching = await svc.request(
      "POST",
      "/api/v1/withdraws",
      withdrawBody({ customerBankAccountName: name }),
      { credentials: merchant },
    );
    assert.equal(matching.status, 409);
    assertDocumented("createWithdraw", matching, false);

    const poor = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "9999999999.00" }), {
      credentials: merchant,
    });
    assert.equal(poor.status, 400);
    assertDocumented("createWithdraw", poor, false);

    await updateMerchant(svc.deps, merchant.merchantId, { walletStatus: "frozen" });
    const frozen = await svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: merchant });
    assert.equal(frozen.status, 403);
    assertDocumented("createWithdraw", frozen);
  });

  it("the dashboard's login and logout: a disabled merchant's 401 AUTHENTICATION_ERROR, as documented", async () => {
    const shop = await svc.newMerchant();
    const user = await dashboardUser(svc, shop.merchantId);
    await updateMerchant(svc.deps, shop.merchantId, { status: "disabled" });
    const login = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: JSON.stringify({ email: user.email, password: user.password }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(login.statusCode, 401);
    assert.equal(login.json().error.code, "AUTHENTICATION_ERROR");
    assertDocumented("logIn", { status: login.statusCode, body: login.json() });
    const logout = await svc.app.inject({
      method: "POST",
      url: "/api/v1/auth/logout",
      headers: { authorization: `Bearer ${user.token}` },
    });
    assert.equal(logout.statusCode, 401);
    assertDocumented("logOut", { status: logout.statusCode, body: logout.json() });
  });

  it("the operator's user create: a taken email's 409, as documented", async () => {
    const shop = await svc.newMerchant();
    const body = { email: `taken-${randomUUID()}@shop.example`, password: "correct horse battery" };
    assert.equal((await svc.admin("POST", `/admin/v1/merchants/${shop.merchantId}/users`, body)).status, 201);
    const again = await svc.admin("POST", `/admin/v1/merchants/${shop.merchantId}/users`, {
      ...body,
      email: body.email.toUpperCase(),
    });
    assert.equal(again.status, 409);
    assertDocumented("createDashboardUser", again);
  });

  it("the operator API: a wrong token and an unknown merchant, as documented", async () => {
    const unknown = await svc.admin("GET", `/admin/v1/merchants/${randomUUID()}`);
    assertDocumented("retrieveMerchant", unknown);
    const refused = await svc.admin(
      "GET",
      `/admin/v1/merchants/${randomUUID()}`,
      undefined,
      "wrong-token-0123456789",
    );
    assertDocumented("retrieveMerchant", refused);
    const adjusted = await svc.admin("POST", `/admin/v1/merchants/${randomUUID()}/wallet/adjustments`, {
      amount: "100.00",
      reason: "unknown merchant",
    });
    assertDocumented("adjustMerchantWallet", adjusted);
    const user = await svc.admin("POST", `/admin/v1/merchants/${randomUUID()}/users`, {
      email: `nobody-${randomUUID()}@shop.example`,
      password: "a-long-enough-password",
    });
    assertDocumented("createDashboardUser", user);
  });

  it("webhook endpoints: an unknown endpoint's 404, as documented for each operation", async () => {
    const missing = `/api/v1/webhook-endpoints/${randomUUID()}`;
    assertDocumented("updateWebhookEndpoint", await svc.request("PATCH", missing, { disabled: true }));
    assertDocumented("retrieveWebhookEndpoint", await svc.request("GET", missing));
  });
});

describe("the payout desk's outcome conflicts are documented (SATANG_PAYOUTS=manual)", () => {
  let desk: TestService;
  before(async () => {
    desk = await startService({ env: { SATANG_PAYOUTS: "manual", SANDBOX_PAYOUT_PICKUP: "automatic" } });
  });
  after(async () => {
    await desk?.close();
  });

  /** A real 409 is documented for the operation, with an example of its reason. */
  function assertConflictDocumented(id: string, answer: { status: number; body: Json }, reason: string) {
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error.metadata.reason, reason);
    assertDocumented(id, answer, false);
    const reasons = documentedErrors(id, 409).map((example) => example.metadata?.reason);
    assert.ok(reasons.includes(reason), `${id}: 409 ${reason} has no example (${reasons.join(", ")})`);
    assert.deepEqual(
      [...Value.Errors(errorObjectSchema("STATE_CONFLICT"), answer.body.error)],
      [],
      `${id}: the real metadata is the documented one`,
    );
  }

  it("a second, different outcome and a bank reference in use answer 409 as documented, for withdraw and refund lines; a line not in the batch 404", async () => {
    const shop = await fundedMerchant(desk);
    const withdraw = async () => {
      desk.clock.advance(1000);
      const res = await desk.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "100.00" }), {
        credentials: shop,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };
    const first = await withdraw();
    const second = await withdraw();
    desk.clock.advance(1000);
    const payment = await succeededPayment(desk, shop, "5000.00");
    const refund = (await createRefund(desk, shop, payment.id, { amount: "100.00" })).id as string;
    const created = await desk.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const batch = created.body.data.id as string;
    const onWithdraw = (withdrawId: string, body: Record<string, unknown>) =>
      desk.admin("POST", `/admin/v1/payout-batches/${batch}/items/${withdrawId}/outcome`, body);
    const onRefund = (body: Record<string, unknown>) =>
      desk.admin("POST", `/admin/v1/payout-batches/${batch}/refunds/${refund}/outcome`, body);
    const reference = `DOC-${randomUUID().slice(0, 8)}`;

    assert.equal((await onWithdraw(first, { outcome: "paid", bankReference: reference })).status, 200);
    assertConflictDocumented(
      "recordPayoutOutcome",
      await onWithdraw(first, { outcome: "failed", reason: "bounced" }),
      "outcome_already_recorded",
    );
    assertConflictDocumented(
      "recordRefundPayoutOutcome",
      await onRefund({ outcome: "paid", bankReference: reference }),
      "bank_reference_in_use",
    );
    assert.equal((await onRefund({ outcome: "paid", bankReference: `${reference}-R` })).status, 200);
    assertConflictDocumented(
      "recordRefundPayoutOutcome",
      await onRefund({ outcome: "failed", reason: "bounced" }),
      "outcome_already_recorded",
    );
    // A reference recorded for a refund line names the refund.
    const heldByRefund = await onWithdraw(second, { outcome: "paid", bankReference: `${reference}-R` });
    assertConflictDocumented("recordPayoutOutcome", heldByRefund, "bank_reference_in_use");
    assert.equal(heldByRefund.body.error.metadata.refundId, refund);
    assert.equal((await onWithdraw(second, { outcome: "failed", reason: "closing the test" })).status, 200);
    // A withdraw that is not a line of the batch: 404, word for word.
    assertDocumented(
      "recordPayoutOutcome",
      await onWithdraw(randomUUID(), { outcome: "paid", bankReference: `${reference}-X` }),
    );
  });
});

describe("examples and Try it out", () => {
  it("shows the same amount in a create's request and response examples", () => {
    for (const id of ["createPayment", "createWithdraw"]) {
      const { operation } = operationById(id);
      const request = operation.requestBody.content["application/json"].example;
      for (const status of ["200", "201"]) {
        const response = operation.responses[status].content["application/json"].example;
        assert.equal(response.data.amount, request.amount, `${id} ${status}`);
      }
    }
  });

  it("pre-fills no list filter: query parameters carry no example, and only paging and sorting have defaults", () => {
    // `bom` is an output option of the CSV exports, not a filter: its default (false) finds as much.
    const defaultsAllowed = new Set(["page", "limit", "sortBy", "sortOrder", "responseMode", "bom"]);
    for (const { method, path, operation } of operations()) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query") continue;
        const where = `${method} ${path} ?${parameter.name}`;
        for (const holder of [parameter, parameter.schema ?? {}]) {
          assert.equal(holder.example, undefined, `${where} has an example`);
          assert.equal(holder.examples, undefined, `${where} has examples`);
        }
        if (!defaultsAllowed.has(parameter.name)) {
          assert.equal(parameter.schema?.default, undefined, `${where} has a default`);
        }
      }
    }
    const listParameters = operationById("listPayments").operation.parameters.map((p: Json) => p.name);
    assert.ok(listParameters.includes("dateFrom") && listParameters.includes("dateTo"));
  });

  it("writes the signing formulas so that markdown keeps them on one line, not as list items", () => {
    const description: string = doc.info.description;
    for (const line of description.split("\n")) {
      assert.doesNotMatch(line, /^\s*\+/, `a line starting with + renders as a bullet: ${line}`);
    }
    assert.ok(
      description.includes(
        '`HMAC-SHA256(secret, timestamp + "." + METHOD + "." + path with query + "." + raw body)`',
      ),
      "the v2 formula is one code span",
    );
    assert.ok(description.includes('`HMAC-SHA256(secret, timestamp + "." + raw body)`'), "the v1 formula");
  });
});
