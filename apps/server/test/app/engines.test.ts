/**
 * The Node version we promise is one every installed package supports: the root package.json's
 * `engines.node` (the promise), the README's "Node.js X or newer" (the same promise in words),
 * and every package under node_modules whose own `engines.node` must accept the oldest Node the
 * promise allows. A dependency upgraded past it (a release that wants Node 22, say) fails here
 * rather than as an EBADENGINE warning at `npm install` that nobody reads.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { NODE_MINIMUM, nodeTooOld } from "../../src/node-version.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

interface InstalledPackage {
  /** Where it is installed, relative to the repository root. */
  path: string;
  name: string;
  version: string;
  /** Its `engines.node`, when it states one. */
  node: string | undefined;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

function enginesNode(manifest: Record<string, unknown>): string | undefined {
  const engines = manifest.engines;
  if (typeof engines !== "object" || engines === null) return undefined;
  const node = (engines as Record<string, unknown>).node;
  return typeof node === "string" ? node : undefined;
}

/**
 * Every package in a node_modules folder, scoped ones included, and the packages nested in
 * their own node_modules. Symbolic links (the workspaces) are not followed: their folders are
 * walked from the root list.
 */
function installedIn(modules: string, out: InstalledPackage[] = []): InstalledPackage[] {
  if (!existsSync(modules)) return out;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || !entry.isDirectory()) continue;
    const dir = join(modules, entry.name);
    if (entry.name.startsWith("@")) {
      installedIn(dir, out);
      continue;
    }
    const manifestFile = join(dir, "package.json");
    if (!existsSync(manifestFile)) continue;
    const manifest = readJson(manifestFile);
    out.push({
      path: dir.slice(REPO_ROOT.length),
      name: String(manifest.name),
      version: String(manifest.version),
      node: enginesNode(manifest),
    });
    installedIn(join(dir, "node_modules"), out);
  }
  return out;
}

/** The packages whose `engines.node` does not accept `minimum`, as "name@version wants range". */
function unsupported(packages: InstalledPackage[], minimum: string): string[] {
  return packages
    .filter((pkg) => pkg.node !== undefined && !semver.satisfies(minimum, pkg.node))
    .map((pkg) => `${pkg.name}@${pkg.version} wants node ${pkg.node} (${pkg.path})`);
}

const rootManifest = readJson(join(REPO_ROOT, "package.json"));
const promise = enginesNode(rootManifest);

/** The oldest Node the root package.json promises to run on. */
function minimumNode(): string {
  assert.ok(promise, "the root package.json states engines.node");
  const minimum = semver.minVersion(promise);
  assert.ok(minimum, `engines.node ${promise} is a valid range`);
  return minimum.version;
}

describe("Node version", () => {
  it("promises an open-ended minimum, and this Node keeps the promise", () => {
    assert.match(promise ?? "", /^>=\d+\.\d+(\.\d+)?$/, "engines.node is '>=X.Y': 'or newer' in the README");
    assert.ok(
      semver.satisfies(process.versions.node, promise ?? ""),
      `Node ${process.versions.node} (the one running the tests) is not in ${promise}`,
    );
  });

  it("is what the entry point checks: an older Node stops with a sentence naming both versions", () => {
    const promise = semver.minVersion(
      String((readJson(join(REPO_ROOT, "package.json")).engines as { node: string }).node),
    );
    assert.equal(NODE_MINIMUM, promise?.version);
    assert.equal(nodeTooOld(process.versions.node), undefined);
    for (const newer of [NODE_MINIMUM, "20.19.1", "20.20.0", "22.0.0", "24.3.1"]) {
      assert.equal(nodeTooOld(newer), undefined, newer);
    }
    for (const older of ["20.18.9", "20.12.2", "18.20.4", "20.0.0"]) {
      assert.match(
        nodeTooOld(older) ?? "",
        new RegExp(
          `needs Node\\.js ${NODE_MINIMUM.replace(/\./g, "\\.")} or newer; this is Node\\.js ${older.replace(/\./g, "\\.")}`,
        ),
      );
    }
  });

  it("is the README's 'Node.js X or newer'", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const stated = /Node\.js (\d+(?:\.\d+){0,2}) or newer/.exec(readme);
    assert.ok(stated, "the README states 'Node.js X or newer'");
    assert.equal(semver.coerce(stated[1])?.version, minimumNode());
  });

  it("is supported by every installed package", () => {
    const packages = [
      ...installedIn(join(REPO_ROOT, "node_modules")),
      ...installedIn(join(REPO_ROOT, "apps/server/node_modules")),
      ...installedIn(join(REPO_ROOT, "packages/sdk/node_modules")),
    ];
    // The tree is really there: the framework, the SQL builder and the linters at least.
    const names = new Set(packages.map((pkg) => pkg.name));
    for (const name of ["fastify", "kysely", "light-my-request", "@fastify/static", "dependency-cruiser"]) {
      assert.ok(names.has(name), `${name} is installed`);
    }
    assert.deepEqual(unsupported(packages, minimumNode()), []);
  });

  it("flags a package that wants a newer Node than promised, and only that one", () => {
    const packages: InstalledPackage[] = [
      { path: "node_modules/a", name: "a", version: "1.0.0", node: ">=22" },
      { path: "node_modules/b", name: "b", version: "1.0.0", node: "^20.12 || >=22" },
      { path: "node_modules/c", name: "c", version: "1.0.0", node: undefined },
      { path: "node_modules/d", name: "d", version: "1.0.0", node: "^20.13" },
      { path: "node_modules/e", name: "e", version: "1.0.0", node: ">=20.12.0" },
    ];
    assert.deepEqual(unsupported(packages, "20.12.0"), [
      "a@1.0.0 wants node >=22 (node_modules/a)",
      "d@1.0.0 wants node ^20.13 (node_modules/d)",
    ]);
    // The boundary: 20.11.1 is one patch short of ^20.12.
    assert.deepEqual(
      unsupported(packages, "20.11.1").map((line) => line.split("@")[0]),
      ["a", "b", "d", "e"],
    );
  });
});

describe("the start scripts' node flags", () => {
  /** The flags each start script gives node before the bundle (package.json "start"). */
  const startFlags = (manifestFile: string): string[] => {
    const scripts = readJson(manifestFile).scripts as Record<string, string>;
    const run = scripts.start!.split("&&").at(-1)!.trim().split(/\s+/);
    return run.filter((word) => word.startsWith("--"));
  };

  it("are the same in the root's and the server's package.json, and this node accepts them", () => {
    const root = startFlags(join(REPO_ROOT, "package.json"));
    const server = startFlags(join(REPO_ROOT, "apps/server/package.json"));
    assert.deepEqual(server, root);
    assert.ok(root.length > 0, "the start script gives node its flags (docs/DEPLOYMENT.md)");
    // A flag this node does not know stops it before the service starts (`npm start` would fail).
    const ran = spawnSync(process.execPath, [...root, "-e", "process.exit(0)"], { encoding: "utf8" });
    assert.equal(ran.status, 0, ran.stderr);
  });
});
