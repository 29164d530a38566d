#!/usr/bin/env node
// Compiles the `satang` command into dist/ (one ES module per entry, the dependencies left as
// imports). `npm start` builds it and runs the service from it: compiled once, the service
// spends about a sixth less CPU per request than through the TypeScript loader, which names
// every function it creates at run time (docs/PERFORMANCE.md), and a process loads in about a
// third of the CPU, which is most of the cost of the test suite's many short-lived server and
// CLI processes (scripts/test.mjs builds it first). The pages' assets stay in src/
// (lib/source-root.ts). `npm run build -w @satang/server` runs it by hand.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// The workspace's SDK is TypeScript and goes into the bundle; every other package stays an
// import, resolved from node_modules as it is for the TypeScript entry.
const external = Object.keys(manifest.dependencies).filter((name) => name !== "@satang/sdk");

// Earlier builds' chunks (named by their content) are left in place: a server or worker started
// from an earlier build may still import one lazily while another run builds again.
// `service` builds the command alone (what `npm start` runs); otherwise the test suite's server
// process (test/helpers/app-process.ts) is built beside it.
export async function buildSatang(outdir = join(root, "dist"), { service = false } = {}) {
  const entryPoints = service
    ? { satang: "src/main.ts" }
    : { satang: "src/main.ts", "app-process": "test/helpers/app-process.ts" };
  const { outputFiles } = await build({
    absWorkingDir: root,
    write: false,
    entryPoints,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: external.flatMap((name) => [name, `${name}/*`]),
    sourcemap: "linked",
    logLevel: "warning",
  });
  for (const file of outputFiles) replaceFile(file.path, file.contents);
  return join(outdir, "satang.mjs");
}

/**
 * Puts one output file in place atomically (a new file renamed over the old one), and leaves a
 * file with the same contents untouched: a server or CLI process that starts while another
 * build runs (a second `npm start`, the test suite's processes) reads the old file or the new
 * one, never a half-written one. A truncated entry would run as an empty module and exit 0.
 */
function replaceFile(path, contents) {
  try {
    if (Buffer.compare(readFileSync(path), contents) === 0) return;
  } catch {
    // not built yet
  }
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.${process.pid}.tmp`;
  writeFileSync(next, contents);
  renameSync(next, path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bundle = await buildSatang(undefined, { service: process.argv.includes("--service") });
  // `npm start` builds with --service --quiet before it starts the bundle.
  if (!process.argv.includes("--quiet")) console.log(bundle);
}
