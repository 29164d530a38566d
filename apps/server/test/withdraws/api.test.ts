import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { sql } from "kysely";
import { updateMerchant } from "../../src/merchants/service.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import { statementsOf } from "../helpers/statements.ts";
import { fundedMerchant, payeeName, referenceId, withdrawBody } from "../helpers/withdraws.ts";

const WITHDRAW_FIELDS = [
  "id",
  "amount",
  "currency",
  "status",
  "referenceId",
  "destinationType",
  "bankAccountNumber",
  "bankAccountName",
  "bankCode",
  "destinationId",
  "description",
  "metadata",
  "paidAt",
  "canceledAt",
  "createdAt",
  "updatedAt",
];

describe("withdraws: create, view and retrieve", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await fundedMerchant(svc);
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const create = (body: unknown, credentials: Credentials = merchant) =>
    svc.request("POST", "/api/v1/withdraws", body, { credentials });

  it("creates a pending withdraw with exactly the interface's fields and a masked account number", async () => {
    const body = withdrawBody({
      amount: "2500",
      customerBankAccountNumber: "123-456-7890",
      description: "weekly payout",
      metadata: { order: "A-1" },
    });
    const res = await create(body);
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const w = res.body.data;
    assert.deepEqual(Object.keys(w).sort(), [...WITHDRAW_FIELDS].sort());
    assert.match(w.id, /^[0-9a-f-]{36}$/);
    assert.equal(w.amount, "2500.00");
    assert.equal(w.currency, "THB");
    assert.equal(w.status, "pending");
    assert.equal(w.referenceId, body.referenceId);
    assert.equal(w.destinationType, "bank_account");
    assert.equal(w.bankAccountNumber, "******7890");
    assert.equal(w.bankAccountName, body.customerBankAccountName);
    assert.equal(w.bankCode, "004");
    assert.match(w.destinationId, /^[0-9a-f-]{36}$/);
    assert.equal(w.description, "weekly payout");
    assert.deepEqual(w.metadata, { order: "A-1" });
    assert.equal(w.paidAt, null);
    assert.equal(w.canceledAt, null);
    assert.equal(w.createdAt, svc.clock.now().toISOString());
    assert.equal(w.updatedAt, w.createdAt);
  });

  it("presents absent optional fields as null", async () => {
    const body = withdrawBody();
    delete body.currency;
    const res = await create(body);
    assert.equal(res.status, 201);
    assert.equal(res.body.data.description, null);
    assert.equal(res.body.data.metadata, null);
    assert.equal(res.body.data.currency, "THB");
  });

  it("holds the amount: the available wallet drops and the held account rises by it", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const res = await create(withdrawBody({ amount: "4000.00" }), own);
    assert.equal(res.status, 201);
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_available, 6_000n);
    assert.equal(balances.wallet_held, 4_000n);
  });

  it("gives the same destinationId to the same type, bank and account number, whatever the formatting", async () => {
    const first = await create(withdrawBody({ customerBankAccountNumber: "111-222-3333", amount: "11" }));
    const second = await create(withdrawBody({ customerBankAccountNumber: "1112223333", amount: "12" }));
    const otherBank = await create(
      withdrawBody({ customerBankAccountNumber: "1112223333", customerBankCode: "014", amount: "13" }),
    );
    const otherType = await create(
      withdrawBody({ customerBankAccountNumber: "1112223333", destinationType: "wallet", amount: "14" }),
    );
    assert.equal(first.status, 201);
    assert.equal(first.body.data.destinationId, second.body.data.destinationId);
    assert.notEqual(first.body.data.destinationId, otherBank.body.data.destinationId);
    assert.notEqual(first.body.data.destinationId, otherType.body.data.destinationId);
    assert.equal(otherType.body.data.destinationType, "wallet");
  });

  it("writes a saved destination only when its holder name changes, and keeps its id", async () => {
    const version = async (id: string) =>
      (
        await sql<{ xmin: string; account_name: string }>`select xmin::text as xmin, account_name
          from withdraw_destinations where id = ${id}`.execute(svc.deps.db)
      ).rows[0]!;
    const name = payeeName();
    const first = await create(
      withdrawBody({ customerBankAccountNumber: "5554443332", customerBankAccountName: name, amount: "31" }),
    );
    const saved = await version(first.body.data.destinationId);
    const again = await create(
      withdrawBody({ customerBankAccountNumber: "5554443332", customerBankAccountName: name, amount: "32" }),
    );
    assert.equal(again.status, 201);
    assert.equal(again.body.data.destinationId, first.body.data.destinationId);
    // Read, not written: the same row version.
    assert.deepEqual(await version(first.body.data.destinationId), saved);
    const renamed = await create(
      withdrawBody({
        customerBankAccountNumber: "5554443332",
        customerBankAccountName: `${name} Jr`,
        amount: "33",
      }),
    );
    assert.equal(renamed.body.data.destinationId, first.body.data.destinationId);
    const refreshed = await version(first.body.data.destinationId);
    assert.equal(refreshed.account_name, `${name} Jr`);
    assert.notEqual(refreshed.xmin, saved.xmin);
    const count = await sql<{ n: string }>`select count(*)::text as n from withdraw_destinations
      where id = ${first.body.data.destinationId}`.execute(svc.deps.db);
    assert.equal(count.rows[0]!.n, "1");
  });

  it("gives another merchant's identical destination its own id", async () => {
    const other = await fundedMerchant(svc);
    const mine = await create(withdrawBody({ customerBankAccountNumber: "9998887776", amount: "21" }));
    const theirs = await create(
      withdrawBody({ customerBankAccountNumber: "9998887776", amount: "21" }),
      other,
    );
    assert.notEqual(mine.body.data.destinationId, theirs.body.data.destinationId);
  });

  it("starts at awaiting_verification at or above the merchant's verification threshold", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 5_000n });
    const below = await create(withdrawBody({ amount: "4999" }), own);
    const at = await create(withdrawBody({ amount: "5000" }), own);
    assert.equal(below.body.data.status, "pending");
    assert.equal(at.status, 201);
    assert.equal(at.body.data.status, "awaiting_verification");
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_held, 9_999n, "a withdraw awaiting verification holds its amount too");
  });

  it("retrieves a withdraw by id and by reference", async () => {
    const created = (await create(withdrawBody({ amount: "31" }))).body.data;
    const byId = await svc.request("GET", `/api/v1/withdraws/${created.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(byId.status, 200);
    assert.deepEqual(byId.body.data, created);
    const byRef = await svc.request(
      "GET",
      `/api/v1/withdraws/by-reference/${encodeURIComponent(created.referenceId)}`,
      undefined,
      { credentials: merchant },
    );
    assert.equal(byRef.status, 200);
    assert.deepEqual(byRef.body.data, created);
  });

  it("lists each withdraw as retrieve answers it, reading only the record's columns", async () => {
    const own = await fundedMerchant(svc);
    const created = await create(withdrawBody({ description: "listed", metadata: { order: "L-1" } }), own);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { result: listed, statements } = await statementsOf(() =>
      svc.request("GET", "/api/v1/withdraws", undefined, { credentials: own }),
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const page = statements.find((statement) => /from "withdraws"/.test(statement));
    assert.ok(page, statements.join("\n"));
    assert.doesNotMatch(page, /select \*|"withdraws"\.\*/);
    for (const column of ["idempotency_key", "request_hash", "merchant_id"]) {
      assert.doesNotMatch(page, new RegExp(`"${column}" as`), `${column} is not read`);
    }
    const retrieved = await svc.request("GET", `/api/v1/withdraws/${created.body.data.id}`, undefined, {
      credentials: own,
    });
    assert.deepEqual(listed.body.data.data, [retrieved.body.data]);
  });

  it("answers 404 'Withdraw not found' for a malformed id, an unknown id and another merchant's withdraw", async () => {
    const other = await fundedMerchant(svc);
    const theirs = (await create(withdrawBody({ amount: "41" }), other)).body.data;
    for (const id of ["not-a-uuid", "00000000-0000-4000-8000-000000000000", theirs.id]) {
      const res = await svc.request("GET", `/api/v1/withdraws/${id}`, undefined, { credentials: merchant });
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
      assert.equal(res.body.error.message, "Withdraw not found");
    }
    const byRef = await svc.request(
      "GET",
      `/api/v1/withdraws/by-reference/${theirs.referenceId}`,
      undefined,
      { credentials: merchant },
    );
    assert.equal(byRef.status, 404);
    assert.equal(byRef.body.error.message, "Withdraw not found");
  });

  it("refuses a malformed reference in a by-reference lookup with 400 VALIDATION_ERROR", async () => {
    const res = await svc.request("GET", "/api/v1/withdraws/by-reference/bad%20ref!", undefined, {
      credentials: merchant,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.metadata.field, "referenceId");
  });

  it("refuses an unsigned request with 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.app.inject({ method: "POST", url: "/api/v1/withdraws", payload: withdrawBody() });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
  });
});

describe("withdraws: body validation", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const expectError = async (body: unknown, status: number, code: string, field: string) => {
    const res = await svc.request("POST", "/api/v1/withdraws", body);
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.metadata?.field, field);
  };

  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ["a JSON number amount", { amount: 1000 }, "INVALID_AMOUNT", "amount"],
    ["a zero amount", { amount: "0.00" }, "INVALID_AMOUNT", "amount"],
    ["half a satang", { amount: "1000.50" }, "INVALID_AMOUNT", "amount"],
    ["a negative amount", { amount: "-5" }, "INVALID_AMOUNT", "amount"],
    ["fourteen digits", { amount: "12345678901234" }, "INVALID_AMOUNT", "amount"],
    ["a currency other than THB", { currency: "USD" }, "INVALID_CURRENCY", "currency"],
    ["a referenceId with a space", { referenceId: "a b" }, "INVALID_REFERENCE_ID", "referenceId"],
    [
      "a referenceId of 256 characters",
      { referenceId: "r".repeat(256) },
      "INVALID_REFERENCE_ID",
      "referenceId",
    ],
    ["an unknown destinationType", { destinationType: "card" }, "VALIDATION_ERROR", "destinationType"],
    ["an empty account name", { customerBankAccountName: "" }, "VALIDATION_ERROR", "customerBankAccountName"],
    [
      "a blank account name",
      { customerBankAccountName: "   " },
      "VALIDATION_ERROR",
      "customerBankAccountName",
    ],
    [
      "a 256-character account name",
      { customerBankAccountName: "n".repeat(256) },
      "VALIDATION_ERROR",
      "customerBankAccountName",
    ],
    ...[
      "Esc\u001b[31mRED",
      "Bell\u0007",
      "Two\nlines",
      "Carriage\rreturn",
      "Tab\there",
      "a\u202eb",
      "Somchai\u200b",
    ].map(
      (name) =>
        [
          `an account name with a control or invisible character (${JSON.stringify(name)})`,
          { customerBankAccountName: name },
          "VALIDATION_ERROR",
          "customerBankAccountName",
        ] as [string, Record<string, unknown>, string, string],
    ),
    [
      "a 9-digit account number",
      { customerBankAccountNumber: "123-456-789" },
      "VALIDATION_ERROR",
      "customerBankAccountNumber",
    ],
    [
      "a 16-digit account number",
      { customerBankAccountNumber: "1234567890123456" },
      "VALIDATION_ERROR",
      "customerBankAccountNumber",
    ],
    [
      "letters in the account number",
      { customerBankAccountNumber: "12345abcde" },
      "VALIDATION_ERROR",
      "customerBankAccountNumber",
    ],
    ["an unknown bank code", { customerBankCode: "999" }, "INVALID_BANK_CODE", "customerBankCode"],
    ["a 2-digit bank code", { customerBankCode: "04" }, "INVALID_BANK_CODE", "customerBankCode"],
    ["a 256-character description", { description: "d".repeat(256) }, "VALIDATION_ERROR", "description"],
    ["a metadata value that is not a string", { metadata: { n: 1 } }, "VALIDATION_ERROR", "metadata"],
    [
      "51 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
      "VALIDATION_ERROR",
      "metadata",
    ],
    ["a 41-character metadata key", { metadata: { ["k".repeat(41)]: "v" } }, "VALIDATION_ERROR", "metadata"],
    ["a 501-character metadata value", { metadata: { k: "v".repeat(501) } }, "VALIDATION_ERROR", "metadata"],
    ["an empty idempotencyKey", { idempotencyKey: "" }, "VALIDATION_ERROR", "idempotencyKey"],
    ["a status field", { status: "paid" }, "VALIDATION_ERROR", "status"],
    [
      "a merchantId field",
      { merchantId: "00000000-0000-4000-8000-000000000000" },
      "VALIDATION_ERROR",
      "merchantId",
    ],
  ];
  for (const [name, overrides, code, field] of cases) {
    it(`refuses ${name} with ${code} on ${field}`, async () => {
      await expectError(withdrawBody(overrides), 400, code, field);
    });
  }

  for (const field of [
    "amount",
    "referenceId",
    "destinationType",
    "customerBankAccountName",
    "customerBankAccountNumber",
    "customerBankCode",
  ]) {
    it(`refuses a body without ${field} with VALIDATION_ERROR naming it`, async () => {
      const body = withdrawBody();
      delete body[field];
      await expectError(body, 400, "VALIDATION_ERROR", field);
    });
  }

  it("reports the first failing field in the order of the body table", async () => {
    await expectError(
      withdrawBody({ amount: "0", currency: "USD", customerBankCode: "999" }),
      400,
      "INVALID_AMOUNT",
      "amount",
    );
    await expectError(
      withdrawBody({ currency: "USD", customerBankCode: "999" }),
      400,
      "INVALID_CURRENCY",
      "currency",
    );
    await expectError(
      withdrawBody({ customerBankCode: "999", description: "d".repeat(300) }),
      400,
      "INVALID_BANK_CODE",
      "customerBankCode",
    );
  });

  it("reports an unknown field before any invalid known field", async () => {
    await expectError(withdrawBody({ amount: "x", extra: 1 }), 400, "VALIDATION_ERROR", "extra");
  });

  it("refuses malformed JSON with 400 VALIDATION_ERROR", async () => {
    const res = await svc.request("POST", "/api/v1/withdraws", undefined, { rawBody: "{not json" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });

  it("accepts 10 and 15 digits with dashes and spaces, and stores only the digits", async () => {
    await fundedMerchant(svc).then(async (own) => {
      const ten = await svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({ customerBankAccountNumber: " 12 34-56 78-90 ", amount: "51" }),
        { credentials: own },
      );
      assert.equal(ten.status, 201);
      assert.equal(ten.body.data.bankAccountNumber, "******7890");
      const fifteen = await svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({ customerBankAccountNumber: "123456789012345", amount: "52" }),
        { credentials: own },
      );
      assert.equal(fifteen.status, 201);
      assert.equal(fifteen.body.data.bankAccountNumber, "***********2345");
    });
  });
});

describe("withdraws: cancel", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000_000n }, 10_000_000n);
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const create = async (amount: string) => {
    const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount }), {
      credentials: merchant,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  };
  const cancel = (id: string, body?: unknown) =>
    svc.request("POST", `/api/v1/withdraws/${id}/cancel`, body, { credentials: merchant });
  const setStatus = (id: string, status: "processing" | "paid" | "failed" | "expired") =>
    svc.deps.db
      .updateTable("withdraws")
      .set({ status, ...(status === "paid" ? { paid_at: svc.clock.now() } : {}) })
      .where("id", "=", id)
      .execute();

  it("cancels a pending withdraw, sets canceledAt and returns the hold to the available wallet", async () => {
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const w = await create("700");
    svc.clock.advance(1000);
    const res = await cancel(w.id);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "canceled");
    assert.equal(res.body.data.canceledAt, svc.clock.now().toISOString());
    assert.equal(res.body.data.updatedAt, res.body.data.canceledAt);
    const afterCancel = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(afterCancel.wallet_available, before.wallet_available);
    assert.equal(afterCancel.wallet_held, before.wallet_held);
  });

  it("cancels a withdraw awaiting verification and releases its hold", async () => {
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const w = await create("1000000");
    assert.equal(w.status, "awaiting_verification");
    const res = await cancel(w.id);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "canceled");
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before);
  });

  it("refuses to cancel a processing withdraw with 400 VALIDATION_ERROR, since the bank cannot recall it", async () => {
    const w = await create("701");
    await setStatus(w.id, "processing");
    const res = await cancel(w.id);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(res.body.error.metadata, { field: "status" });
    assert.match(res.body.error.message, /processing/);
  });

  for (const status of ["paid", "failed", "expired"] as const) {
    it(`refuses to cancel a ${status} withdraw with 400 VALIDATION_ERROR and changes nothing`, async () => {
      const w = await create(`7${status.length}2`);
      await setStatus(w.id, status);
      const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
      const res = await cancel(w.id);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before);
    });
  }

  it("refuses a second cancel with 400 VALIDATION_ERROR and releases the hold only once", async () => {
    const w = await create("703");
    assert.equal((await cancel(w.id)).status, 200);
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const again = await cancel(w.id);
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before);
  });

  it("lets exactly one of several concurrent cancels change the withdraw", async () => {
    const w = await create("704");
    const results = await Promise.all(Array.from({ length: 5 }, () => cancel(w.id)));
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.equal(results.filter((r) => r.status === 400).length, 4);
  });

  it("answers 404 for a malformed id, an unknown id and another merchant's withdraw", async () => {
    const other = await fundedMerchant(svc);
    const theirs = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "705" }), {
      credentials: other,
    });
    for (const id of ["nope", "00000000-0000-4000-8000-000000000000", theirs.body.data.id]) {
      const res = await cancel(id);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
    const still = await svc.request("GET", `/api/v1/withdraws/${theirs.body.data.id}`, undefined, {
      credentials: other,
    });
    assert.equal(still.body.data.status, "pending");
  });

  it("accepts an empty JSON object as the cancel body and refuses any field in it", async () => {
    const w = await create("706");
    const withField = await cancel(w.id, { reason: "x" });
    assert.equal(withField.status, 400);
    assert.equal(withField.body.error.metadata.field, "reason");
    const empty = await cancel(w.id, {});
    assert.equal(empty.status, 200);
  });
});

describe("withdraws: operator approve and reject", () => {
  let svc: TestService;
  let merchant: Credentials;
  before(async () => {
    svc = await startService();
    merchant = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 10_000n }, 10_000_000n);
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const createAwaiting = async () => {
    const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "10000" }), {
      credentials: merchant,
    });
    assert.equal(res.body.data.status, "awaiting_verification");
    return res.body.data;
  };

  /** The withdraw reads expired, the balances are `before` (its hold released), one expiry event. */
  const assertExpiredOnce = async (id: string, before: Awaited<ReturnType<typeof ledgerBalances>>) => {
    const stored = await svc.request("GET", `/api/v1/withdraws/${id}`, undefined, { credentials: merchant });
    assert.equal(stored.body.data.status, "expired");
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before, "the hold is released");
    const events = await svc.request("GET", "/api/v1/events?type=withdraw.canceled&limit=100", undefined, {
      credentials: merchant,
    });
    const own = events.body.data.data.filter(
      (event: { data: { object: { id: string } } }) => event.data.object.id === id,
    );
    assert.equal(own.length, 1);
    assert.equal(own[0].data.object.status, "expired");
  };

  it("approves a withdraw awaiting verification into pending and keeps its hold", async () => {
    const w = await createAwaiting();
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    svc.clock.advance(5000);
    const res = await svc.admin("POST", `/admin/v1/withdraws/${w.id}/approve`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "pending");
    assert.equal(res.body.data.updatedAt, svc.clock.now().toISOString());
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before);
  });

  it("rejects a withdraw awaiting verification into canceled, sets canceledAt and releases its hold", async () => {
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const w = await createAwaiting();
    const res = await svc.admin("POST", `/admin/v1/withdraws/${w.id}/reject`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "canceled");
    assert.equal(res.body.data.canceledAt, svc.clock.now().toISOString());
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), before);
  });

  it("answers the merchant's cancel past the approval deadline with expired, and the expiry stays: hold back, one event", async () => {
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const w = await createAwaiting();
    // No expiry job runs in this service: the cancel is the first to see the deadline passed.
    svc.clock.advance(24 * 3_600_000);
    const res = await svc.request("POST", `/api/v1/withdraws/${w.id}/cancel`, {}, { credentials: merchant });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.error.message, /its status is expired/);
    await assertExpiredOnce(w.id, before);
  });

  for (const action of ["approve", "reject"]) {
    it(`answers the operator's ${action} past the approval deadline with 409 expired, and the expiry it found stays: hold back, one event, no audit entry`, async () => {
      const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
      const w = await createAwaiting();
      // No expiry job runs in this service: the operator is the first to see the deadline passed.
      svc.clock.advance(24 * 3_600_000);
      const res = await svc.admin("POST", `/admin/v1/withdraws/${w.id}/${action}`);
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "STATE_CONFLICT");
      assert.equal(res.body.error.metadata.status, "expired");
      await assertExpiredOnce(w.id, before);
      const audit = await svc.admin("GET", `/admin/v1/audit-log?recordId=${w.id}`);
      assert.equal(audit.status, 200);
      assert.deepEqual(audit.body.data.data, [], "a refused action leaves no entry");
      const again = await svc.admin("POST", `/admin/v1/withdraws/${w.id}/${action}`);
      assert.equal(again.status, 409);
      assert.equal(again.body.error.metadata.status, "expired");
    });
  }

  it("expires a withdraw once when many late approvals and rejections of it arrive at once: every one 409 expired, one event, the hold released once", async () => {
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const w = await createAwaiting();
    svc.clock.advance(24 * 3_600_000);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        svc.admin("POST", `/admin/v1/withdraws/${w.id}/${i % 2 === 0 ? "approve" : "reject"}`),
      ),
    );
    for (const res of answers) {
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.error.metadata.status, "expired");
    }
    await assertExpiredOnce(w.id, before);
  });

  it("answers 409 STATE_CONFLICT to approve or reject a withdraw in any other status", async () => {
    const w = await createAwaiting();
    assert.equal((await svc.admin("POST", `/admin/v1/withdraws/${w.id}/approve`)).status, 200);
    for (const action of ["approve", "reject"]) {
      const res = await svc.admin("POST", `/admin/v1/withdraws/${w.id}/${action}`);
      assert.equal(res.status, 409, action);
      assert.equal(res.body.error.code, "STATE_CONFLICT");
      assert.equal(res.body.error.metadata.status, "pending");
    }
  });

  it("answers 404 for an unknown or malformed withdraw id", async () => {
    for (const id of ["x", "00000000-0000-4000-8000-000000000000"]) {
      const res = await svc.admin("POST", `/admin/v1/withdraws/${id}/approve`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
  });

  it("refuses approve and reject without the operator token with 401 INVALID_CREDENTIALS", async () => {
    const w = await createAwaiting();
    const res = await svc.admin(
      "POST",
      `/admin/v1/withdraws/${w.id}/reject`,
      undefined,
      "wrong-token-wrong-token",
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "INVALID_CREDENTIALS");
    const still = await svc.request("GET", `/api/v1/withdraws/${w.id}`, undefined, { credentials: merchant });
    assert.equal(still.body.data.status, "awaiting_verification");
  });
});

