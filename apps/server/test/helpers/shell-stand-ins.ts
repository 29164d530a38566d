/**
 * Stand-ins for the command-line tools that the README's examples and the first start's printed
 * example use (`jq -r .field`, `openssl dgst -sha256 -hmac`, `curl` with `-s`, `-S`, `-X`, `-H`
 * and `-d`). `npm test` must pass on a machine with nothing but Node.js, so where a tool is
 * missing the tests run the examples with a small Node.js program that does exactly what the
 * examples use, put first on PATH. Where the tool is installed it is used as it is. Any other use
 * of a stand-in fails loudly (exit 2), so an example that starts using more of a tool is caught.
 *
 * SATANG_TEST_STAND_INS=1 puts every stand-in on PATH even where the tool is installed (how the
 * examples run on a bare machine can be tried on any); test/app/shell-stand-ins.test.ts checks
 * each stand-in against what the tool itself answers.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type StandInTool = "jq" | "openssl" | "curl";

/** How each tool is asked whether it is there. */
const PROBES: Record<StandInTool, string[]> = {
  jq: ["--version"],
  openssl: ["version"],
  curl: ["--version"],
};

const refuse = (tool: string) => [
  "const refuse = () => {",
  `  console.error("${tool} stand-in (test/helpers/shell-stand-ins.ts) does not support: ${tool} " + args.join(" "));`,
  "  process.exit(2);",
  "};",
];

const PROGRAMS: Record<StandInTool, string[]> = {
  // `jq -r .a.b`: that field of the JSON on standard input, strings unquoted.
  jq: [
    "const args = process.argv.slice(2);",
    ...refuse("jq"),
    'if (args[0] === "--version") { console.log("jq-stand-in"); process.exit(0); }',
    'if (args.length !== 2 || args[0] !== "-r" || !/^(\\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(args[1])) refuse();',
    'let value = JSON.parse(require("node:fs").readFileSync(0, "utf8"));',
    'for (const key of args[1].split(".").slice(1)) value = value == null ? null : value[key];',
    'console.log(typeof value === "string" ? value : JSON.stringify(value ?? null));',
  ],
  // `openssl dgst -sha256 -hmac KEY`: the HMAC of standard input, printed as OpenSSL 3 prints it.
  openssl: [
    "const args = process.argv.slice(2);",
    ...refuse("openssl"),
    'if (args.length === 1 && args[0] === "version") { console.log("openssl-stand-in"); process.exit(0); }',
    'if (args.length !== 4 || args[0] !== "dgst" || args[1] !== "-sha256" || args[2] !== "-hmac") refuse();',
    'const input = require("node:fs").readFileSync(0);',
    'const hex = require("node:crypto").createHmac("sha256", args[3]).update(input).digest("hex");',
    'console.log("SHA2-256(stdin)= " + hex);',
  ],
  // curl with -s, -S (or -sS), -X METHOD, -H "Name: value", -d DATA and one http:// URL: the
  // answer's body on standard output, exit 0 whatever its status (as curl without -f), 7 when
  // the connection fails.
  curl: [
    "const args = process.argv.slice(2);",
    ...refuse("curl"),
    'if (args.length === 1 && args[0] === "--version") { console.log("curl-stand-in"); process.exit(0); }',
    "let method; let data; let url; let showErrors = false; const headers = [];",
    "for (let i = 0; i < args.length; i += 1) {",
    "  const arg = args[i];",
    '  if (arg === "-s") continue;',
    '  else if (arg === "-S" || arg === "-sS" || arg === "-Ss") showErrors = true;',
    '  else if (arg === "-X" && i + 1 < args.length) method = args[++i];',
    '  else if (arg === "-H" && i + 1 < args.length) headers.push(args[++i]);',
    '  else if ((arg === "-d" || arg === "--data") && i + 1 < args.length) data = args[++i];',
    '  else if (!arg.startsWith("-") && url === undefined) url = arg;',
    "  else refuse();",
    "}",
    'if (url === undefined || !url.startsWith("http://")) refuse();',
    "const target = new URL(url);",
    "const sent = {};",
    "for (const header of headers) {",
    '  const colon = header.indexOf(":");',
    "  if (colon < 1) refuse();",
    "  sent[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();",
    "}",
    'const body = data === undefined ? undefined : Buffer.from(data, "utf8");',
    "if (body !== undefined) {",
    '  if (!Object.keys(sent).some((name) => name.toLowerCase() === "content-type"))',
    '    sent["Content-Type"] = "application/x-www-form-urlencoded";',
    '  sent["Content-Length"] = String(body.length);',
    "}",
    'const request = require("node:http").request(',
    '  { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: method ?? (body === undefined ? "GET" : "POST"), headers: sent },',
    "  (response) => response.pipe(process.stdout),",
    ");",
    'request.on("error", (error) => {',
    '  if (showErrors) console.error("curl: (7) " + error.message);',
    "  process.exitCode = 7;",
    "});",
    "request.end(body);",
  ],
};

/** Whether the machine has `tool` itself on PATH. */
export function installed(tool: StandInTool): boolean {
  try {
    execFileSync(tool, PROBES[tool], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Writes the stand-in for `tool` into `dir` (a Node.js program and its shell wrapper). */
export function writeStandIn(dir: string, tool: StandInTool): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${tool}.cjs`), `${PROGRAMS[tool].join("\n")}\n`);
  writeFileSync(join(dir, tool), `#!/bin/sh\nexec node "$(dirname "$0")/${tool}.cjs" "$@"\n`, {
    mode: 0o755,
  });
}

/**
 * PATH for running the examples: the machine's, with a stand-in first for each of `tools` that
 * the machine lacks (or for all of them with SATANG_TEST_STAND_INS=1), written into `dir`.
 */
export function pathWithStandIns(dir: string, tools: readonly StandInTool[]): string {
  const machinePath = process.env.PATH ?? "";
  const forced = process.env.SATANG_TEST_STAND_INS === "1";
  const missing = tools.filter((tool) => forced || !installed(tool));
  if (missing.length === 0) return machinePath;
  for (const tool of missing) writeStandIn(dir, tool);
  return `${dir}:${machinePath}`;
}
