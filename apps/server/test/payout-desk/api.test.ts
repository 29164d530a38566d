/**
 * The manual payout desk end to end through the operator API (SATANG_PAYOUTS=manual): pending
 * withdraws -> a batch (processing) -> its CSV -> paid / failed outcomes, with the balances,
 * the ledger, the events and the webhooks of the provider path; the worker leaving pending
 * withdraws alone; concurrency (batch creations, repeated outcomes) and the boundaries.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { Value } from "typebox/value";
import type { Deps } from "../../src/deps.ts";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { errorObjectSchema } from "../../src/http/envelope.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { AppError } from "../../src/lib/errors.ts";
import { dispatchPendingWithdraws, simulateWithdraw } from "../../src/lifecycle/payouts.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { statementsOf } from "../helpers/statements.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const MANUAL = { SATANG_PAYOUTS: "manual", SANDBOX_PAYOUT_PICKUP: "automatic" };

let svc: TestService;
let worker: Deps;
let receiver: Receiver;

before(async () => {
  svc = await startService({ env: MANUAL });
  // The tests move the business clock forward a second per withdraw; the delivery worker's
  // wall clock stands an hour ahead, so every event's delivery is due when it runs.
  worker = svc.depsWith({ wallClock: new ManualClock(Date.now() + 3_600_000) });
  receiver = await startReceiver({ clock: worker.wallClock });
});
after(async () => {
  await receiver?.close();
  await svc?.close();
});

async function createWithdraw(credentials: Credentials, overrides: Record<string, unknown> = {}) {
  // One second apart, so "oldest first" has one answer.
  svc.clock.advance(1000);
  const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody(overrides), { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; referenceId: string; status: string };
}

async function withdrawStatus(credentials: Credentials, id: string): Promise<string> {
  const res = await svc.request("GET", `/api/v1/withdraws/${id}`, undefined, { credentials });
  return res.body.data.status;
}

async function walletBalance(credentials: Credentials): Promise<number> {
  const res = await svc.request("GET", "/api/v1/balance", undefined, { credentials });
  return res.body.data.walletBalance;
}

async function eventTypes(withdrawId: string): Promise<string[]> {
  const rows = await svc.deps.db
    .selectFrom("events")
    .select("type")
    .where("object_id", "=", withdrawId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.type);
}

async function postingKinds(withdrawId: string): Promise<string[]> {
  const rows = await svc.deps.db
    .selectFrom("ledger_transactions")
    .select("kind")
    .where("subject_id", "=", withdrawId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.kind);
}

/** Parses RFC 4180 text (quoted fields, doubled quotes, CRLF) into rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i += 1;
    } else cell += c;
  }
  assert.equal(cell, "", "the file ends with CRLF");
  return rows;
}

/**
 * Records an outcome a second of business time after what came before, so its event sorts after
 * the batch's `withdraw.processing` (events are ordered by their business time).
 */
const outcome = (batchId: string, withdrawId: string, body: Record<string, unknown>) => {
  svc.clock.advance(1000);
  return svc.admin("POST", `/admin/v1/payout-batches/${batchId}/items/${withdrawId}/outcome`, body);
};