describe("withdraws: list", () => {
  let svc: TestService;
  let merchant: Credentials;
  const ids: string[] = [];
  before(async () => {
    svc = await startService();
    merchant = await fundedMerchant(svc);
    const other = await fundedMerchant(svc);
    await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "999" }), { credentials: other });
    // Five withdraws one minute apart; amounts out of creation order; one wallet destination.
    const amounts = ["300", "100", "500", "200", "400"];
    for (const [i, amount] of amounts.entries()) {
      const res = await svc.request(
        "POST",
        "/api/v1/withdraws",
        withdrawBody({
          amount,
          referenceId: `list-${"edcba"[i]}`,
          destinationType: i === 2 ? "wallet" : "bank_account",
          customerBankAccountName: payeeName(),
        }),
        { credentials: merchant },
      );
      assert.equal(res.status, 201);
      ids.push(res.body.data.id);
      svc.clock.advance(60_000);
    }
    await svc.request("POST", `/api/v1/withdraws/${ids[1]}/cancel`, undefined, { credentials: merchant });
    await svc.deps.db
      .updateTable("withdraws")
      .set({ status: "paid", paid_at: svc.clock.now() })
      .where("id", "=", ids[3]!)
      .execute();
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const list = (query: string) =>
    svc.request("GET", `/api/v1/withdraws${query}`, undefined, { credentials: merchant });

  it("lists the merchant's withdraws newest first with the list envelope", async () => {
    const res = await list("");
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.data.map((w: { id: string }) => w.id),
      [...ids].reverse(),
    );
    assert.equal(res.body.data.total, 5);
    assert.equal(res.body.data.page, 1);
    assert.equal(res.body.data.limit, 10);
    assert.equal(res.body.data.totalPages, 1);
  });

  it("pages without repeating or skipping, and answers a page beyond the last with an empty page", async () => {
    const first = await list("?limit=2&page=1&sortOrder=asc");
    const second = await list("?limit=2&page=2&sortOrder=asc");
    const third = await list("?limit=2&page=3&sortOrder=asc");
    const beyond = await list("?limit=2&page=4&sortOrder=asc");
    const seen = [first, second, third].flatMap((r) => r.body.data.data.map((w: { id: string }) => w.id));
    assert.deepEqual(seen, ids);
    assert.equal(first.body.data.totalPages, 3);
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body.data.data, []);
    assert.equal(beyond.body.data.total, 5);
    assert.equal(beyond.body.data.totalPages, 3);
  });

  it("filters by status and by destinationType", async () => {
    const canceled = await list("?status=canceled");
    assert.deepEqual(
      canceled.body.data.data.map((w: { id: string }) => w.id),
      [ids[1]],
    );
    const paid = await list("?status=paid");
    assert.deepEqual(
      paid.body.data.data.map((w: { id: string }) => w.id),
      [ids[3]],
    );
    const wallet = await list("?destinationType=wallet");
    assert.deepEqual(
      wallet.body.data.data.map((w: { id: string }) => w.id),
      [ids[2]],
    );
    const pendingWallet = await list("?status=canceled&destinationType=wallet");
    assert.equal(pendingWallet.body.data.total, 0);
  });

  it("filters by dateFrom inclusive and dateTo exclusive", async () => {
    const all = (await list("?sortOrder=asc")).body.data.data;
    const from = all[1].createdAt;
    const to = all[3].createdAt;
    const res = await list(`?sortOrder=asc&dateFrom=${from}&dateTo=${to}`);
    assert.deepEqual(
      res.body.data.data.map((w: { id: string }) => w.id),
      [ids[1], ids[2]],
    );
  });

  it("sorts by amount, referenceId and status with id as the tie-break", async () => {
    const byAmount = await list("?sortBy=amount&sortOrder=asc");
    assert.deepEqual(
      byAmount.body.data.data.map((w: { amount: string }) => w.amount),
      ["100.00", "200.00", "300.00", "400.00", "500.00"],
    );
    const byReference = await list("?sortBy=referenceId&sortOrder=asc");
    assert.deepEqual(
      byReference.body.data.data.map((w: { referenceId: string }) => w.referenceId),
      ["list-a", "list-b", "list-c", "list-d", "list-e"],
    );
    const byStatus = await list("?sortBy=status&sortOrder=asc");
    const statuses = byStatus.body.data.data.map((w: { status: string }) => w.status);
    assert.deepEqual(statuses, ["canceled", "paid", "pending", "pending", "pending"]);
    const pendingIds = byStatus.body.data.data.slice(2).map((w: { id: string }) => w.id);
    assert.deepEqual(pendingIds, [...pendingIds].sort());
  });

  it("sorts by paidAt with unpaid withdraws last in both directions", async () => {
    for (const order of ["asc", "desc"]) {
      const res = await list(`?sortBy=paidAt&sortOrder=${order}`);
      assert.equal(res.body.data.data[0].id, ids[3], order);
      assert.ok(res.body.data.data.slice(1).every((w: { paidAt: null }) => w.paidAt === null));
    }
  });

  const invalid: Array<[string, string]> = [
    ["?page=0", "page"],
    ["?limit=0", "limit"],
    ["?limit=101", "limit"],
    ["?status=done", "status"],
    ["?destinationType=card", "destinationType"],
    ["?dateFrom=yesterday", "dateFrom"],
    ["?dateTo=2026-02-30", "dateTo"],
    ["?sortBy=fee", "sortBy"],
    ["?sortOrder=up", "sortOrder"],
  ];
  for (const [query, field] of invalid) {
    it(`refuses ${query} with 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await list(query);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
    });
  }

  it("never lists another merchant's withdraws", async () => {
    const res = await list("?limit=100");
    assert.equal(res.body.data.total, 5);
    assert.ok(res.body.data.data.every((w: { amount: string }) => w.amount !== "999.00"));
  });

  it("shows awaiting_verification as it is, and filters by it", async () => {
    await updateMerchant(svc.deps, merchant.merchantId, { withdrawVerificationThresholdSatang: 50_000n });
    const awaiting = await svc.request(
      "POST",
      "/api/v1/withdraws",
      withdrawBody({ amount: "50000", referenceId: referenceId("av") }),
      { credentials: merchant },
    );
    assert.equal(awaiting.body.data.status, "awaiting_verification");
    const res = await list("?status=awaiting_verification");
    assert.deepEqual(
      res.body.data.data.map((w: { id: string }) => w.id),
      [awaiting.body.data.id],
    );
    await svc.admin("POST", `/admin/v1/withdraws/${awaiting.body.data.id}/reject`);
    await updateMerchant(svc.deps, merchant.merchantId, { withdrawVerificationThresholdSatang: null });
  });

  it("shows expired as it is, and filters by it", async () => {
    await svc.deps.db.updateTable("withdraws").set({ status: "expired" }).where("id", "=", ids[4]!).execute();
    const one = await svc.request("GET", `/api/v1/withdraws/${ids[4]}`, undefined, { credentials: merchant });
    assert.equal(one.body.data.status, "expired");
    const res = await list("?status=expired");
    assert.deepEqual(
      res.body.data.data.map((w: { id: string }) => w.id),
      [ids[4]],
    );
  });
});
