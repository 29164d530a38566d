/**
 * The stand-ins that run the README's examples and the first start's printed example on a
 * machine without jq, openssl or curl (test/helpers/shell-stand-ins.ts): each does what the
 * examples use of its tool, answers as the tool does where the machine has it, and refuses any
 * other use.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { installed, type StandInTool, writeStandIn } from "../helpers/shell-stand-ins.ts";

const TOOLS: StandInTool[] = ["jq", "openssl", "curl"];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` in bash with `path` as PATH. */
function bash(script: string, path: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", script],
      { encoding: "utf8", env: { ...process.env, PATH: path } },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: unknown }).code as number) : 0;
        resolve({ code: typeof code === "number" ? code : 1, stdout, stderr });
      },
    );
  });
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe("shell stand-ins for a machine with nothing but Node.js", () => {
  let dir: string;
  let standIns: string;
  let server: Server;
  let base: string;
  const seen: Seen[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "satang-stand-ins-"));
    for (const tool of TOOLS) writeStandIn(dir, tool);
    standIns = `${dir}:${process.env.PATH ?? ""}`;
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
        const refused = request.url === "/refused";
        response.writeHead(refused ? 401 : 201, { "content-type": "application/json" });
        response.end(JSON.stringify({ success: !refused, data: { echoed: body } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("jq -r .field prints a field, strings unquoted, and refuses more of jq", async () => {
    const json = `'{"id":"pay_1","nested":{"apiKey":"sk_test_x"},"count":3}'`;
    for (const [filter, expected] of [
      [".id", "pay_1\n"],
      [".nested.apiKey", "sk_test_x\n"],
      [".count", "3\n"],
      [".missing", "null\n"],
    ]) {
      const run = await bash(`echo ${json} | jq -r ${filter}`, standIns);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, expected);
      if (installed("jq")) {
        assert.equal((await bash(`echo ${json} | jq -r ${filter}`, process.env.PATH ?? "")).stdout, expected);
      }
    }
    const refused = await bash(`echo ${json} | jq .id`, standIns);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /jq stand-in .* does not support: jq \.id/);
  });

  it("openssl dgst -sha256 -hmac signs as the examples need, and refuses more of openssl", async () => {
    const secret = "sk_secret_'quoted' value";
    const message = '1700000000000.{"amount":"10000.00"}';
    const expected = createHmac("sha256", secret).update(message).digest("hex");
    // Both ways the examples read the hex: the README's sed, the printed example's awk.
    const script = (last: string) => `printf '%s' "$MSG" | openssl dgst -sha256 -hmac "$SECRET" | ${last}`;
    for (const last of ["sed 's/^.* //'", "awk '{print $NF}'"]) {
      const env = `MSG=${JSON.stringify(message).replace(/\$/g, "\\$")} SECRET="${secret.replace(/"/g, '\\"')}"; export MSG SECRET; `;
      const run = await bash(env + script(last), standIns);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), expected);
      if (installed("openssl")) {
        assert.equal((await bash(env + script(last), process.env.PATH ?? "")).stdout.trim(), expected);
      }
    }
    const refused = await bash("printf x | openssl dgst -md5", standIns);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /openssl stand-in .* does not support/);
  });

  it("curl sends the method, headers and body as given and prints the answer, whatever its status", async () => {
    const body = '{"amount":"10000.00","referenceId":"order-1001"}';
    const commands = (path: string) => [
      `curl -s ${base}${path} -H "Content-Type: application/json" -H "X-API-Key: key_1" -d '${body}'`,
      `curl -sS -X POST '${base}${path}' \\\n  -H 'Content-Type: application/json' \\\n  -H "X-Timestamp: 17" -d '${body}'`,
    ];
    const tools = installed("curl") ? [standIns, process.env.PATH ?? ""] : [standIns];
    const answers: string[] = [];
    for (const path of tools) {
      for (const [i, command] of [...commands("/api/v1/payments"), ...commands("/refused")].entries()) {
        seen.length = 0;
        const run = await bash(command, path);
        assert.equal(run.code, 0, `${command}: ${run.stderr}`);
        answers.push(run.stdout);
        const refused = i >= 2;
        assert.deepEqual(JSON.parse(run.stdout), { success: !refused, data: { echoed: body } });
        assert.equal(seen.length, 1);
        const request = seen[0]!;
        assert.equal(request.method, "POST");
        assert.equal(request.url, refused ? "/refused" : "/api/v1/payments");
        assert.equal(request.body, body);
        assert.equal(request.headers["content-type"], "application/json");
        assert.equal(request.headers["content-length"], String(Buffer.byteLength(body)));
        if (i % 2 === 0) assert.equal(request.headers["x-api-key"], "key_1");
        else assert.equal(request.headers["x-timestamp"], "17");
      }
    }
    // The stand-in prints what curl prints.
    if (tools.length === 2) assert.deepEqual(answers.slice(0, 4), answers.slice(4));
  });

  it("curl fails as curl does when nothing listens, and refuses options it does not know", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await bash(`curl -sS http://127.0.0.1:${port}/`, standIns);
    assert.equal(run.code, 7);
    assert.match(run.stderr, /^curl: \(7\)/);
    const refused = await bash(`curl -f ${base}/`, standIns);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /curl stand-in .* does not support: curl -f/);
  });
});
