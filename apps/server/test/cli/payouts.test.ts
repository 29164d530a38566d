/**
 * `satang payouts batch ...` run as the entry point runs it (test/helpers/cli.ts), against a
 * manual-payout server listening in this test process.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runSatangCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createRefund, succeededPayment } from "../helpers/refunds.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let dir = "";

function satang(args: string[]): Promise<CliRun> {
  return runSatangCli(args, { DATA_DIR: dir });
}

describe("satang payouts batch", () => {
  let svc: TestService;
  let target: string[] = [];
  let shop: Credentials;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "satang-cli-payouts-"));
    svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
    await svc.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
    target = ["--url", url, "--token", ADMIN_TOKEN];
    shop = await fundedMerchant(svc, {}, 100_000n);
  });
  after(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates a batch, downloads its CSV, records outcomes and shows the closed batch", async () => {
    const ids: string[] = [];
    for (const amount of ["1000.00", "2000.00"]) {
      svc.clock.advance(1000);
      const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount }), {
        credentials: shop,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.data.id);
    }

    const created = await satang([
      "payouts",
      "batch",
      "create",
      "--merchant",
      shop.merchantId,
      "--max",
      "10",
      "--by",
      "cli operator",
      "--json",
      ...target,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const batch = JSON.parse(created.stdout);
    assert.equal(batch.itemCount, 2);
    assert.equal(batch.createdBy, "cli operator");

    const out = join(dir, "batch.csv");
    const csv = await satang(["payouts", "batch", "csv", batch.id, "--out", out, ...target]);
    assert.equal(csv.code, 0, csv.stderr);
    const text = readFileSync(out, "utf8");
    assert.match(
      text,
      /^\uFEFFbank_code,bank_name,account_number,account_name,amount_thb,withdraw_id,reference,destination_type,status,bank_reference,failure_reason,recorded_by\r\n/,
    );
    assert.match(text, new RegExp(`,1234567890,.*,10\\.00,${ids[0]},[^,]+,bank_account,open,,,\r\n`));
    assert.equal(
      statSync(out).mode & 0o777,
      0o600,
      "the file with full account numbers is the operator's only",
    );

    const neither = await satang(["payouts", "batch", "record", batch.id, ids[0]!, ...target]);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /exactly one of --paid/);

    const paid = await satang([
      "payouts",
      "batch",
      "record",
      batch.id,
      ids[0]!,
      "--paid",
      "KB-778899",
      ...target,
    ]);
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(
      paid.stdout,
      /1 paid \(10\.00 THB\), 0 failed, 1 open; created by cli operator \(operator token admin-token\)/,
    );
    const failed = await satang([
      "payouts",
      "batch",
      "record",
      batch.id,
      ids[1]!,
      "--failed",
      "Account closed",
      ...target,
    ]);
    assert.equal(failed.code, 0, failed.stderr);
    assert.match(failed.stdout, /\(closed\)/);
    assert.match(failed.stdout, /failed \(Account closed, recorded by admin-token via cli\)/);

    // A paid line is never recorded failed afterwards (paid on a failed line is the late success).
    const conflict = await satang([
      "payouts",
      "batch",
      "record",
      batch.id,
      ids[0]!,
      "--failed",
      "Second thoughts",
      ...target,
    ]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /STATE_CONFLICT/);

    const [list, show, human] = await Promise.all([
      satang(["payouts", "batch", "list", "--status", "closed", ...target]),
      satang(["payouts", "batch", "show", batch.id, "--json", ...target]),
      satang(["payouts", "batch", "show", batch.id, ...target]),
    ]);
    // People read baht with the unit, the figures of the CSV; the satang wire form stays in --json.
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /2 withdraws, total 30\.00 THB; 1 paid \(10\.00 THB\), 1 failed, 0 open/);
    assert.match(human.stdout, /1\. 10\.00 THB {2}bank_account 004 \*+7890 /);
    assert.match(human.stdout, /2\. 20\.00 THB {2}bank_account /);
    assert.doesNotMatch(human.stdout, /satang|1000\.00|2000\.00/);
    assert.match(
      human.stdout,
      new RegExp(
        `withdraw ${ids[0]} \\(reference [^,]+, status paid\\)  paid \\(KB-778899, recorded by admin-token via cli\\)`,
      ),
    );
    assert.match(list.stdout, /2 lines, total 30\.00 THB/);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^1 batch\n/, "one batch is not called batches");
    const past = await satang(["payouts", "batch", "list", "--status", "closed", "--page", "2", ...target]);
    assert.equal(past.code, 0, past.stderr);
    assert.equal(past.stdout.trim(), "1 batch, none on this page (past the last)");
    assert.match(list.stdout, new RegExp(`Batch ${batch.id} \\(closed\\)`));
    assert.equal(show.code, 0, show.stderr);
    const shown = JSON.parse(show.stdout);
    assert.deepEqual(
      shown.items.map((item: { outcome: string }) => item.outcome),
      ["paid", "failed"],
    );
    assert.equal(shown.totalAmount, "3000.00", "--json keeps the wire form of the interface");
    assert.deepEqual(
      shown.items.map((item: { recordedBy: string; recordedVia: string }) => [
        item.recordedBy,
        item.recordedVia,
      ]),
      [
        ["admin-token", "cli"],
        ["admin-token", "cli"],
      ],
    );

    // One withdraw is one withdraw.
    svc.clock.advance(1000);
    const single = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "500.00" }), {
      credentials: shop,
    });
    assert.equal(single.status, 201, JSON.stringify(single.body));
    const one = await satang(["payouts", "batch", "create", "--merchant", shop.merchantId, ...target]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /: 1 withdraw, total 5\.00 THB/);

    const empty = await satang(["payouts", "batch", "create", ...target]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /No pending withdraws/);
  });

  it("shows a refund line marked REFUND and records its outcome with --refund", async () => {
    const payment = await succeededPayment(svc, shop, "4000.00");
    const refund = await createRefund(svc, shop, payment.id, { amount: "1500.00" });
    const created = await satang(["payouts", "batch", "create", "--json", ...target]);
    assert.equal(created.code, 0, created.stderr);
    const batch = JSON.parse(created.stdout);
    const before = await satang(["payouts", "batch", "show", batch.id, ...target]);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /1 line \(0 withdraws, 1 refund\), total 15\.00 THB/);
    // The list has no lines to tell kinds by: it counts lines, never calling a refund a withdraw.
    const listed = await satang(["payouts", "batch", "list", ...target]);
    assert.equal(listed.code, 0, listed.stderr);
    const row = listed.stdout.split("\n").find((line) => line.includes(batch.id));
    assert.match(String(row), /: 1 line, total 15\.00 THB/);
    assert.match(
      before.stdout,
      new RegExp(`REFUND ${refund.id} \\(reference ${refund.referenceId}, status processing\\)  open`),
    );
    const recorded = await satang([
      "payouts",
      "batch",
      "record",
      batch.id,
      refund.id,
      "--refund",
      "--paid",
      "KB-REFUND-1",
      ...target,
    ]);
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(
      recorded.stdout,
      new RegExp(
        `REFUND ${refund.id} \\(reference [^,]+, status succeeded\\)  paid \\(KB-REFUND-1, recorded by admin-token via cli\\)`,
      ),
    );
  });
});
