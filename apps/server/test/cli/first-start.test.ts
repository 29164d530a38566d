/**
 * `satang serve` on a fresh data directory, as a process: progress while the store opens and
 * migrates; a start that cannot bind its port exits non-zero with a clear message and creates no
 * one-time credentials, so the next successful start still prints the operator token, the demo
 * secret and the demo dashboard login (which logs in, and which the landing page names without
 * its password); every start prints where the API, /docs and /dashboard are; DATA_DIR, created
 * by the start itself, is private from the start and draws no permissions warning.
 */
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { satangArgv } from "../helpers/processes.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

const SERVER_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const START_DEADLINE_MS = 240_000;

const parent = mkdtempSync(join(tmpdir(), "satang-first-start-"));
/** Not there yet: the first start creates it, as `npm start` creates ./data. */
const dataDir = join(parent, "data");
after(() => rmSync(parent, { recursive: true, force: true }));

interface Serving {
  child: ChildProcessWithoutNullStreams;
  output: () => { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

function serve(port: number): Serving {
  const child = spawn(process.execPath, satangArgv(["serve", "--no-workers"]), {
    cwd: SERVER_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...EMBEDDED_TEMPLATE_ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** Runs `satang <args>` with only PATH, HOME and `env`, as from a new shell; its exit code and output. */
function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, satangArgv(args), {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

/** Waits until the process says where it listens (or exits); returns its output so far. */
async function untilListening(serving: Serving): Promise<string> {
  let exited = false;
  void serving.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + START_DEADLINE_MS;
  while (!serving.output().stdout.includes("is listening on") && !exited && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { stdout, stderr } = serving.output();
  assert.ok(stdout.includes("is listening on"), `${stdout}\n${stderr}`);
  return stdout;
}

async function listenAnywhere(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function assertAddresses(stdout: string, port: number): void {
  assert.match(stdout, new RegExp(`is listening on http://127\\.0\\.0\\.1:${port}`));
  assert.match(stdout, new RegExp(`API +http://127\\.0\\.0\\.1:${port}/api/v1`));
  assert.match(stdout, new RegExp(`Docs +http://127\\.0\\.0\\.1:${port}/docs`));
  assert.match(stdout, new RegExp(`Dashboard +http://127\\.0\\.0\\.1:${port}/dashboard`));
}

async function stop(serving: Serving): Promise<void> {
  serving.child.kill("SIGTERM");
  const code = await serving.exited;
  const { stdout, stderr } = serving.output();
  assert.equal(code, 0, `${stdout}\n${stderr}`);
}

describe("satang serve: first start", () => {
  it("a start on a taken port consumes no credentials; the next start prints them; later starts print the addresses", async () => {
    const blocker = await listenAnywhere();
    const takenPort = (blocker.address() as AddressInfo).port;
    try {
      const failed = serve(takenPort);
      const code = await failed.exited;
      const { stdout, stderr } = failed.output();
      assert.notEqual(code, 0, stdout);
      assert.match(stdout, /opening the embedded database/);
      assert.match(stdout, /applying migrations/);
      assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${takenPort} is already in use.*set PORT`));
      assert.doesNotMatch(stdout, /: first start|API secret|Operator \(admin API\) token/);
      assert.ok(!existsSync(join(dataDir, "admin-token")), "no token was generated");
      // The start created DATA_DIR itself (its secret key first), private from the start: no
      // warning about permissions it chose.
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
      assert.doesNotMatch(stderr, /DataDirPermissions|readable or writable by other users/);
    } finally {
      blocker.close();
    }

    const freePortServer = await listenAnywhere();
    const port = (freePortServer.address() as AddressInfo).port;
    await new Promise<void>((resolve) => freePortServer.close(() => resolve()));

    const first = serve(port);
    try {
      const stdout = await untilListening(first);
      assert.match(stdout, /\): first start/);
      assert.match(stdout, /Operator \(admin API\) token/);
      assert.match(stdout, /API secret {2}\S+/);
      const token = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
      assert.ok(stdout.includes(token), "the operator token is printed by the start that created it");
      assertAddresses(stdout, port);
      assert.doesNotMatch(first.output().stderr, /DataDirPermissions/);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);

      // The banner and the landing page point at /dashboard: the first start made a way in.
      assert.match(
        stdout,
        new RegExp(`Dashboard login of "Demo Shop", at http://127\\.0\\.0\\.1:${port}/dashboard`),
      );
      const login = /Email +(\S+)\n +Password +(\S+)/.exec(stdout);
      assert.ok(login, "the banner prints the demo login's email and password");
      const [, email, password] = login;
      assert.match(stdout, /npx satang user create --merchant [0-9a-f-]{36} --email/);
      // The hint works as printed from another shell, which has neither this PORT nor DATA_DIR.
      const hint = /^ +((?:[A-Z_]+='[^']*' )*)npx satang (user create .*)$/m.exec(stdout);
      assert.ok(hint, "the banner's CLI line");
      const settings = Object.fromEntries(
        [...hint[1]!.matchAll(/([A-Z_]+)='([^']*)'/g)].map((match) => [match[1]!, match[2]!]),
      );
      assert.deepEqual(Object.keys(settings).sort(), ["DATA_DIR", "SATANG_URL"]);
      const args = hint[2]!
        .replace("you@example.com", "second@example.com")
        .replace("<12+ characters>", "a-long-enough-password")
        .split(" ");
      const made = await runCli(args, settings);
      assert.equal(made.code, 0, made.output);
      assert.match(made.output, /second@example\.com/);
      const signIn = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      assert.equal(signIn.status, 200, await signIn.clone().text());
      assert.match(((await signIn.json()) as { data: { token: string } }).data.token, /\S{20,}/);
      const landing = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      assert.ok(landing.includes(email!), "the landing page names the demo login's email");
      assert.ok(landing.includes("npx satang user create"), "and how to make another login");
      assert.ok(!landing.includes(password!), "never the password");
      await stop(first);
    } finally {
      first.child.kill("SIGKILL");
    }

    const second = serve(port);
    try {
      const stdout = await untilListening(second);
      assert.match(stdout, /opening the embedded database/);
      assertAddresses(stdout, port);
      assert.doesNotMatch(stdout, /: first start|API secret|Password/);
      await stop(second);
    } finally {
      second.child.kill("SIGKILL");
    }
  });
});
