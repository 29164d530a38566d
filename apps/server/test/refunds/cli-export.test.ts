/**
 * Refunds from the command line (`satang refund`, `satang trigger refund.*`, `satang export
 * refunds`) and the refunds CSV export (CONTRACT 16, CONTRACT 11).
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type CliIo, runCli } from "../../src/cli/program.ts";
import { csvRecords } from "../helpers/csv.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { createRefund, simulateRefundRequest, succeededPayment } from "../helpers/refunds.ts";

describe("refunds from the CLI and as CSV", () => {
  let svc: TestService;
  let baseUrl = "";
  before(async () => {
    svc = await startService();
    await svc.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await svc.close();
  });

  const cli = async (args: string[], m: Credentials) => {
    const out = { stdout: "", stderr: "" };
    const io: CliIo = {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
      env: { SATANG_URL: baseUrl, SATANG_API_KEY: m.apiKey, SATANG_API_SECRET: m.apiSecret },
    };
    const outcome = await runCli(args, io);
    return { exitCode: "exitCode" in outcome ? outcome.exitCode : undefined, ...out };
  };

  it("refunds a whole payment, lists it and refuses a second cancel with exit 1", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "2500.00");
    const created = await cli(["refund", "create", payment.id, "--reference", "cli-return-1", "--json"], m);
    assert.equal(created.exitCode, 0, created.stderr);
    const refund = JSON.parse(created.stdout);
    assert.equal(refund.amount, "2500.00");
    assert.equal(refund.status, "pending");
    const listed = await cli(["refund", "list", "--payment", payment.id], m);
    assert.match(listed.stdout, new RegExp(`${refund.id}\\s+pending\\s+25\\.00 THB`));
    assert.equal((await cli(["refund", "cancel", refund.id], m)).exitCode, 0);
    const again = await cli(["refund", "cancel", refund.id], m);
    assert.equal(again.exitCode, 1);
    assert.match(again.stderr, /STATE_CONFLICT|cannot be canceled/);
    const over = await cli(
      ["refund", "create", payment.id, "--amount", "2501.00", "--reference", "cli-return-2"],
      m,
    );
    assert.equal(over.exitCode, 1);
    assert.match(over.stderr, /left to refund/);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("without --amount on a partly refunded payment, says the whole amount was asked and what to pass", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "12345");
    const part = await cli(["refund", "create", payment.id, "--amount", "345", "--reference", "cli-part"], m);
    assert.equal(part.exitCode, 0, part.stderr);
    const whole = await cli(["refund", "create", payment.id, "--reference", "cli-rest"], m);
    assert.equal(whole.exitCode, 1);
    assert.match(whole.stderr, /without --amount the payment's whole amount \(123\.45 THB\) is asked for/);
    assert.match(whole.stderr, /120\.00 THB left to refund: pass --amount 12000\.00 to refund that/);
    const rest = await cli(
      ["refund", "create", payment.id, "--amount", "12000.00", "--reference", "cli-rest"],
      m,
    );
    assert.equal(rest.exitCode, 0, rest.stderr);
    const none = await cli(["refund", "create", payment.id, "--reference", "cli-none"], m);
    assert.equal(none.exitCode, 1);
    assert.match(none.stderr, /0\.00 THB left to refund\.\n/);
  });

  for (const [event, status] of [
    ["refund.processing", "processing"],
    ["refund.succeeded", "succeeded"],
    ["refund.failed", "failed"],
    ["refund.canceled", "canceled"],
  ] as const) {
    it(`satang trigger ${event} produces the event for a refund left ${status}`, async () => {
      const m = await svc.newMerchant();
      const run = await cli(["trigger", event, "--json"], m);
      assert.equal(run.exitCode, 0, run.stderr);
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
      assert.equal(result.refund.status, status);
      const events = await svc.sdkFor(m).events.list({ type: event });
      assert.deepEqual(
        events.data.map((e) => e.data.object.id),
        [result.refund.id],
      );
    });
  }

  it("exports refunds as CSV with THB amounts, masked accounts and both time zones, filtered by status", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "100000.00");
    const from = new Date(svc.clock.now().getTime() - 60_000).toISOString();
    const paid = await createRefund(svc, m, payment.id, { amount: "25000", reason: "=cmd()" });
    await simulateRefundRequest(svc, m, paid.id, "succeeded");
    svc.clock.advance(1000);
    const failed = await createRefund(svc, m, payment.id, { amount: "1000" });
    await simulateRefundRequest(svc, m, failed.id, "failed");
    const to = new Date(svc.clock.now().getTime() + 60_000).toISOString();
    const res = await svc.request(
      "GET",
      `/api/v1/reports/refunds.csv?dateFrom=${from}&dateTo=${to}`,
      undefined,
      {
        credentials: m,
      },
    );
    assert.equal(res.status, 200);
    assert.match(String(res.headers["content-type"]), /^text\/csv; charset=utf-8/);
    const rows = csvRecords(res.body as string);
    assert.equal(rows.length, 2);
    const first = rows[0]!;
    assert.equal(first.refund_id, paid.id);
    assert.equal(first.payment_id, payment.id);
    assert.equal(first.amount_thb, "250.00");
    assert.equal(first.status, "succeeded");
    assert.equal(first.reason, "'=cmd()");
    assert.match(first.account_number!, /^\*+\d{4}$/);
    assert.ok(first.succeeded_at_utc && first.succeeded_at_bangkok);
    assert.match(rows[1]!.failure_reason!, /refused/);
    const onlyFailed = await svc.request(
      "GET",
      `/api/v1/reports/refunds.csv?dateFrom=${from}&dateTo=${to}&status=failed`,
      undefined,
      { credentials: m },
    );
    assert.deepEqual(
      csvRecords(onlyFailed.body as string).map((r) => r.refund_id),
      [failed.id],
    );
    // The ledger CSV names the refund its movements are for: reference, status, masked account.
    const ledger = await svc.request(
      "GET",
      `/api/v1/reports/ledger.csv?dateFrom=${from}&dateTo=${to}`,
      undefined,
      { credentials: m },
    );
    assert.equal(ledger.status, 200);
    const refundRows = csvRecords(ledger.body as string).filter((r) => r.subject_type === "refund");
    assert.ok(refundRows.length > 0, "the refunds moved money in the ledger");
    for (const row of refundRows) {
      const refund = row.subject_id === paid.id ? paid : failed;
      assert.equal(row.subject_id, refund.id);
      assert.equal(row.reference_id, refund.referenceId, `${row.type} names the refund's reference`);
      assert.equal(row.status, refund === paid ? "succeeded" : "failed");
      assert.match(row.masked_account!, /^\*+\d{4}$/);
    }
    assert.deepEqual(new Set(refundRows.map((r) => r.subject_id)), new Set([paid.id, failed.id]));
    const noRange = await svc.request("GET", "/api/v1/reports/refunds.csv", undefined, { credentials: m });
    assert.equal(noRange.status, 400);
    assert.equal(noRange.body.error.code, "VALIDATION_ERROR");
    // paymentId is a payment's id: anything else is refused, not answered with an empty file.
    for (const bad of ["not-a-uuid", ""]) {
      const refused = await svc.request(
        "GET",
        `/api/v1/reports/refunds.csv?dateFrom=${from}&dateTo=${to}&paymentId=${bad}`,
        undefined,
        { credentials: m },
      );
      assert.equal(refused.status, 400, bad);
      assert.equal(refused.body.error.metadata.field, "paymentId", bad);
    }
  });
});
