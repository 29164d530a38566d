/**
 * The developer commands: `satang listen` and `satang trigger` run as separate processes, the
 * way a developer runs them, against a server listening in this test process with its
 * background workers (webhook delivery among them) running. A local receiver checks what
 * `listen` forwards with the `standardwebhooks` library, independent of our own code.
 */
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { EVENT_TYPES, type EventType, type Satang } from "@satang/sdk";
import { Webhook } from "standardwebhooks";
import { derivedSigningSecret } from "../../src/cli/listen.ts";
import { type CliIo, runCli } from "../../src/cli/program.ts";
import { JOBS } from "../../src/jobs/index.ts";
import { type RunningWorkers, startWorkers } from "../../src/jobs/runner.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { satangArgv } from "../helpers/processes.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

const SERVER_ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

let svc: TestService;
let workers: RunningWorkers;
let baseUrl = "";
let receiver: Server;
let receiverUrl = "";
const received: Received[] = [];
let dataDir = "";

before(async () => {
  svc = await startService();
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  workers = startWorkers(svc.deps, JOBS, { error: () => {} });
  dataDir = mkdtempSync(join(tmpdir(), "satang-dev-cli-"));
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: request.headers });
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
after(async () => {
  // A failed test may leave a `listen` running: stop it so the file can finish.
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await workers?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function envFor(credentials: Credentials): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    ...EMBEDDED_TEMPLATE_ENV,
    DATA_DIR: dataDir,
    SATANG_URL: baseUrl,
    SATANG_API_KEY: credentials.apiKey,
    SATANG_API_SECRET: credentials.apiSecret,
  };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far, collected from the start so no line is missed. */
  output: { stdout: string; stderr: string };
  done: Promise<Finished>;
}

const children: ChildProcessWithoutNullStreams[] = [];

function spawnSatang(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, satangArgv(args), {
    cwd: SERVER_ROOT,
    env,
  });
  children.push(child);
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const done = new Promise<Finished>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout: output.stdout, stderr: output.stderr })),
  );
  return { child, output, done };
}

/** The first complete stdout line, parsed as JSON, that `match` accepts. */
function jsonLine(running: Running, match: (line: any) => boolean): any {
  for (const line of running.output.stdout.split("\n").slice(0, -1)) {
    try {
      const parsed = JSON.parse(line);
      if (match(parsed)) return parsed;
    } catch {
      // Not a JSON line: keep reading.
    }
  }
  return undefined;
}