describe("payout desk, end to end", () => {
  it("batches pending withdraws, serves the CSV, and books paid and failed like the provider path", async () => {
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const other = await fundedMerchant(svc, {}, 100_000n);
    const endpoint = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url: receiver.url, events: ["*"] },
      { credentials: shop },
    );
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    receiver.secrets.push(endpoint.body.data.secret);

    const first = await createWithdraw(shop, {
      amount: "1000.00",
      customerBankAccountNumber: "123-456-7890",
    });
    const second = await createWithdraw(shop, {
      amount: "2550.00",
      customerBankAccountName: '=HYPERLINK("http://x"), "Ltd"',
      customerBankCode: "014",
      customerBankAccountNumber: "9876543210123",
    });
    const dashReference = `-ref.${process.pid}.${Date.now()}`;
    const third = await createWithdraw(shop, {
      amount: "700.00",
      referenceId: dashReference,
      destinationType: "wallet",
    });
    const elsewhere = await createWithdraw(other, { amount: "500.00" });
    assert.equal(await walletBalance(shop), 100_000 - 4250);

    // Manual mode: the payout worker, although picking up automatically, leaves them alone.
    assert.equal(await dispatchPendingWithdraws(svc.deps), 0);
    assert.equal(await withdrawStatus(shop, first.id), "pending");

    const created = await svc.admin("POST", "/admin/v1/payout-batches", {
      merchantId: shop.merchantId,
      createdBy: "Khun Nok",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const batch = created.body.data;
    assert.equal(batch.status, "open");
    assert.equal(batch.createdBy, "Khun Nok");
    assert.equal(batch.createdByOperator, "admin-token", "the credential's name beside the label");
    assert.equal(batch.itemCount, 3);
    assert.equal(batch.totalAmount, "4250.00");
    assert.equal(batch.openCount, 3);
    assert.deepEqual(
      batch.items.map((item: { withdrawId: string }) => item.withdrawId),
      [first.id, second.id, third.id],
    );
    assert.equal(batch.items[0].bankAccountNumber.includes("*"), true, "the JSON masks the account");
    for (const w of [first, second, third]) assert.equal(await withdrawStatus(shop, w.id), "processing");
    assert.equal(await withdrawStatus(other, elsewhere.id), "pending", "another merchant's is not taken");
    assert.deepEqual(await eventTypes(first.id), ["withdraw.processing"]);

    // The merchant cannot cancel a withdraw the operator may be paying right now.
    const cancel = await svc.request("POST", `/api/v1/withdraws/${first.id}/cancel`, undefined, {
      credentials: shop,
    });
    assert.equal(cancel.status, 400, JSON.stringify(cancel.body));
    assert.equal(cancel.body.error.code, "VALIDATION_ERROR");
    assert.equal(cancel.body.error.metadata.field, "status");
    assert.match(cancel.body.error.message, /open payout batch/);

    const csv = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}/csv`);
    assert.equal(csv.status, 200);
    assert.equal(csv.headers["content-type"], "text/csv; charset=utf-8");
    assert.match(String(csv.headers["content-disposition"]), /attachment; filename="payout-batch-.*\.csv"/);
    const text = csv.raw.body;
    assert.equal(text.charCodeAt(0), 0xfeff, "a UTF-8 byte order mark for spreadsheets");
    const rows = parseCsv(text.slice(1));
    assert.deepEqual(rows[0], [
      "bank_code",
      "bank_name",
      "account_number",
      "account_name",
      "amount_thb",
      "withdraw_id",
      "reference",
      "destination_type",
      "status",
      "bank_reference",
      "failure_reason",
      "recorded_by",
    ]);
    assert.deepEqual(rows[1]!.slice(0, 6), [
      "004",
      "Kasikornbank",
      "1234567890",
      rows[1]![3],
      "10.00",
      first.id,
    ]);
    assert.deepEqual(rows[2], [
      "014",
      "Siam Commercial Bank",
      "9876543210123",
      `'=HYPERLINK("http://x"), "Ltd"`,
      "25.50",
      second.id,
      second.referenceId,
      "bank_account",
      "open",
      "",
      "",
      "",
    ]);
    assert.equal(rows[3]![6], `'${dashReference}`, "a leading - is defused");
    assert.deepEqual(rows[3]!.slice(7), ["wallet", "open", "", "", ""], "a wallet line says it is one");
    assert.equal(rows.length, 4);
    assert.match(text, /"'=HYPERLINK\(""http:\/\/x""\), ""Ltd"""/, "RFC 4180 quoting on the wire");

    const paid = await outcome(batch.id, first.id, { outcome: "paid", bankReference: "SCB-0001" });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.items[0].outcome, "paid");
    assert.equal(paid.body.data.items[0].bankReference, "SCB-0001");
    assert.equal(paid.body.data.items[0].withdrawStatus, "paid");
    assert.equal(paid.body.data.items[0].recordedBy, "admin-token", "who recorded it, from the credential");
    assert.equal(paid.body.data.items[0].recordedVia, "api");
    assert.equal(paid.body.data.items[1].recordedBy, null, "nobody recorded the open ones yet");
    // The desk page names itself; the name of the operator still comes from the credential.
    svc.clock.advance(1000);
    const failedRaw = await svc.app.inject({
      method: "POST",
      url: `/admin/v1/payout-batches/${batch.id}/items/${second.id}/outcome`,
      payload: JSON.stringify({ outcome: "failed", reason: "Account closed" }),
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        "content-type": "application/json",
        "x-satang-client": "desk",
      },
    });
    assert.equal(failedRaw.statusCode, 200, failedRaw.body);
    const failed = failedRaw.json();
    assert.equal(failed.data.status, "open");
    assert.equal(failed.data.items[1].recordedBy, "admin-token");
    assert.equal(failed.data.items[1].recordedVia, "desk");

    // Downloaded again, the file says which lines are paid, failed or still open.
    const again1 = parseCsv(
      (await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}/csv`)).raw.body.slice(1),
    );
    assert.deepEqual(
      again1.slice(1).map((row) => row.slice(8)),
      [
        ["paid", "SCB-0001", "", "admin-token via api"],
        ["failed", "", "Account closed", "admin-token via desk"],
        ["open", "", "", ""],
      ],
    );

    // The same outcome again changes nothing; a different one is refused.
    const again = await outcome(batch.id, first.id, { outcome: "paid", bankReference: "SCB-0001" });
    assert.equal(again.status, 200);
    const flipped = await outcome(batch.id, first.id, { outcome: "failed", reason: "oops" });
    assert.equal(flipped.status, 409);
    assert.equal(flipped.body.error.code, "STATE_CONFLICT");
    assert.equal(flipped.body.error.metadata.reason, "outcome_already_recorded");
    const otherRef = await outcome(batch.id, first.id, { outcome: "paid", bankReference: "SCB-0002" });
    assert.equal(otherRef.status, 409);

    const last = await outcome(batch.id, third.id, { outcome: "paid", bankReference: "SCB-0003" });
    assert.equal(last.status, 200);
    assert.equal(last.body.data.status, "closed", "the last outcome closes the batch");
    assert.notEqual(last.body.data.closedAt, null);
    assert.equal(last.body.data.paidCount, 2);
    assert.equal(last.body.data.failedCount, 1);
    assert.equal(last.body.data.paidAmount, "1700.00");

    assert.equal(await withdrawStatus(shop, first.id), "paid");
    assert.equal(await withdrawStatus(shop, second.id), "failed");
    assert.equal(await walletBalance(shop), 100_000 - 1700, "the failed one's hold went back");
    assert.deepEqual(await eventTypes(first.id), ["withdraw.processing", "withdraw.paid"]);
    assert.deepEqual(await eventTypes(second.id), ["withdraw.processing", "withdraw.failed"]);
    assert.deepEqual(await postingKinds(first.id), await postingKinds(third.id));
    assert.equal((await postingKinds(first.id)).length, 2, "the hold, then the payout: nothing twice");
    await assertLedgerConsistent(svc.deps.db);

    // One endpoint takes a few deliveries at a time: run the worker until nothing is due.
    while ((await deliverDueWebhooks(worker)) > 0) {}
    const delivered = receiver.received.map((d) => {
      assert.equal(d.verifyError, undefined);
      return `${d.payload!.type} ${String(d.payload!.data.object.id)}`;
    });
    assert.deepEqual(
      delivered.sort(),
      [
        `withdraw.failed ${second.id}`,
        `withdraw.paid ${first.id}`,
        `withdraw.paid ${third.id}`,
        `withdraw.processing ${first.id}`,
        `withdraw.processing ${second.id}`,
        `withdraw.processing ${third.id}`,
      ].sort(),
    );

    const listed = await svc.admin("GET", "/admin/v1/payout-batches?status=closed");
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.data.some((b: { id: string }) => b.id === batch.id));
    const shown = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}`);
    assert.equal(shown.body.data.items.length, 3);
  });
});

