/**
 * What an operator can see of SCB (docs/providers/scb.md, "What the operator can see"), in live
 * mode against the local simulator: every call to SCB and every confirmation SCB posted, kept
 * redacted in `scb_exchanges` and listed by the operator API with the shared list parameters
 * and filters by operation, direction, payment, withdraw and SCB reference; a payment found by
 * its ref1; and the retention job that deletes old exchanges in batches.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../../src/config.ts";
import { PAGE_SIZE_DEFAULT } from "../../../src/lib/limits.ts";
import { dispatchPendingWithdraws } from "../../../src/lifecycle/payouts.ts";
import { scbTables } from "../../../src/providers/scb/db.ts";
import { partnerTransactionId } from "../../../src/providers/scb/references.ts";
import { pruneScbExchanges, scbExchangeRetentionJob } from "../../../src/providers/scb/retention-job.ts";
import { DatabaseRecorder } from "../../../src/providers/scb/store.ts";
import { fundWallet } from "../../helpers/ledger.ts";
import { createPayment, createWithdraw } from "../../helpers/lifecycle.ts";
import { CALLBACK_TOKEN, type LiveScb, startLiveScb } from "../../helpers/scb/live.ts";
import { SCB_TEST } from "../../helpers/scb/setup.ts";

const EXCHANGES = "/admin/v1/providers/scb/exchanges";
const DAY_MS = 86_400_000;

let live: LiveScb;

before(async () => {
  live = await startLiveScb();
  await fundWallet(live.svc.deps, live.merchant.merchantId, 10_000_000n);
});
after(async () => {
  await live.close();
});

interface Exchange {
  id: string;
  direction: string;
  operation: string;
  requestUId: string;
  method: string;
  path: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  requestHeaders: Record<string, string> | null;
  requestBody: any;
  responseStatus: number | null;
  responseBody: any;
  error: string | null;
  paymentId: string | null;
  withdrawId: string | null;
  ref1: string | null;
  partnerTransactionId: string | null;
  tokenizerId: string | null;
  transRef: string | null;
}

async function list(query: Record<string, string> = {}) {
  const res = await live.svc.admin("GET", `${EXCHANGES}?${new URLSearchParams(query)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as {
    data: Exchange[];
    total: number;
    page: number;
    limit: number;
    totalPages: number;
  };
}

/** A live payment paid by a simulated customer: SCB's confirmation, then the inquiry that checked it. */
async function paidPayment() {
  const payment = await createPayment(live.svc, live.merchant, { amount: "12345.00" });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select(["collection_reference", "amount_satang"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  const ref1 = row.collection_reference as string;
  const paid = await live.sim.pay({ ref1, amountSatang: row.amount_satang });
  return { payment, ref1, paid };
}

/** A withdraw paid by SCB credit transfer: initiate, confirm, inquiry. */
async function paidWithdraw() {
  const withdraw = await createWithdraw(live.svc, live.merchant, {
    amount: "1500.00",
    customerBankCode: "014",
    customerBankAccountNumber: "5556667778",
  });
  await dispatchPendingWithdraws(live.svc.deps);
  const transfer = await scbTables(live.svc.deps.db)
    .selectFrom("scb_transfers")
    .selectAll()
    .where("withdraw_id", "=", withdraw.id)
    .executeTakeFirstOrThrow();
  return { withdraw, transfer };
}

function assertNewestFirst(records: Exchange[]): void {
  for (let i = 1; i < records.length; i += 1) {
    const [a, b] = [records[i - 1]!, records[i]!];
    const order = Date.parse(a.startedAt) - Date.parse(b.startedAt) || Number(BigInt(a.id) - BigInt(b.id));
    assert.ok(order > 0, `${a.id} (${a.startedAt}) before ${b.id} (${b.startedAt})`);
  }
}

describe("GET /admin/v1/providers/scb/exchanges", () => {
  it("shows a confirmation SCB posted beside the inquiry that checked it, by payment and by ref1", async () => {
    const { payment, ref1, paid } = await paidPayment();
    const page = await list({ paymentId: payment.id });
    assert.deepEqual(
      new Set(page.data.map((e) => e.operation)),
      new Set(["payment_confirmation", "bill_payment_inquiry"]),
    );
    assert.equal(page.total, page.data.length);
    assert.deepEqual([page.page, page.limit, page.totalPages], [1, PAGE_SIZE_DEFAULT, 1]);
    assertNewestFirst(page.data);

    const confirmation = page.data.find((e) => e.operation === "payment_confirmation")!;
    assert.equal(confirmation.direction, "inbound");
    assert.equal(confirmation.method, "POST");
    assert.equal(confirmation.path, "/providers/scb/confirmations/{SCB_CALLBACK_TOKEN}");
    assert.equal(confirmation.responseStatus, 200);
    assert.deepEqual(confirmation.responseBody, {
      resCode: "00",
      resDesc: "success",
      transactionId: paid.transactionId,
    });
    assert.equal(confirmation.requestBody.transactionId, paid.transactionId);
    assert.equal(confirmation.requestBody.payerAccountNumber, "******7890", "masked as recorded");
    assert.equal(confirmation.ref1, ref1);
    assert.equal(confirmation.transRef, paid.transactionId);
    assert.equal(confirmation.paymentId, payment.id);

    const inquiry = page.data.find((e) => e.operation === "bill_payment_inquiry")!;
    assert.equal(inquiry.direction, "outbound");
    assert.equal(inquiry.ref1, ref1);
    assert.equal(inquiry.transRef, paid.transactionId, "the one transaction the inquiry answered");
    assert.equal(inquiry.responseStatus, 200);
    assert.equal(inquiry.responseBody.data[0].transactionId, paid.transactionId);

    const byRef1 = await list({ reference: ref1 });
    assert.deepEqual(
      byRef1.data.map((e) => e.id),
      page.data.map((e) => e.id),
    );
    const byTransRef = await list({ reference: paid.transactionId });
    assert.ok(byTransRef.data.some((e) => e.id === confirmation.id));
  });

  it("records the headers that matter with each call, never the authorization", async () => {
    const { payment } = await paidPayment();
    const [inquiry] = (await list({ paymentId: payment.id, operation: "bill_payment_inquiry" })).data;
    assert.ok(inquiry);
    assert.deepEqual(Object.keys(inquiry.requestHeaders ?? {}).sort(), [
      "accept-language",
      "requestUId",
      "resourceOwnerId",
    ]);
    assert.equal(inquiry.requestHeaders?.requestUId, inquiry.requestUId);
    assert.match(inquiry.requestUId, /^[0-9a-f]{32}$/);
    assert.equal(inquiry.requestHeaders?.["accept-language"], "EN");
    assert.equal(inquiry.requestHeaders?.resourceOwnerId, `${"*".repeat(SCB_TEST.apiKey.length - 4)}cdef`);
    const one = await live.svc.admin("GET", `${EXCHANGES}/${inquiry.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, inquiry);
  });

  it("shows a withdraw's transfer: initiate, confirm and inquiry, by withdraw id and by SCB reference", async () => {
    const { withdraw, transfer } = await paidWithdraw();
    const page = await list({ withdrawId: withdraw.id });
    assert.deepEqual(page.data.map((e) => e.operation).sort(), [
      "credit_confirm",
      "credit_initiate",
      "transfer_inquiry",
    ]);
    for (const exchange of page.data) {
      assert.equal(exchange.withdrawId, withdraw.id);
      assert.equal(exchange.tokenizerId, transfer.tokenizer_id);
    }
    const initiate = page.data.find((e) => e.operation === "credit_initiate")!;
    assert.equal(initiate.partnerTransactionId, partnerTransactionId(withdraw.id));
    assert.equal(initiate.requestBody.payee.accountInfo.accountNo, "******7778");

    const byPartnerId = await list({ reference: partnerTransactionId(withdraw.id) });
    assert.deepEqual(
      byPartnerId.data.map((e) => e.id),
      [initiate.id],
    );
    const byTokenizer = await list({ reference: transfer.tokenizer_id! });
    assert.equal(byTokenizer.total, 3);
    const confirms = await list({ withdrawId: withdraw.id, operation: "credit_confirm" });
    assert.deepEqual(
      confirms.data.map((e) => e.operation),
      ["credit_confirm"],
    );
  });

  it("filters by direction and keeps no secret, token, callback token or full account number", async () => {
    await paidPayment();
    await paidWithdraw();
    const inbound = await list({ direction: "inbound", limit: "100" });
    assert.ok(inbound.total > 0);
    for (const e of inbound.data) assert.equal(e.operation, "payment_confirmation");
    const outbound = await list({ direction: "outbound", limit: "100" });
    assert.ok(outbound.data.some((e) => e.operation === "token"));
    for (const e of outbound.data) assert.equal(e.direction, "outbound");

    const text = JSON.stringify([...inbound.data, ...outbound.data]);
    const tokens = live.sim.requests
      .map((r) => /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ""))?.[1])
      .filter((t): t is string => Boolean(t));
    assert.ok(tokens.length > 0);
    for (const secret of [
      SCB_TEST.apiSecret,
      SCB_TEST.apiKey,
      CALLBACK_TOKEN,
      SCB_TEST.payer.accountNumber,
      SCB_TEST.payer.taxId,
      "5556667778",
      "1234567890",
      ...tokens,
    ]) {
      assert.ok(!text.includes(secret), `an exchange contains ${secret.slice(0, 6)}...`);
    }
    assert.ok(!/authorization/i.test(text), "no authorization header is recorded");
  });

  it("records a confirmation that could not be read, and nothing for a wrong callback token", async () => {
    const before = (await list({ direction: "inbound" })).total;
    const url = live.sim.callbackUrl!;
    const bad = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(bad.status, 400);
    const stranger = await fetch(url.replace(CALLBACK_TOKEN, "x".repeat(40)), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(stranger.status, 404);
    const text = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        requestUId: "sim-uid-1",
        authorization: "Bearer sim-secret-token-0123456789",
        "x-other": "kept out",
      },
      body: "paid from 1234567890123",
    });
    assert.equal(text.status, 400);
    const after = await list({ direction: "inbound" });
    assert.equal(after.total, before + 2);
    const [notJson, empty] = after.data;
    assert.equal(empty?.responseStatus, 400);
    assert.match(empty?.error ?? "", /transactionId is missing/);
    assert.equal(empty?.responseBody.error.code, "VALIDATION_ERROR");
    assert.equal(notJson?.requestBody, "paid from *********0123", "kept as text, digits masked");
    // fetch adds its own accept-language; the authorization and other headers are never kept.
    assert.deepEqual(Object.keys(notJson?.requestHeaders ?? {}).sort(), ["accept-language", "requestUId"]);
    assert.equal(notJson?.requestHeaders?.requestUId, "sim-uid-1");
    assert.equal(notJson?.requestUId, "sim-uid-1");
    assert.match(notJson?.error ?? "", /not JSON/);
  });

  it("takes the shared list parameters: paging, dateFrom inclusive and dateTo exclusive", async () => {
    const { payment } = await paidPayment();
    const all = await list({ paymentId: payment.id });
    assert.ok(all.total >= 2);
    const first = await list({ paymentId: payment.id, limit: "1", page: "1" });
    const second = await list({ paymentId: payment.id, limit: "1", page: "2" });
    assert.deepEqual([first.total, first.totalPages], [all.total, all.total]);
    assert.deepEqual([first.data[0]?.id, second.data[0]?.id], [all.data[0]?.id, all.data[1]?.id]);
    const beyond = await list({ paymentId: payment.id, page: "50" });
    assert.deepEqual([beyond.data, beyond.total], [[], all.total]);

    const times = all.data.map((e) => Date.parse(e.startedAt));
    const [earliest, latest] = [new Date(Math.min(...times)), new Date(Math.max(...times))];
    assert.equal((await list({ paymentId: payment.id, dateFrom: earliest.toISOString() })).total, all.total);
    assert.equal((await list({ paymentId: payment.id, dateTo: earliest.toISOString() })).total, 0);
    const later = new Date(latest.getTime() + 1).toISOString();
    assert.equal((await list({ paymentId: payment.id, dateTo: later })).total, all.total);
    assert.equal((await list({ paymentId: payment.id, dateFrom: later })).total, 0);
  });

  it("refuses invalid parameters with 400 naming the field", async () => {
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["page=0", "page"],
      ["dateFrom=2026-02-30", "dateFrom"],
      ["paymentId=not-a-uuid", "paymentId"],
      ["withdrawId=123", "withdrawId"],
      ["operation=teleport", "operation"],
      ["direction=sideways", "direction"],
      ["reference=", "reference"],
      ["colour=red", "colour"],
    ] as const) {
      const res = await live.svc.admin("GET", `${EXCHANGES}?${query}`);
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field, query);
    }
  });

  it("answers one exchange by id, 404 in the envelope for an unknown or malformed id, 401 without the token", async () => {
    for (const id of ["999999999999", "abc", "12345678901234567890123"]) {
      const res = await live.svc.admin("GET", `${EXCHANGES}/${id}`);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
    const anonymous = await live.svc.admin("GET", EXCHANGES, undefined, "wrong-token-0123456789");
    assert.equal(anonymous.status, 401);
  });
});

describe("GET /admin/v1/payments/by-scb-reference/{ref1}", () => {
  it("finds a payment by its ref1, with its merchant id", async () => {
    const { payment, ref1 } = await paidPayment();
    const res = await live.svc.admin("GET", `/admin/v1/payments/by-scb-reference/${ref1}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.id, payment.id);
    assert.equal(res.body.data.merchantId, live.merchant.merchantId);
    assert.equal(res.body.data.status, "succeeded");
    assert.equal(res.body.data.amount, "12345.00");
    assert.equal(res.body.data.scbReference, ref1);
    const lower = await live.svc.admin("GET", `/admin/v1/payments/by-scb-reference/${ref1.toLowerCase()}`);
    assert.equal(lower.body.data?.id, payment.id, "a reference typed in lower case is found too");
  });

  it("answers 404 in the envelope when no payment has the reference", async () => {
    for (const ref of ["ZZZZZZZZZZZZ", "not-a-reference", "A".repeat(21)]) {
      const res = await live.svc.admin("GET", `/admin/v1/payments/by-scb-reference/${ref}`);
      assert.equal(res.status, 404, ref);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
  });
});

describe("retention of SCB exchanges", () => {
  it("reads SCB_EXCHANGE_RETENTION_DAYS: 90 days by default, a whole number of days from 1", () => {
    assert.equal(loadConfig({}).scbExchangeRetentionDays, 90);
    assert.equal(loadConfig({ SCB_EXCHANGE_RETENTION_DAYS: "30" }).scbExchangeRetentionDays, 30);
    for (const bad of ["0", "-1", "1.5", "ninety", "100000"]) {
      assert.throws(
        () => loadConfig({ SCB_EXCHANGE_RETENTION_DAYS: bad }),
        /SCB_EXCHANGE_RETENTION_DAYS/,
        bad,
      );
    }
  });

  it("deletes exchanges older than the retention in batches, and keeps younger ones", async () => {
    const recorder = new DatabaseRecorder(live.svc.deps.db);
    const now = live.bank.now().getTime();
    const record = (ageDays: number, marker: string) =>
      recorder.record({
        direction: "outbound",
        operation: "token",
        requestUId: marker,
        method: "POST",
        path: `/v1/oauth/token?retention-test=${marker}`,
        attempt: 1,
        startedAt: new Date(now - ageDays * DAY_MS),
        durationMs: 5,
        requestHeaders: {},
        requestBody: null,
        responseStatus: 200,
        responseBody: null,
        error: null,
        keys: {},
      });
    for (let i = 0; i < 5; i += 1) await record(91 + i, `old${i}`);
    await record(89, "young");
    const remaining = async () =>
      (
        await scbTables(live.svc.deps.db)
          .selectFrom("scb_exchanges")
          .select("request_uid")
          .where("path", "like", "/v1/oauth/token?retention-test=%")
          .execute()
      )
        .map((r) => r.request_uid)
        .sort();

    const ctx = live.svc.deps;
    assert.equal(ctx.config.scbExchangeRetentionDays, 90);
    assert.equal(await pruneScbExchanges(ctx, 2), 2);
    assert.equal(await pruneScbExchanges(ctx, 2), 2);
    assert.equal((await remaining()).length, 2);
    // The job runs a batch at a time and again at once while it finds work.
    assert.equal(scbExchangeRetentionJob.name, "scb-exchange-retention");
    assert.equal(await scbExchangeRetentionJob.runOnce(ctx), 1);
    assert.equal(await scbExchangeRetentionJob.runOnce(ctx), 0);
    assert.deepEqual(await remaining(), ["young"]);
  });
});
