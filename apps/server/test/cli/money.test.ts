/**
 * The operator commands that move money: `satang wallet adjust` and `satang withdraw
 * approve|reject`, run as the entry point runs them (test/helpers/cli.ts) against a server
 * listening in this test.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type CliRun, runSatangCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

function satang(args: string[]): Promise<CliRun> {
  return runSatangCli(args);
}

const withdrawBody = (referenceId: string, amount: string) => ({
  amount,
  referenceId,
  destinationType: "bank_account",
  customerBankAccountName: `Payee ${referenceId}`,
  customerBankAccountNumber: "1234567890",
  customerBankCode: "004",
});

describe("satang wallet and withdraw commands", () => {
  let svc: TestService;
  let target: string[] = [];

  before(async () => {
    svc = await startService();
    await svc.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
    target = ["--url", url, "--token", ADMIN_TOKEN, "--json"];
  });
  after(async () => {
    await svc?.close();
  });

  it("credits a wallet with wallet adjust, and the balance shows it", async () => {
    const run = await satang([
      "wallet",
      "adjust",
      "--merchant",
      svc.credentials.merchantId,
      "--amount",
      "50000.00",
      "--reason",
      "opening float",
      ...target,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).amount, "50000.00");
    const balance = await svc.request("GET", "/api/v1/balance");
    assert.equal(balance.body.data.walletBalance, 50000);
  });

  it("shows a person the adjustment and the balance in satang and in THB, a zero balance too", async () => {
    const merchant = await svc.newMerchant();
    const adjust = (amount: string) =>
      satang(
        [
          "wallet",
          "adjust",
          "--merchant",
          merchant.merchantId,
          "--amount",
          amount,
          "--reason",
          "float",
        ].concat(target.filter((arg) => arg !== "--json")),
      );
    const credit = await adjust("150000.00");
    assert.equal(credit.code, 0, credit.stderr);
    assert.match(
      credit.stdout,
      /by 150000\.00 satang \(1500\.00 THB\): available 150000\.00 satang \(1500\.00 THB\)/,
    );
    // The merchant as a person reads it shows the same balance, in both units.
    const shown = await satang(
      ["merchant", "get", merchant.merchantId].concat(target.filter((arg) => arg !== "--json")),
    );
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /available\s+150000\.00 satang \(1500\.00 THB\)/);
    assert.match(shown.stdout, /awaiting settlement\s+0\.00 satang \(0\.00 THB\)/);
    const debit = await adjust("-150000.00");
    assert.equal(debit.code, 0, debit.stderr);
    assert.match(
      debit.stdout,
      /by -150000\.00 satang \(-1500\.00 THB\): available 0\.00 satang \(0\.00 THB\)/,
    );
  });

  it("runs an adjustment with --idempotency-key twice and moves the money once", async () => {
    const merchant = await svc.newMerchant();
    const adjust = (output: string[] = target) =>
      satang([
        "wallet",
        "adjust",
        "--merchant",
        merchant.merchantId,
        "--amount",
        "700.00",
        "--reason",
        "retried float",
        "--idempotency-key",
        "float-cli-1",
        ...output,
      ]);
    const first = await adjust();
    assert.equal(first.code, 0, first.stderr);
    const again = await adjust();
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), JSON.parse(first.stdout));
    assert.equal(JSON.parse(first.stdout).idempotencyKey, "float-cli-1");
    const shown = await svc.admin("GET", `/admin/v1/merchants/${merchant.merchantId}`);
    assert.equal(shown.body.data.wallet.walletBalance, 700, JSON.stringify(shown.body.data));
    // As a person reads it: the retry says no money moved.
    const human = await adjust(target.filter((arg) => arg !== "--json"));
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Already adjusted with key float-cli-1: no money moved now\./);
  });

  it("refuses a debit larger than the wallet with exit code 1 and INSUFFICIENT_BALANCE", async () => {
    const run = await satang([
      "wallet",
      "adjust",
      "--merchant",
      svc.credentials.merchantId,
      "--amount",
      "-9999999.00",
      "--reason",
      "too much",
      ...target,
    ]);
    assert.equal(run.code, 1);
    assert.equal(JSON.parse(run.stdout).error.code, "INSUFFICIENT_BALANCE");
  });

  it("approves and rejects withdraws awaiting verification", async () => {
    await svc.admin("PATCH", `/admin/v1/merchants/${svc.credentials.merchantId}`, {
      withdrawVerificationThreshold: "1000.00",
    });
    const first = await svc.request("POST", "/api/v1/withdraws", withdrawBody("cli-approve", "1000.00"));
    const second = await svc.request("POST", "/api/v1/withdraws", withdrawBody("cli-reject", "2000.00"));
    assert.equal(first.body.data.status, "awaiting_verification");
    assert.equal(second.body.data.status, "awaiting_verification");

    const approved = await satang(["withdraw", "approve", first.body.data.id, ...target]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).status, "pending");

    const rejected = await satang(["withdraw", "reject", second.body.data.id, ...target]);
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.equal(JSON.parse(rejected.stdout).status, "canceled");

    const again = await satang(["withdraw", "approve", second.body.data.id, ...target]);
    assert.equal(again.code, 1);
    assert.equal(JSON.parse(again.stdout).error.code, "STATE_CONFLICT");
  });
});
