/**
 * The README's examples, run top to bottom against a fresh service exactly as a newcomer
 * would: `npm start` on an empty DATA_DIR (embedded store, sandbox), then every `sh` block in
 * one shell (so the variables one block exports reach the next) and every `js` block saved to
 * a file and run with Node, in the order they appear. The only change made to the text is the
 * port: the README says 3000, the test listens on a free one.
 *
 * A new kind of block, or a block that fails, fails this test: the README and the service
 * cannot drift apart. Blocks that install or run the whole suite are named below and not run.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitFor } from "../helpers/processes.ts";
import { pathWithStandIns } from "../helpers/shell-stand-ins.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const README = join(REPO_ROOT, "README.md");
// One directory per run: two suites run side by side from one checkout (embedded and
// PostgreSQL) each write their blocks, with their own port, and must not run each other's.
const WORK_DIR = join(REPO_ROOT, "apps/server/test-results/readme", String(process.pid));

/** Blocks the test does not run: it starts the service itself, and never runs the suite inside the suite. */
const NOT_RUN = new Map([
  ["npm install && npm start", "the test runs `npm start` itself, on a free port"],
  ["npm install && npm test", "the whole test suite"],
]);

interface Block {
  lang: string;
  code: string;
  line: number;
}

function readmeBlocks(): Block[] {
  const lines = readFileSync(README, "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i += 1) body.push(lines[i] ?? "");
    blocks.push({ lang: open[1] ?? "", code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === "object");
  return address.port;
}

let port: number;
let dataDir: string;
/** PATH for the README's shell blocks: the machine's, with stand-ins for the tools it lacks. */
let examplesPath = process.env.PATH ?? "";
let service: ChildProcess;
let serviceOutput = "";

/** The embedded store's first open can take a minute on a busy machine. */
const START_TIMEOUT_MS = 300_000;

before(
  async () => {
    examplesPath = pathWithStandIns(join(WORK_DIR, "stand-ins"), ["jq", "openssl", "curl"]);
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), "satang-readme-"));
    // `npm start`, as the Quick start says, in its own process group so that it ends with its child.
    service = spawn("npm", ["start"], {
      cwd: REPO_ROOT,
      detached: true,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        PORT: String(port),
        DATA_DIR: dataDir,
      },
    });
    service.stdout?.on("data", (chunk) => {
      serviceOutput += chunk;
    });
    service.stderr?.on("data", (chunk) => {
      serviceOutput += chunk;
    });
    await waitFor(
      "the service to answer /healthz",
      async () => {
        if (service.exitCode !== null) throw new Error(`npm start exited:\n${serviceOutput}`);
        return fetch(`http://127.0.0.1:${port}/healthz`).then(
          (response) => response.ok,
          () => false,
        );
      },
      START_TIMEOUT_MS,
    );
  },
  { timeout: START_TIMEOUT_MS + 10_000 },
);

after(async () => {
  if (service?.pid !== undefined && service.exitCode === null) {
    const exited = new Promise((resolve) => service.once("close", resolve));
    process.kill(-service.pid, "SIGTERM");
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(WORK_DIR, { recursive: true, force: true });
});

/** The script that runs the blocks in order; each block's output follows a marker line. */
function script(blocks: Block[]): string {
  mkdirSync(WORK_DIR, { recursive: true });
  const parts = ["set -euo pipefail"];
  blocks.forEach((block, index) => {
    const code = block.code.replaceAll("http://127.0.0.1:3000", `http://127.0.0.1:${port}`);
    // A block's output may not end its last line (curl's does not): the marker starts a new one.
    parts.push(`printf '\\n::block ${index}::\\n'`);
    if (block.lang === "sh") {
      parts.push(code);
    } else {
      const file = join(WORK_DIR, `block-${index}.mjs`);
      writeFileSync(file, `${code}\n`);
      // tsx lets a plain script import the SDK, which is TypeScript source in this repository.
      parts.push(`node --import tsx ${JSON.stringify(file)}`);
    }
  });
  return parts.join("\n");
}

describe("README examples", () => {
  it("has only blocks this test knows how to run", () => {
    for (const block of readmeBlocks()) {
      if (NOT_RUN.has(block.code.trim())) continue;
      assert.ok(["sh", "js"].includes(block.lang), `README.md:${block.line}: a \`${block.lang}\` block`);
    }
  });

  it("run top to bottom on a fresh start, each payment a new one", () => {
    assert.match(serviceOutput, /demo merchant/i, "a fresh start prints the demo merchant");
    const blocks = readmeBlocks().filter((block) => !NOT_RUN.has(block.code.trim()));
    let output: string;
    try {
      output = execFileSync("bash", ["-c", script(blocks)], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        env: {
          PATH: examplesPath,
          HOME: process.env.HOME ?? "",
          PORT: String(port),
          DATA_DIR: dataDir,
        },
        timeout: 90_000,
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      assert.fail(`the README's examples failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`);
    }
    const outputs = output.split(/^::block \d+::$/m).slice(1);
    assert.equal(outputs.length, blocks.length);
    const byStart = (prefix: string) => {
      const at = blocks.findIndex((block) => block.code.startsWith(prefix));
      assert.ok(at >= 0, `a block starting with ${prefix}`);
      return (outputs[at] ?? "").trim();
    };

    const curl = JSON.parse(byStart("BODY="));
    assert.equal(curl.success, true, JSON.stringify(curl));
    assert.equal(curl.data.referenceId, "order-1001");

    const node = byStart("import { createHmac }");
    assert.match(node, /^201 /, node);
    assert.match(node, /referenceId: 'order-1002'/);

    const [created, found] = byStart("import { Satang }").split("\n");
    const [id, status, appUrl] = (created ?? "").split(" ");
    assert.equal(status, "requires_action", created);
    assert.equal(appUrl, `http://127.0.0.1:${port}/pay/${id}`);
    assert.equal(found, "order-1001 10000.00 requires_action");
    assert.notEqual(id, curl.data.id);
  });

  it("drains and exits 0 when npm start alone is sent SIGTERM, as a process manager does", async () => {
    // Not the process group: npm passes the signal to its script's shell, which must be the
    // server itself (`exec`), or the server would be left running, or killed without draining.
    const exited = new Promise<number | null | "still running">((resolve) => {
      service.once("close", (code) => resolve(code));
      setTimeout(() => resolve("still running"), 30_000).unref();
    });
    service.kill("SIGTERM");
    assert.equal(await exited, 0, serviceOutput);
    assert.match(serviceOutput, /shutting down: draining in-flight requests/);
    const stillServing = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    );
    assert.equal(stillServing, false, "nothing answers on the port once npm start has exited");
  });
});
