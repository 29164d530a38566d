/**
 * DATA_DIR is private to the service's user: opening the embedded store fixes a directory or
 * file open to group or others (with a warning naming it), and once a fresh store has been
 * opened, written and closed everything in it is 0700 (directories) or 0600 (files).
 */
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createPrivateDir, secureDataDir } from "../../src/data-dir-permissions.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { openConfiguredStore } from "../../src/server.ts";
import { EMBEDDED_TEMPLATE_ENV } from "../helpers/store.ts";

const base = mkdtempSync(join(tmpdir(), "satang-data-dir-"));
after(() => rmSync(base, { recursive: true, force: true }));

/** Every path under `dir` (itself included) whose mode lets group or others in. */
function openPaths(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const expected = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== expected) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

async function openAndWrite(dataDir: string): Promise<void> {
  const store = await openConfiguredStore(loadConfig({ ...EMBEDDED_TEMPLATE_ENV, DATA_DIR: dataDir }));
  try {
    await migrateToLatest(store.db);
  } finally {
    await store.close();
  }
}

it("fixes a 0777 DATA_DIR holding a 0666 file, with a warning naming it", async () => {
  const dataDir = join(base, "open");
  mkdirSync(join(dataDir, "nested"), { recursive: true });
  chmodSync(dataDir, 0o777);
  chmodSync(join(dataDir, "nested"), 0o777);
  writeFileSync(join(dataDir, "nested", "leftover"), "secret");
  chmodSync(join(dataDir, "nested", "leftover"), 0o666);
  const warnings: string[] = [];
  const listener = (warning: Error) => warnings.push(warning.message);
  process.on("warning", listener);
  try {
    await openAndWrite(dataDir);
  } finally {
    process.off("warning", listener);
  }
  assert.equal(lstatSync(dataDir).mode & 0o777, 0o700);
  assert.equal(lstatSync(join(dataDir, "nested", "leftover")).mode & 0o777, 0o600);
  assert.deepEqual(openPaths(dataDir), []);
  const warning = warnings.find((message) => message.includes(`DATA_DIR ${dataDir}`));
  assert.ok(warning, `warnings: ${JSON.stringify(warnings)}`);
  assert.ok(warning.includes(join(dataDir, "nested", "leftover")));
});

it("creates a fresh DATA_DIR whose files are all 0600 and directories 0700", async () => {
  // A permissive umask, as a container or a shell might have: the store must not rely on it.
  process.umask(0o000);
  const dataDir = join(base, "fresh");
  await openAndWrite(dataDir);
  const files = readdirSync(join(dataDir, "pglite"), { recursive: true });
  assert.ok(files.length > 10, `the embedded store wrote its files (${files.length})`);
  assert.deepEqual(openPaths(dataDir), []);
});

it("creates a missing DATA_DIR and its missing parents 0700 whatever the umask", () => {
  const previous = process.umask(0o022);
  try {
    const dataDir = join(base, "made", "by", "satang");
    createPrivateDir(dataDir);
    for (const path of [join(base, "made"), join(base, "made", "by"), dataDir]) {
      assert.equal(lstatSync(path).mode & 0o777, 0o700, path);
    }
    // Already there: left as it is (secureDataDir is what fixes and warns).
    chmodSync(dataDir, 0o755);
    createPrivateDir(dataDir);
    assert.equal(lstatSync(dataDir).mode & 0o777, 0o755);
  } finally {
    process.umask(previous);
  }
});

it("warns about a DATA_DIR someone else made too open, not about one it made itself", () => {
  const warnings: string[] = [];
  const made = join(base, "own");
  createPrivateDir(made);
  secureDataDir(made, (message) => warnings.push(message));
  assert.equal(warnings.length, 0, warnings.join("\n"));
  const theirs = join(base, "theirs");
  mkdirSync(theirs);
  chmodSync(theirs, 0o755);
  secureDataDir(theirs, (message) => warnings.push(message));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /readable or writable by other users/);
});

it("refuses a DATA_DIR that cannot be a directory (a path through a file, or a file) as a setting, naming DATA_DIR", () => {
  const file = join(base, "a-file");
  writeFileSync(file, "x");
  for (const [dir, code] of [
    [join(file, "sub"), "ENOTDIR"],
    [file, "EEXIST"],
  ] as const) {
    assert.throws(
      () => createPrivateDir(dir),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes("DATA_DIR") && error.message.includes(code),
      dir,
    );
  }
});
