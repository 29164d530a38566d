/**
 * `satang export`: the CLI downloads a CSV export with the merchant's API key, to a file or to
 * stdout, against a server listening in this test process; refusals print the API's code.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliIo, runCli } from "../../src/cli/program.ts";
import { csvRecords } from "../helpers/csv.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;
let shop: Credentials;
let baseUrl = "";
let dir = "";
const payments: any[] = [];

before(async () => {
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), "satang-export-cli-"));
  shop = await svc.newMerchant();
  for (let i = 0; i < 3; i++) {
    const res = await svc.request(
      "POST",
      "/api/v1/payments",
      {
        amount: `${(i + 1) * 10000}.00`,
        referenceId: `cli-export-${process.pid}-${i}`,
        paymentMethod: "promptpay",
        customerBankAccountName: "Somchai Jaidee",
        customerBankAccountNumber: String(8_000_000_000 + i),
        customerBankCode: "004",
      },
      { credentials: shop },
    );
    assert.equal(res.status, 201);
    payments.push(res.body.data);
    svc.clock.advance(1000);
  }
});

after(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { SATANG_URL: baseUrl, SATANG_API_KEY: shop.apiKey, SATANG_API_SECRET: shop.apiSecret },
  };
  const outcome = await runCli(args, io);
  assert.ok("exitCode" in outcome);
  return { code: outcome.exitCode, stdout, stderr };
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe("satang export", () => {
  it("writes the payments CSV to --out", async () => {
    const out = join(dir, "payments.csv");
    const result = await run(["export", "payments", "--from", day(-1), "--to", day(2), "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    const records = csvRecords(readFileSync(out, "utf8"));
    assert.deepEqual(
      records.map((r) => r.payment_id),
      payments.map((p) => p.id),
    );
    assert.deepEqual(
      records.map((r) => r.amount_thb),
      ["100.00", "200.00", "300.00"],
    );
    assert.match(result.stderr, /Wrote payments/);
    assert.equal(statSync(out).mode & 0o777, 0o600, "readable by its owner only");
  });

  it("narrows an existing --out file to its owner before writing", async () => {
    const out = join(dir, "existing.csv");
    writeFileSync(out, "old\n", { mode: 0o644 });
    chmodSync(out, 0o644);
    const result = await run(["export", "payments", "--from", day(-1), "--to", day(2), "--out", out]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.ok(!readFileSync(out, "utf8").startsWith("old"));
  });

  it("prints to stdout without --out, and passes --status", async () => {
    // One export of `kind` over the test's days, with `filters`.
    const exportWith = (kind: string, ...filters: string[]) =>
      run(["export", kind, "--from", day(-1), "--to", day(2), ...filters]);
    const result = await exportWith("payments", "--status", "canceled");
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(csvRecords(result.stdout), []);
    const ledger = await exportWith("ledger");
    assert.equal(ledger.code, 0, ledger.stderr);
    assert.match(ledger.stdout, /^entry_id,/);
    // The ledger's own filters reach the server; one it does not take is refused before a request.
    const ledgerWith = (...filters: string[]) => exportWith("ledger", ...filters);
    const filtered = await ledgerWith("--account", "wallet_held", "--type", "withdraw_hold");
    assert.equal(filtered.code, 0, filtered.stderr);
    assert.deepEqual(csvRecords(filtered.stdout), [], "no withdraw was held");
    const wrongKind = await ledgerWith("--account", "nowhere");
    assert.equal(wrongKind.code, 1, "the server refuses an unknown account");
    assert.match(wrongKind.stderr, /VALIDATION_ERROR.*field: account/);
    const status = await ledgerWith("--status", "paid");
    assert.equal(status.code, 2, status.stderr);
    assert.match(
      status.stderr,
      /--status does not apply to the ledger export \(it takes --type and --account\)/,
    );
    const account = await exportWith("payments", "--account", "wallet_held");
    assert.equal(account.code, 2, account.stderr);
  });

  it("prints the API's refusal for a range over 366 days (exit 1) and needs --from and --to (exit 2)", async () => {
    const long = await run(["export", "withdraws", "--from", "2025-01-01", "--to", "2026-01-03"]);
    assert.equal(long.code, 1);
    assert.match(long.stderr, /VALIDATION_ERROR.*366 days.*field: dateTo/);
    const missing = await run(["export", "payments", "--from", "2025-01-01"]);
    assert.equal(missing.code, 2);
  });
});
