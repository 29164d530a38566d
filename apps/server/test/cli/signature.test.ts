/**
 * The developer commands sign with the SDK's default, signature v2, so they work with an API key
 * created with `satang integration create --require-v2`, which refuses v1 signatures.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type CliIo, runCli } from "../../src/cli/program.ts";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;
let baseUrl = "";
before(async () => {
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await svc?.close();
});

describe("satang trigger with a key that requires signature v2", () => {
  it("creates and pays a payment, signing every request v2", async () => {
    const strict = await svc.newMerchant({}, { requireSignatureV2: true });
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      env: { SATANG_URL: baseUrl, SATANG_API_KEY: strict.apiKey, SATANG_API_SECRET: strict.apiSecret },
    };
    assert.deepEqual(await runCli(["trigger", "payment.received", "--json"], io), { exitCode: 0 }, stderr);
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    assert.equal(result.payment.status, "succeeded");
    const stored = await svc.sdkFor(strict).payments.retrieve(result.payment.id);
    assert.equal(stored.status, "succeeded");
  });
});
