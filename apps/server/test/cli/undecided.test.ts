/**
 * `satang payouts undecided` and `satang withdraw resolve` (CONTRACT 15) against a sandbox
 * server listening in this test process: a withdraw whose payout answer was lost
 * (`indeterminate`) stays processing with its payout open, the connector's undecided case in
 * the sandbox; past PAYOUT_UNDECIDED_ALERT_S it is listed and the operator resolves it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runSatangCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, ledgerKinds, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

let svc: TestService;
let shop: Credentials;
let target: string[] = [];
let dir = "";

function satang(args: string[]): Promise<CliRun> {
  return runSatangCli([...args, ...target], { DATA_DIR: dir });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "satang-cli-undecided-"));
  svc = await startService({ env: { PAYOUT_UNDECIDED_ALERT_S: "60" } });
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  target = [
    "--url",
    `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`,
    "--token",
    ADMIN_TOKEN,
  ];
  shop = await fundedMerchant(svc, {}, 100_000n);
});
after(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("satang payouts undecided / withdraw resolve", () => {
  it("lists an undecided payout past the bound and resolves it failed, its hold released", async () => {
    const withdraw = await createWithdraw(svc, shop, { amount: "250.00" });
    const lost = await simulateWithdrawRequest(svc, shop, withdraw.id, "indeterminate");
    assert.equal(lost.status, 200);
    assert.equal((await satang(["payouts", "undecided"])).stdout.trim(), "No undecided payouts.");
    svc.clock.advance(61_000);
    const listed = await satang(["payouts", "undecided"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${withdraw.id}  2\\.50 THB  sandbox`));
    const json = await satang(["payouts", "undecided", "--json"]);
    assert.equal(JSON.parse(json.stdout).data[0].withdrawId, withdraw.id);

    const refused = await satang(["withdraw", "resolve", withdraw.id, "--outcome", "lost", "--reason", "x"]);
    assert.equal(refused.code, 2);
    const resolved = await satang([
      "withdraw",
      "resolve",
      withdraw.id,
      "--outcome",
      "failed",
      "--reason",
      "bank statement shows no transfer",
    ]);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(resolved.stdout.trim(), `Withdraw ${withdraw.id} is now failed`);
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    const again = await satang(["withdraw", "resolve", withdraw.id, "--outcome", "paid", "--reason", "x"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /STATE_CONFLICT/);
  });
});
