/**
 * `satang operator-token create|list|revoke`, `satang audit list` and `satang user create
 * --role` against a server listening in this test process, through `runCli` (the function the
 * `satang` entry point hands its argv, environment and output to).
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { runOperatorCli } from "../helpers/cli.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;
let url = "";

before(async () => {
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await svc?.close();
});

function satang(args: string[], token = ADMIN_TOKEN) {
  return runOperatorCli(url, args, token);
}

describe("satang operator-token and audit", () => {
  it("creates a token shown once, acts under its name, lists it without the secret and revokes it", async () => {
    const name = `cli-operator-${process.pid}`;
    const created = await satang(["operator-token", "create", name, "--json"]);
    assert.equal(created.code, 0, created.stderr);
    const token = JSON.parse(created.stdout);
    assert.match(token.token, /^sat_op_/);
    const friendly = await satang(["operator-token", "create", `${name}-2`]);
    assert.match(friendly.stdout, /Token: sat_op_\S+\nStore it now/);

    const merchant = await satang(["merchant", "create", "--name", "CLI Audited", "--json"], token.token);
    assert.equal(merchant.code, 0, merchant.stderr);
    const merchantId = JSON.parse(merchant.stdout).id;

    const list = await satang(["operator-token", "list"]);
    assert.equal(list.code, 0);
    assert.ok(list.stdout.includes(name));
    assert.ok(!list.stdout.includes(token.token), "no secret in the list");

    const audit = await satang(["audit", "list", "--actor", name]);
    assert.equal(audit.code, 0, audit.stderr);
    assert.match(audit.stdout, new RegExp(`${name} \\(cli\\)  createMerchant  merchant ${merchantId}`));
    const json = JSON.parse((await satang(["audit", "list", "--record", merchantId, "--json"])).stdout);
    assert.equal(json.data[0].actorName, name);
    assert.equal(json.data[0].via, "cli");

    const revoked = await satang(["operator-token", "revoke", token.id]);
    assert.equal(revoked.code, 0);
    assert.match(revoked.stdout, /Revoked operator token/);
    const refused = await satang(["merchant", "get", merchantId], token.token);
    assert.equal(refused.code, 1, "a revoked token is refused");
    assert.match(refused.stderr, /INVALID_CREDENTIALS/);
  });

  it("creates a dashboard user with a role, and refuses an unknown role", async () => {
    const ok = await satang([
      "user",
      "create",
      "--merchant",
      svc.credentials.merchantId,
      "--email",
      `cli-finance-${process.pid}@shop.example`,
      "--password",
      "correct horse battery staple",
      "--role",
      "finance",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /, finance\) for merchant/);
    const bad = await satang([
      "user",
      "create",
      "--merchant",
      svc.credentials.merchantId,
      "--email",
      `cli-bad-${process.pid}@shop.example`,
      "--password",
      "correct horse battery staple",
      "--role",
      "accountant",
    ]);
    // A usage mistake caught before anything is sent, as the CLI's other bad choices are.
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /expected one of owner, developer, finance/);
  });
});

describe("an empty argument or option value", () => {
  it("is a usage mistake (exit 2) before anything is sent, for every command that takes one", async () => {
    // Sent, each would come back as the API's 404 (exit 1).
    for (const args of [
      ["operator-token", "revoke", ""],
      ["merchant", "get", "  "],
      ["withdraw", "approve", ""],
      ["user", "reset-two-factor", ""],
      ["merchant", "clock", "advance", "", "60"],
      ["payouts", "batch", "show", ""],
      ["integration", "create", "--merchant", ""],
      ["integration", "list", "--merchant", "  "],
      ["payouts", "batch", "create", "--merchant", "\t", "--by", "somchai"],
      ["withdraw", "reject", "\u200b"],
      ["merchant", "get", "\ufeff \u200d"],
    ]) {
      const run = await satang(args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, /error: (argument '\w+'|option '--[a-z-]+') is empty/, args.join(" "));
    }
  });
});

describe("what the CLI prints for people", () => {
  it("writes control and invisible characters of server text as escapes, never raw", async () => {
    const name = "Shop\u001b[2K\u001b[1GEvil\u200b\u202e";
    const created = await svc.admin("POST", "/admin/v1/merchants", { name });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const shown = await satang(["merchant", "get", created.body.data.id]);
    assert.equal(shown.code, 0, shown.stderr);
    for (const raw of ["\u001b", "\u200b", "\u202e"])
      assert.ok(!shown.stdout.includes(raw), JSON.stringify(raw));
    assert.ok(shown.stdout.includes("Shop\\u001b[2K\\u001b[1GEvil\\u200b\\u202e"), shown.stdout);
    const json = await satang(["merchant", "get", created.body.data.id, "--json"]);
    assert.equal(JSON.parse(json.stdout).name, name, "--json keeps the data as it is");
  });

  it("writes a line break inside a value as an escape, so a name cannot fake a row of a listing", async () => {
    const name = "Shop\nsk_test_FAKE  active  admin\r\tx";
    const created = await svc.admin("POST", "/admin/v1/merchants", { name });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const shown = await satang(["merchant", "get", created.body.data.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes("Shop\\u000ask_test_FAKE  active  admin\\u000d\\u0009x"), shown.stdout);
    assert.ok(
      !shown.stdout.split("\n").some((line) => line.startsWith("sk_test_FAKE")),
      "no line of its own for the value's second line",
    );
  });
});