describe("payout desk, boundaries and refusals", () => {
  it("refuses an empty batch with a clear error, and takes at most maxCount, oldest first", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const none = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(none.status, 409);
    assert.equal(none.body.error.code, "STATE_CONFLICT");
    assert.equal(none.body.error.metadata.reason, "no_pending_withdraws");
    assert.match(none.body.error.message, /No pending withdraws/);

    const a = await createWithdraw(shop, { amount: "100.00" });
    const b = await createWithdraw(shop, { amount: "200.00" });
    for (const maxCount of [0, 501, 1.5, "1"]) {
      const bad = await svc.admin("POST", "/admin/v1/payout-batches", {
        merchantId: shop.merchantId,
        maxCount,
      });
      assert.equal(bad.status, 400, `maxCount ${String(maxCount)}`);
      assert.equal(bad.body.error.metadata.field, "maxCount");
    }
    const one = await svc.admin("POST", "/admin/v1/payout-batches", {
      merchantId: shop.merchantId,
      maxCount: 1,
    });
    assert.equal(one.status, 201);
    assert.deepEqual(
      one.body.data.items.map((i: { withdrawId: string }) => i.withdrawId),
      [a.id],
    );
    assert.equal(await withdrawStatus(shop, b.id), "pending");
    // A withdraw still pending can be canceled as always.
    const cancel = await svc.request("POST", `/api/v1/withdraws/${b.id}/cancel`, undefined, {
      credentials: shop,
    });
    assert.equal(cancel.status, 200);
  });

  it("takes nothing of a frozen or closed wallet into a batch: its withdraws wait pending until it is active", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const waiting = await createWithdraw(shop, { amount: "100.00" });
    for (const walletStatus of ["frozen", "closed"]) {
      const set = await svc.admin("PATCH", `/admin/v1/merchants/${shop.merchantId}`, { walletStatus });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const none = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
      assert.equal(none.status, 409, `${walletStatus}: ${JSON.stringify(none.body)}`);
      assert.deepEqual(
        none.body.error.metadata,
        { reason: "wallet_inactive", status: walletStatus },
        "the operator is told why, not that nothing is pending",
      );
      assert.match(none.body.error.message, new RegExp(`wallet is ${walletStatus}`));
      const all = await svc.admin("POST", "/admin/v1/payout-batches", {});
      const taken =
        all.status === 201 ? all.body.data.items.map((i: { withdrawId: string }) => i.withdrawId) : [];
      assert.ok(!taken.includes(waiting.id), `${walletStatus}: a batch of every merchant leaves it out`);
      assert.equal(await withdrawStatus(shop, waiting.id), "pending");
    }
    const active = await svc.admin("PATCH", `/admin/v1/merchants/${shop.merchantId}`, {
      walletStatus: "active",
    });
    assert.equal(active.status, 200, JSON.stringify(active.body));
    const batch = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    assert.deepEqual(
      batch.body.data.items.map((i: { withdrawId: string }) => i.withdrawId),
      [waiting.id],
    );
    assert.equal(batch.body.data.createdBy, "admin-token", "without createdBy, the credential's name");
  });

  it("refuses a batch for an unknown merchant with 404, and a createdBy that is not one visible line", async () => {
    const unknown = await svc.admin("POST", "/admin/v1/payout-batches", {
      merchantId: "5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84",
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.code, "RESOURCE_NOT_FOUND");
    for (const createdBy of ["niran\nBatch 0000 (closed): fake", "niran\u202e", "\u200b", " "]) {
      const refused = await svc.admin("POST", "/admin/v1/payout-batches", { createdBy });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.metadata.field, "createdBy");
    }
  });

  it("names a batch made without createdBy after the named operator token that made it", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    await createWithdraw(shop, { amount: "100.00" });
    const name = `desk-${shop.merchantId.slice(0, 8)}`;
    const token = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const batch = await svc.admin(
      "POST",
      "/admin/v1/payout-batches",
      { merchantId: shop.merchantId },
      token.body.data.token,
    );
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    assert.equal(batch.body.data.createdBy, name);
    assert.equal(batch.body.data.createdByOperator, name);
  });

  it("keeps the operator token a batch came with beside a label that names another operator", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    await createWithdraw(shop, { amount: "100.00" });
    const name = `mallory-${shop.merchantId.slice(0, 8)}`;
    const token = await svc.admin("POST", "/admin/v1/operator-tokens", { name });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    const batch = await svc.admin(
      "POST",
      "/admin/v1/payout-batches",
      { merchantId: shop.merchantId, createdBy: "admin-token" },
      token.body.data.token,
    );
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    assert.equal(batch.body.data.createdBy, "admin-token", "the label, as the request gave it");
    assert.equal(batch.body.data.createdByOperator, name);
    const listed = await svc.admin("GET", "/admin/v1/payout-batches");
    const summary = listed.body.data.data.find((b: { id: string }) => b.id === batch.body.data.id);
    assert.equal(summary.createdByOperator, name);
  });

  it("answers a batch and an outcome from the action's own transaction: nothing is read after its commit", async () => {
    // A read after the commit could fail (a pool wait bound, CONTRACT 14) and answer 503 for a
    // batch or an outcome already recorded, which the operator would take as not done.
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const withdraw = await createWithdraw(shop, { amount: "100.00" });
    const afterCommit = (statements: string[]) => {
      const commit = statements.findIndex((text) => /^commit\b/i.test(text));
      assert.ok(commit >= 0, statements.join("\n"));
      return statements.slice(commit + 1);
    };
    const created = await statementsOf(() =>
      svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId }),
    );
    assert.equal(created.result.status, 201, JSON.stringify(created.result.body));
    assert.deepEqual(afterCommit(created.statements), []);
    const recorded = await statementsOf(() =>
      outcome(created.result.body.data.id, withdraw.id, {
        outcome: "paid",
        bankReference: `AC-${withdraw.id}`,
      }),
    );
    assert.equal(recorded.result.status, 200, JSON.stringify(recorded.result.body));
    assert.equal(recorded.result.body.data.items[0].outcome, "paid");
    assert.deepEqual(afterCommit(recorded.statements), []);
  });

  it("checks outcomes: paid needs a reference, failed a reason; unknown batch or item 404; no token 401", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const w = await createWithdraw(shop, { amount: "100.00" });
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    const noRef = await outcome(batch.id, w.id, { outcome: "paid" });
    assert.equal(noRef.status, 400);
    assert.equal(noRef.body.error.metadata.field, "bankReference");
    const noReason = await outcome(batch.id, w.id, { outcome: "failed" });
    assert.equal(noReason.body.error.metadata.field, "reason");
    const both = await outcome(batch.id, w.id, { outcome: "paid", bankReference: "R1", reason: "x" });
    assert.equal(both.status, 400);
    const bad = await outcome(batch.id, w.id, { outcome: "maybe" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.metadata.field, "outcome");
    const missing = await outcome("00000000-0000-4000-8000-000000000000", w.id, {
      outcome: "paid",
      bankReference: "R1",
    });
    assert.equal(missing.status, 404);
    const notIn = await outcome(batch.id, "00000000-0000-4000-8000-000000000000", {
      outcome: "paid",
      bankReference: "R1",
    });
    assert.equal(notIn.status, 404);
    assert.equal((await svc.admin("GET", "/admin/v1/payout-batches/not-a-uuid")).status, 404);
    assert.equal(
      (await svc.admin("GET", "/admin/v1/payout-batches/not-a-uuid/csv")).body.error.code,
      "RESOURCE_NOT_FOUND",
    );
    const anonymous = await svc.admin("GET", "/admin/v1/payout-batches", undefined, "wrong-token-0123456789");
    assert.equal(anonymous.status, 401);
    assert.equal(await withdrawStatus(shop, w.id), "processing", "nothing refused moved the withdraw");
  });

  it("the sandbox's simulated bank reports nothing on a withdraw the desk pays: 409 payout_desk, the hold kept", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const w = await createWithdraw(shop, { amount: "100.00" });
    const simulate = (outcome: string) =>
      svc.request("POST", `/api/v1/sandbox/withdraws/${w.id}/simulate`, { outcome }, { credentials: shop });
    const pending = await simulate("processing");
    assert.equal(pending.status, 409, JSON.stringify(pending.body));
    assert.deepEqual(pending.body.error.metadata, { status: "pending", reason: "payout_desk" });
    assert.match(pending.body.error.message, /the desk takes it into a batch/);
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    for (const report of ["failed", "paid", "indeterminate"]) {
      const res = await simulate(report);
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.deepEqual(res.body.error.metadata, { status: "processing", reason: "payout_desk" });
      assert.match(res.body.error.message, /in a batch of the operator's payout desk/);
    }
    // Restarted with SATANG_PAYOUTS=provider while the batch is open: the desk's line is still the
    // desk's, and the simulated bank, which never received it, decides nothing.
    const providerMode = { ...svc.deps, config: { ...svc.deps.config, payouts: "provider" as const } };
    for (const report of ["failed", "paid", "indeterminate"] as const) {
      await assert.rejects(
        simulateWithdraw(providerMode, shop.merchantId, w.id, report),
        (error: unknown) =>
          error instanceof AppError &&
          (error.metadata as { reason?: string }).reason === "payout_desk" &&
          /in a batch of the operator's payout desk/.test(error.message),
        report,
      );
    }
    assert.equal(await withdrawStatus(shop, w.id), "processing");
    assert.equal(await walletBalance(shop), 9_900, "the hold is kept while the desk may be paying it");
    // One handed to the simulated bank before the desk was turned on is in no batch: the message
    // says where it is, and who decides it.
    const handed = await createWithdraw(shop, { amount: "50.00" });
    await simulateWithdraw(providerMode, shop.merchantId, handed.id, "indeterminate");
    const report = await svc.request(
      "POST",
      `/api/v1/sandbox/withdraws/${handed.id}/simulate`,
      { outcome: "paid" },
      { credentials: shop },
    );
    assert.equal(report.status, 409, JSON.stringify(report.body));
    assert.match(report.body.error.message, /handed to a payout connector before SATANG_PAYOUTS=manual/);
    assert.match(report.body.error.message, /the operator resolves this withdraw/);
    const paid = await outcome(batch.id, w.id, { outcome: "paid", bankReference: "SIM-DESK-1" });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(await withdrawStatus(shop, w.id), "paid");
  });

  it("books paid on a line recorded failed as the late success (the bank paid it after all); nothing else replaces an outcome", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const w = await createWithdraw(shop, { amount: "100.00" });
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    const failed = await outcome(batch.id, w.id, { outcome: "failed", reason: "Bank said rejected" });
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.equal(failed.body.data.status, "closed");
    assert.equal(await walletBalance(shop), 10_000, "the hold went back");

    const reference = `LATE-${w.id.slice(0, 8)}`;
    const late = await outcome(batch.id, w.id, { outcome: "paid", bankReference: reference });
    assert.equal(late.status, 200, JSON.stringify(late.body));
    const line = late.body.data.items.find((item: { withdrawId: string }) => item.withdrawId === w.id);
    assert.equal(line.outcome, "paid");
    assert.equal(line.bankReference, reference);
    assert.equal(line.failureReason, null);
    assert.equal(late.body.data.status, "closed");
    assert.equal(await withdrawStatus(shop, w.id), "paid");
    assert.equal(await walletBalance(shop), 9_900, "debited again: the money left");
    assert.deepEqual(await eventTypes(w.id), ["withdraw.processing", "withdraw.failed", "withdraw.paid"]);
    assert.deepEqual(await postingKinds(w.id), [
      "withdraw_hold",
      "withdraw_release",
      "withdraw_late_success",
    ]);

    // The same reference again, in another case, is the harmless repeat; paid is never undone.
    const repeat = await outcome(batch.id, w.id, { outcome: "paid", bankReference: reference.toLowerCase() });
    assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
    const undo = await outcome(batch.id, w.id, { outcome: "failed", reason: "oops" });
    assert.equal(undo.status, 409);
    assert.equal(undo.body.error.metadata.reason, "outcome_already_recorded");
    assert.equal(await walletBalance(shop), 9_900, "nothing booked twice");
  });

  it("the database keeps a withdraw out of two open batches and refuses to close a batch with an item open", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const w = await createWithdraw(shop, { amount: "100.00" });
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    const second = "11111111-1111-4111-8111-111111111111";
    const at = new Date();
    await svc.deps.db
      .insertInto("payout_batches")
      .values({
        id: second,
        status: "open",
        created_by: "test",
        item_count: 1,
        total_satang: 100n,
        created_at: at,
        updated_at: at,
        closed_at: null,
      })
      .execute();
    await assert.rejects(
      sql`INSERT INTO payout_batch_items (batch_id, batch_status, position, withdraw_id, merchant_id, amount_satang)
          VALUES (${second}, 'open', 1, ${w.id}, ${shop.merchantId}, 100)`.execute(svc.deps.db),
      /payout_batch_items_open_withdraw/,
    );
    await assert.rejects(
      sql`UPDATE payout_batches SET status = 'closed', closed_at = now() WHERE id = ${batch.id}`.execute(
        svc.deps.db,
      ),
      /payout_batch_items_closed_with_outcome/,
    );
  });

  it("refuses a bank reference already recorded for another withdraw, in any batch and any case, with 409, booking nothing", async () => {
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const a = await createWithdraw(shop, { amount: "300.00" });
    const b = await createWithdraw(shop, { amount: "400.00" });
    const first = (
      await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId, maxCount: 1 })
    ).body.data;
    const c = await createWithdraw(shop, { amount: "500.00" });
    const second = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    assert.deepEqual(
      second.items.map((i: { withdrawId: string }) => i.withdrawId),
      [b.id, c.id],
    );
    const reference = `KB-${process.pid}-${Date.now()}`;
    const paid = await outcome(first.id, a.id, { outcome: "paid", bankReference: reference });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const balance = await walletBalance(shop);

    // In the same batch, in another batch, and typed in another case: one transfer, one withdraw.
    for (const [batchId, withdrawId, typed] of [
      [second.id, b.id, reference],
      [second.id, c.id, reference.toLowerCase()],
    ] as const) {
      const reused = await outcome(batchId, withdrawId, { outcome: "paid", bankReference: typed });
      assert.equal(reused.status, 409, JSON.stringify(reused.body));
      assert.equal(reused.body.error.code, "STATE_CONFLICT");
      assert.equal(reused.body.error.metadata.reason, "bank_reference_in_use");
      assert.deepEqual(
        [...Value.Errors(errorObjectSchema("STATE_CONFLICT"), reused.body.error)],
        [],
        "the metadata is the documented one",
      );
      assert.equal(reused.body.error.metadata.withdrawId, a.id);
      assert.equal(reused.body.error.metadata.batchId, first.id);
      assert.match(reused.body.error.message, new RegExp(`already recorded for withdraw ${a.id}`));
      assert.equal(await withdrawStatus(shop, withdrawId), "processing", "nothing moved");
      assert.deepEqual(await eventTypes(withdrawId), ["withdraw.processing"]);
    }
    // A reference that reads as the recorded one but holds an invisible or control character, or
    // a look-alike letter of another script, is refused before anything is compared or booked.
    for (const typed of [
      `${reference.slice(0, 2)}\u200b${reference.slice(2)}`,
      `${reference}\u0001`,
      `\u041a${reference.slice(1)}`,
      // Around it only the space itself is ignored: a tab, a line break or a BOM is refused.
      `\t${reference}`,
      `${reference}\n`,
      `${reference}\ufeff`,
    ]) {
      const refused = await outcome(second.id, b.id, { outcome: "paid", bankReference: typed });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, "VALIDATION_ERROR");
      assert.equal(refused.body.error.metadata.field, "bankReference");
      assert.equal(await withdrawStatus(shop, b.id), "processing", "nothing moved");
    }
    assert.equal(await walletBalance(shop), balance);
    const shown = (await svc.admin("GET", `/admin/v1/payout-batches/${second.id}`)).body.data;
    assert.equal(shown.openCount, 2);

    // The same reference again on the withdraw it pays is still the harmless repeat.
    const repeat = await outcome(first.id, a.id, { outcome: "paid", bankReference: reference });
    assert.equal(repeat.status, 200);
    // Another reference is accepted as usual.
    const other = await outcome(second.id, b.id, { outcome: "paid", bankReference: `${reference}-2` });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    await assertLedgerConsistent(svc.deps.db);
  });

  it("the database keeps a bank reference to one item and an outcome to its recorder", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000n);
    const a = await createWithdraw(shop, { amount: "100.00" });
    const b = await createWithdraw(shop, { amount: "100.00" });
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    const reference = `DB-${process.pid}-${Date.now()}`;
    const record = (withdrawId: string, bankReference: string, recordedBy: string | null) =>
      sql`UPDATE payout_batch_items
             SET outcome = 'paid', bank_reference = ${bankReference}, recorded_at = now(), recorded_by = ${recordedBy}
           WHERE batch_id = ${batch.id} AND withdraw_id = ${withdrawId}`.execute(svc.deps.db);
    await assert.rejects(record(a.id, reference, null), /payout_batch_items_recorded_by/);
    await record(a.id, reference, "admin-token");
    await assert.rejects(
      record(b.id, reference.toLowerCase(), "admin-token"),
      /payout_batch_items_bank_reference/,
    );
  });

  it("publishes its routes and schemas in the OpenAPI document, in the admin group", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    const paths = res.json().paths;
    for (const [path, method] of [
      ["/admin/v1/payout-batches", "post"],
      ["/admin/v1/payout-batches", "get"],
      ["/admin/v1/payout-batches/{id}", "get"],
      ["/admin/v1/payout-batches/{id}/csv", "get"],
      ["/admin/v1/payout-batches/{id}/items/{withdrawId}/outcome", "post"],
    ] as const) {
      assert.deepEqual(paths[path]?.[method]?.tags, ["admin"], `${method} ${path}`);
    }
    const outcomeBody = paths["/admin/v1/payout-batches/{id}/items/{withdrawId}/outcome"].post.requestBody;
    assert.ok(JSON.stringify(outcomeBody).includes("bankReference"));
  });

  it("is off unless SATANG_PAYOUTS=manual", async () => {
    const off = await startService();
    try {
      const res = await off.admin("POST", "/admin/v1/payout-batches", {});
      assert.equal(res.status, 409);
      assert.equal(res.body.error.metadata.reason, "payout_desk_off");
    } finally {
      await off.close();
    }
  });
});

