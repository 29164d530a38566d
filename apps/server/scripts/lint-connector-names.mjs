#!/usr/bin/env node
/**
 * `npm run lint:connectors`: counts the lines outside a connector's own folder
 * (`src/providers/<name>/`) that name a connector (docs/providers/README.md, "The rules"). The
 * core (lifecycle, jobs, routes, CLI, reports) reaches every connector through the registry and
 * the port, so a connector's name in it is a place where adding a connector means editing the
 * core. A name is `scb` or `opn`, in any case, as a word (`scb_exchanges`, `SCB_PROVIDER_NAME`,
 * `/providers/scb/` and `ScbConnector` count; `describe` or `open` do not), or `simulated` where it
 * names the connector (see NAME).
 *
 * The check fails when the count exceeds BASELINE, so it can only go down: lower BASELINE when
 * work removes names. `--list` prints every counted line.
 *
 * Exempt, each for its reason:
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const EXEMPT = [
  // The one place that builds connectors by name and lists their secrets and jobs.
  { path: "providers/registry.ts", reason: "the registry: builds each connector by its name" },
  // Settings are read by their documented variable names (SCB_API_KEY, OPN_SECRET_KEY, ...).
  { path: "config.ts", reason: "configuration: each connector's variables by name" },
  // Migrations are history: a table once called scb_confirmations keeps its name in 0030.
  { path: "db/migrations/", reason: "migration history never changes" },
  // SCB is also a destination bank (code 014) a withdraw can pay to, whichever connector pays.
  { path: "lib/bank-codes.ts", reason: "SCB the destination bank, not the connector" },
];

/** Lines outside the connector folders that name a connector: none. */
const BASELINE = 0;

// `scb` and `opn` as words in any case. `simulated` is also plain English for the sandbox's
// bank (CONTRACT 9: "the simulated provider reports nothing by itself"), so it counts only where it
// is the connector's name: quoted, in a path, or in the connector's identifiers (`SimulatedBank`,
// `SIMULATED_CONNECTOR_NAME`, `createSimulatedConnector`); the sandbox's simulate routes
// (`SimulatedRefundOutcome`) are the sandbox's, not the connector's.
const NAME = new RegExp(
  [
    /(?<![A-Za-z0-9])(?:[Ss][Cc][Bb]|[Oo][Pp][Nn])(?![a-z0-9])/.source,
    /["'`/]simulated(?=["'`/])/.source,
    /Simulated(?:Bank|Connector)|SIMULATED_CONNECTOR/.source,
  ].join("|"),
);
const SOURCE = /\.(ts|mts|js|mjs|html|css)$/;

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

/** Whether a source path (relative to src, with /) is a connector's own or exempt. */
function skipped(path) {
  if (/^providers\/[^/]+\//.test(path)) return true;
  return EXEMPT.some((rule) => (rule.path.endsWith("/") ? path.startsWith(rule.path) : path === rule.path));
}

const counted = new Map();
for (const file of files(SRC)) {
  const path = relative(SRC, file).split(sep).join("/");
  if (skipped(path)) continue;
  const lines = readFileSync(file, "utf8").split("\n");
  const hits = [];
  lines.forEach((line, index) => {
    if (NAME.test(line)) hits.push({ line: index + 1, text: line.trim() });
  });
  if (hits.length > 0) counted.set(path, hits);
}

const total = [...counted.values()].reduce((sum, hits) => sum + hits.length, 0);
if (process.argv.includes("--list")) {
  for (const [path, hits] of [...counted].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`${String(hits.length).padStart(5)}  src/${path}`);
    for (const hit of hits) console.log(`         ${hit.line}: ${hit.text.slice(0, 120)}`);
  }
}
if (total > BASELINE) {
  console.error(
    `lint:connectors: ${total} lines outside src/providers/<name>/ name a connector; at most ${BASELINE} may ` +
      "(reach connectors through providers/registry.ts and the port; --list shows them)",
  );
  process.exit(1);
}
if (total < BASELINE) {
  console.log(`lint:connectors: ${total} lines name a connector, fewer than BASELINE ${BASELINE}: lower it`);
}
