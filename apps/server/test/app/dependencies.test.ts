/**
 * The README says why each runtime dependency is there, and the root package.json's
 * `allowScripts` names every package of the lockfile that has an install script (npm releases
 * that run only reviewed install scripts would otherwise skip them on a bare machine).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const readJson = (path: string) =>
  JSON.parse(readFileSync(REPO_ROOT + path, "utf8")) as Record<string, unknown>;

/** The package names in the first column of the README's "Runtime dependencies and why" table. */
function readmeDependencies(): Set<string> {
  const readme = readFileSync(`${REPO_ROOT}README.md`, "utf8");
  const start = readme.indexOf("## Runtime dependencies and why");
  assert.ok(start >= 0, "README has a 'Runtime dependencies and why' section");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const first = line.split("|")[1] ?? "";
    for (const match of first.matchAll(/`([^`]+)`/g)) names.add(match[1] as string);
  }
  return names;
}

describe("runtime dependencies", () => {
  it("every runtime dependency of the service and the SDK is in the README's table", () => {
    const named = readmeDependencies();
    const missing: string[] = [];
    for (const manifest of ["apps/server/package.json", "packages/sdk/package.json"]) {
      const deps = (readJson(manifest).dependencies ?? {}) as Record<string, string>;
      for (const name of Object.keys(deps)) if (!named.has(name)) missing.push(`${name} (${manifest})`);
    }
    assert.deepEqual(missing, [], "add a row saying why each is there");
  });

  it("allowScripts names every locked package with an install script", () => {
    const lock = readJson("package-lock.json") as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const allowed = (readJson("package.json").allowScripts ?? {}) as Record<string, boolean>;
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    assert.ok(withScripts.length > 0, "the lockfile records install scripts (argon2, esbuild)");
    const unreviewed = withScripts.filter((name) => allowed[name] !== true);
    assert.deepEqual(unreviewed, []);
  });
});