describe("payout desk, concurrency", () => {
  it("two batch creations at once never take the same withdraw", async () => {
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const ids = new Set<string>();
    for (let i = 0; i < 12; i += 1) ids.add((await createWithdraw(shop, { amount: "100.00" })).id);
    const results = await Promise.all(
      [6, 6, 6].map((maxCount) =>
        svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId, maxCount }),
      ),
    );
    const taken: string[] = [];
    for (const res of results) {
      if (res.status === 201)
        taken.push(...res.body.data.items.map((i: { withdrawId: string }) => i.withdrawId));
      else assert.equal(res.body.error.metadata.reason, "no_pending_withdraws", JSON.stringify(res.body));
    }
    assert.equal(taken.length, 12, "every withdraw taken once");
    assert.deepEqual(new Set(taken), ids);
    for (const id of ids) assert.deepEqual(await eventTypes(id), ["withdraw.processing"]);
  });

  it("the same outcome recorded concurrently posts once; conflicting ones, one wins", async () => {
    const shop = await fundedMerchant(svc, {}, 100_000n);
    const a = await createWithdraw(shop, { amount: "300.00" });
    const b = await createWithdraw(shop, { amount: "400.00" });
    const batch = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body
      .data;
    const same = await Promise.all(
      Array.from({ length: 5 }, () => outcome(batch.id, a.id, { outcome: "paid", bankReference: "TX-1" })),
    );
    assert.deepEqual(
      same.map((r) => r.status),
      [200, 200, 200, 200, 200],
    );
    assert.deepEqual(await eventTypes(a.id), ["withdraw.processing", "withdraw.paid"]);
    assert.equal((await postingKinds(a.id)).length, 2);

    const racing = await Promise.all([
      outcome(batch.id, b.id, { outcome: "paid", bankReference: "TX-2" }),
      outcome(batch.id, b.id, { outcome: "failed", reason: "Rejected by bank" }),
    ]);
    // Paid first: failed is refused. Failed first: paid is the late success (the bank's
    // statement shows the transfer). Either way the withdraw ends paid, debited once.
    const [paidFirst, failedAfter] = racing;
    assert.equal(paidFirst!.status, 200, JSON.stringify(paidFirst!.body));
    if (failedAfter!.status === 409) {
      assert.deepEqual(await eventTypes(b.id), ["withdraw.processing", "withdraw.paid"]);
      assert.deepEqual(await postingKinds(b.id), ["withdraw_hold", "withdraw_paid"]);
    } else {
      assert.equal(failedAfter!.status, 200, JSON.stringify(failedAfter!.body));
      assert.deepEqual(await eventTypes(b.id), ["withdraw.processing", "withdraw.failed", "withdraw.paid"]);
      assert.deepEqual(await postingKinds(b.id), [
        "withdraw_hold",
        "withdraw_release",
        "withdraw_late_success",
      ]);
    }
    const closed = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}`);
    assert.equal(closed.body.data.status, "closed");
    await assertLedgerConsistent(svc.deps.db);
    assert.equal(await walletBalance(shop), 100_000 - 300 - 400, "paid once, whichever came first");
  });
});