async function waitFor<T>(
  read: () => T | undefined,
  what: string,
  running?: Running,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${running ? `; stderr: ${running.output.stderr}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function deliveryFor(objectId: string, type: string): Received | undefined {
  return received.find((r) => {
    try {
      const event = JSON.parse(r.body);
      return event.type === type && event.data?.object?.id === objectId;
    } catch {
      return false;
    }
  });
}

describe("satang listen and satang trigger, as processes", () => {
  it("delivers a verifiable payment.received to a local receiver; Ctrl-C removes the temporary endpoint", async () => {
    const merchant = await svc.newMerchant();
    const sdk: Satang = svc.sdkFor(merchant);
    // An endpoint a killed `satang listen` on this host left behind: listen cleans it up.
    const stale = await sdk.webhookEndpoints.create({
      url: "http://127.0.0.1:9/satang-listen",
      events: ["*"],
      description: `satang listen on ${hostname()} (pid 1; temporary, removed when it stops)`,
    });

    const listen = spawnSatang(["listen", "--forward-to", receiverUrl, "--json"], envFor(merchant));
    const ready = await waitFor(
      () => jsonLine(listen, (line) => line.ready === true),
      "the ready line",
      listen,
    );
    assert.equal(ready.mode, "endpoint");
    assert.equal(ready.signingSecret, derivedSigningSecret(merchant.apiSecret));
    const endpoints = await sdk.webhookEndpoints.list();
    assert.equal(endpoints.total, 1, "the stale endpoint is gone, the listener's is there");
    assert.notEqual(endpoints.data[0]?.id, stale.id);

    const trigger = await spawnSatang(["trigger", "payment.received", "--json"], envFor(merchant)).done;
    assert.equal(trigger.code, 0, trigger.stderr);
    const result = JSON.parse(trigger.stdout.trim().split("\n").at(-1)!);
    assert.equal(result.event, "payment.received");
    assert.equal(result.payment.status, "succeeded");

    const forwarded = await waitFor(
      () => jsonLine(listen, (line) => line.type === "payment.received"),
      "the forward line",
      listen,
    );
    assert.equal(forwarded.status, 200);
    assert.equal(forwarded.objectId, result.payment.id);
    const delivery = await waitFor(() => deliveryFor(result.payment.id, "payment.received"), "the delivery");
    const headers = Object.fromEntries(
      Object.entries(delivery.headers).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
      ),
    );
    const event = new Webhook(ready.signingSecret).verify(delivery.body, headers) as any;
    assert.equal(event.type, "payment.received");
    assert.equal(event.data.object.id, result.payment.id);
    assert.equal(headers["webhook-id"], event.id, "webhook-id is the event id");
    assert.throws(() =>
      new Webhook(ready.signingSecret).verify(delivery.body.replace("succeeded", "failed"), headers),
    );

    listen.child.kill("SIGINT");
    const stopped = await listen.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /Removed the temporary webhook endpoint/);
    assert.equal((await sdk.webhookEndpoints.list()).total, 0);
  });

  it("says when its endpoint is disabled and enabled again, and stops with exit status 1 when it is deleted", async () => {
    const merchant = await svc.newMerchant();
    const sdk: Satang = svc.sdkFor(merchant);
    const listen = spawnSatang(["listen", "--forward-to", receiverUrl, "--json"], envFor(merchant));
    await waitFor(() => jsonLine(listen, (line) => line.ready === true), "the ready line", listen);
    const [endpoint] = (await sdk.webhookEndpoints.list()).data;
    assert.ok(endpoint, "the temporary endpoint");

    await sdk.webhookEndpoints.update(endpoint.id, { disabled: true });
    await waitFor(
      () => (/was disabled: the server sends no events/.test(listen.output.stderr) ? true : undefined),
      "the disabled notice",
      listen,
    );
    await sdk.webhookEndpoints.update(endpoint.id, { disabled: false });
    await waitFor(
      () => (/was enabled again/.test(listen.output.stderr) ? true : undefined),
      "the enabled notice",
      listen,
    );

    // Someone deletes it (the dashboard's Delete button, say): the listener notices within
    // seconds instead of waiting in silence for events that can no longer come.
    const deletedAt = Date.now();
    await sdk.webhookEndpoints.delete(endpoint.id);
    const stopped = await Promise.race([
      listen.done,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000)),
    ]);
    assert.ok(
      stopped,
      `listen still runs 30 s after its endpoint was deleted; stderr: ${listen.output.stderr}`,
    );
    assert.equal(stopped.code, 1, stopped.stderr);
    assert.match(stopped.stderr, new RegExp(`webhook endpoint ${endpoint.id} was deleted`));
    assert.match(stopped.stderr, /run satang listen again/);
    assert.doesNotMatch(stopped.stderr, /Could not remove/, "a deleted endpoint is not deleted twice");
    assert.ok(Date.now() - deletedAt < 30_000);
    assert.equal(
      (await sdk.webhookEndpoints.list()).total,
      0,
      "nothing was re-created behind the developer's back",
    );
  });

  it("forwards in poll mode, only the event types asked for, signed with a given secret", async () => {
    const merchant = await svc.newMerchant();
    const secret = "whsec_dGVzdC1zZWNyZXQtb2YtdGhpcnR5LXR3by1ieXRlcyE=";
    const listen = spawnSatang(
      [
        "listen",
        "--forward-to",
        receiverUrl,
        "--mode",
        "poll",
        "--poll-interval",
        "0.2",
        "--events",
        "payment.canceled",
        "--signing-secret",
        secret,
      ],
      envFor(merchant),
    );
    await waitFor(() => (listen.output.stdout.includes("Ready!") ? true : undefined), "Ready!", listen);

    const failed = await spawnSatang(["trigger", "payment.failed", "--json"], envFor(merchant)).done;
    assert.equal(failed.code, 0, failed.stderr);
    const canceled = await spawnSatang(["trigger", "payment.canceled"], envFor(merchant)).done;
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.match(canceled.stdout, /Trigger succeeded: payment.canceled for payment ([0-9a-f-]{36})/);
    const paymentId = /for payment ([0-9a-f-]{36})/.exec(canceled.stdout)![1]!;

    const delivery = await waitFor(() => deliveryFor(paymentId, "payment.canceled"), "the canceled event");
    const headers = delivery.headers as Record<string, string>;
    assert.equal((new Webhook(secret).verify(delivery.body, headers) as any).type, "payment.canceled");

    listen.child.kill("SIGINT");
    const stopped = await listen.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /--> payment\.canceled .* <-- \[200\] POST/);
    assert.doesNotMatch(stopped.stdout, /payment\.failed/, "an event type not asked for is not forwarded");
  });
});

describe("satang trigger, every event", () => {
  let merchant: Credentials;
  let sdk: Satang;
  before(async () => {
    merchant = await svc.newMerchant({ settlementDelayHours: 0 });
    sdk = svc.sdkFor(merchant);
  });

  function io(env: Record<string, string>) {
    const out = { stdout: "", stderr: "" };
    const cliIo: CliIo = {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
      env,
    };
    return { out, cliIo };
  }

  for (const type of EVENT_TYPES) {
    it(`produces ${type}`, async () => {
      const { out, cliIo } = io(envFor(merchant));
      const outcome = await runCli(["trigger", type, "--json"], cliIo);
      assert.deepEqual(outcome, { exitCode: 0 }, out.stderr);
      const result = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
      const objectId = (result.refund ?? result.payment ?? result.withdraw).id;
      const events = await sdk.events.list({ type: type as EventType, limit: 100 });
      assert.ok(
        events.data.some((event) => event.data.object.id === objectId),
        `a ${type} event for ${objectId}`,
      );
    });
  }

  it("prints its steps without --json", async () => {
    const { out, cliIo } = io(envFor(merchant));
    assert.deepEqual(await runCli(["trigger", "withdraw.paid"], cliIo), { exitCode: 0 });
    assert.match(out.stdout, /^Triggering withdraw\.paid\n/);
    assert.match(out.stdout, /Created withdraw [0-9a-f-]{36} of 100\.00 THB \(pending\)/);
    assert.match(out.stdout, /Simulated the bank: paid \(paid\)/);
    // A refund's steps are said one by one too: the bank takes it, then pays it.
    const refund = io(envFor(merchant));
    assert.deepEqual(await runCli(["trigger", "refund.succeeded"], refund.cliIo), { exitCode: 0 });
    assert.match(
      refund.out.stdout,
      /Simulated the bank: processing \(processing\)\nSimulated the bank: succeeded \(succeeded\)/,
    );
  });

  it("exits 2 on usage errors, 1 on API refusals and 3 when the server cannot be reached", async () => {
    const noCredentials = io({ PATH: "", SATANG_URL: baseUrl });
    assert.deepEqual(await runCli(["trigger", "payment.received"], noCredentials.cliIo), { exitCode: 2 });
    assert.match(noCredentials.out.stderr, /No API credentials/);

    const env = envFor(merchant);
    assert.deepEqual(await runCli(["trigger", "payment.refunded"], io(env).cliIo), { exitCode: 2 });
    assert.deepEqual(await runCli(["trigger", "payment.received", "--amount", "1.5"], io(env).cliIo), {
      exitCode: 2,
    });
    assert.deepEqual(
      await runCli(["listen", "--forward-to", receiverUrl, "--events", "payment.nope"], io(env).cliIo),
      { exitCode: 2 },
    );
    assert.deepEqual(await runCli(["listen"], io(env).cliIo), { exitCode: 2 });
    assert.deepEqual(
      await runCli(
        ["listen", "--forward-to", receiverUrl, "--signing-secret", "whsec_c2hvcnQ="],
        io(env).cliIo,
      ),
      { exitCode: 2 },
    );

    const wrong = io({ ...env, SATANG_API_SECRET: "wrong" });
    assert.deepEqual(await runCli(["trigger", "payment.received", "--json"], wrong.cliIo), { exitCode: 1 });
    assert.match(wrong.out.stderr, /INVALID_CREDENTIALS[\s\S]*SATANG_API_KEY/);
    assert.equal(JSON.parse(wrong.out.stdout.trim().split("\n").at(-1)!).error.code, "INVALID_CREDENTIALS");

    const down = io({ ...env, SATANG_URL: "http://127.0.0.1:9" });
    assert.deepEqual(await runCli(["trigger", "payment.received"], down.cliIo), { exitCode: 3 });
    assert.match(down.out.stderr, /Cannot reach Satang/);
    assert.match(down.out.stderr, /that address is the address in SATANG_URL/);

    // No SATANG_URL: the CLI falls back to http://HOST:PORT and says so, naming SATANG_URL.
    const { SATANG_URL: _url, ...withoutUrl } = env;
    const fallback = io({ ...withoutUrl, PORT: "9" });
    assert.deepEqual(await runCli(["trigger", "payment.received"], fallback.cliIo), { exitCode: 3 });
    assert.match(fallback.out.stderr, /Cannot reach Satang at http:\/\/127\.0\.0\.1:9/);
    assert.match(fallback.out.stderr, /because SATANG_URL is not set/);
    assert.match(fallback.out.stderr, /set SATANG_URL to the server's address/);
  });
});

describe("satang clock, and trigger leaving the test clock as it found it", () => {
  function io(env: Record<string, string>) {
    const out = { stdout: "", stderr: "" };
    const cliIo: CliIo = {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
      env,
    };
    return { out, cliIo };
  }

  it("trigger payment.expired puts a clock that was at real time back to real time, and says so", async () => {
    const merchant = await svc.newMerchant();
    const sdk = svc.sdkFor(merchant);
    const { out, cliIo } = io(envFor(merchant));
    assert.deepEqual(await runCli(["trigger", "payment.expired"], cliIo), { exitCode: 0 }, out.stderr);
    assert.match(out.stdout, /Moved the test clock 5 minutes 1 second on/);
    assert.match(out.stdout, /Put the test clock back at real time, where it was/);
    assert.deepEqual(await sdk.sandbox.clock(), { now: svc.clock.now().toISOString(), offsetSeconds: 0 });
    // The merchant's next record carries real time, not five minutes ahead.
    const next = await sdk.payments.create({
      amount: "1000.00",
      referenceId: `after-trigger-${Date.now()}`,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: "4000000991",
      customerBankCode: "014",
    });
    assert.equal(next.createdAt, svc.clock.now().toISOString());
  });

  it("trigger payment.expired puts a clock that ran ahead back to the same offset, and reports both in --json", async () => {
    const merchant = await svc.newMerchant();
    const sdk = svc.sdkFor(merchant);
    await sdk.sandbox.advanceClock(3600);
    const { out, cliIo } = io(envFor(merchant));
    assert.deepEqual(
      await runCli(["trigger", "payment.expired", "--json"], cliIo),
      { exitCode: 0 },
      out.stderr,
    );
    const result = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
    assert.equal(result.payment.status, "expired");
    assert.deepEqual(result.clock, { offsetSecondsBefore: 3600, offsetSecondsAfter: 3600 });
    assert.equal((await sdk.sandbox.clock()).offsetSeconds, 3600);
  });

  it("shows, advances and resets the merchant's clock", async () => {
    const merchant = await svc.newMerchant();
    const env = envFor(merchant);
    const wall = svc.clock.now();

    const advanced = io(env);
    assert.deepEqual(await runCli(["clock", "advance", "301"], advanced.cliIo), { exitCode: 0 });
    assert.match(advanced.out.stdout, /Moved the test clock 5 minutes 1 second forward/);

    const shown = io(env);
    assert.deepEqual(await runCli(["clock", "show"], shown.cliIo), { exitCode: 0 });
    const ahead = new Date(wall.getTime() + 301_000).toISOString();
    assert.equal(shown.out.stdout, `Test clock: ${ahead} (5 minutes 1 second ahead of real time)\n`);

    const reset = io(env);
    assert.deepEqual(await runCli(["clock", "reset"], reset.cliIo), { exitCode: 0 });
    assert.match(reset.out.stdout, /^Reset the test clock \(it was 5 minutes 1 second ahead\)/);
    assert.match(reset.out.stdout, new RegExp(`Test clock: ${wall.toISOString()} \\(at real time\\)\\n$`));

    const json = io(env);
    assert.deepEqual(await runCli(["clock", "show", "--json"], json.cliIo), { exitCode: 0 });
    assert.deepEqual(JSON.parse(json.out.stdout), { now: wall.toISOString(), offsetSeconds: 0 });

    const again = io(env);
    assert.deepEqual(await runCli(["clock", "reset"], again.cliIo), { exitCode: 0 });
    assert.match(again.out.stdout, /already at real time/);
  });

  it("refuses a step that is not whole seconds with exit code 2", async () => {
    const merchant = await svc.newMerchant();
    for (const step of ["0", "-5", "1.5", "soon"]) {
      const { cliIo } = io(envFor(merchant));
      assert.deepEqual(await runCli(["clock", "advance", step], cliIo), { exitCode: 2 }, step);
    }
    assert.equal((await svc.sdkFor(merchant).sandbox.clock()).offsetSeconds, 0);
  });
});
