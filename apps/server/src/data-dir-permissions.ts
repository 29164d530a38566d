/**
 * DATA_DIR holds the embedded database (argon2 hashes, client secrets, API keys and account
 * numbers sit in its files and WAL), the sandbox's secret key and operator token: nobody but
 * the service's own user may read it. At start the directory is created 0700, and anything in
 * it readable, writable or searchable by group or others is fixed (directories to 0700, files
 * to 0600) with a warning naming each path: the service fixes rather than refuses, so an
 * upgrade from a release that created looser files starts without manual steps, and says what
 * it changed. The process umask is then 0o077, so files the service creates are private.
 *
 * PGlite's filesystem layer sets each new file's mode to 0666 itself, whatever the umask, so
 * the embedded store's directory is made private again once the store is open and when it
 * closes (`tightenDataDir`). Between those, a file PGlite creates (a new WAL segment) may be
 * 0666, but it sits in directories that are 0700: no other user can reach it.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isMainThread } from "node:worker_threads";
import { ConfigError } from "./config.ts";

const GROUP_OTHER_BITS = 0o077;

/** What the errors a directory's creation meets mean, for DATA_DIR's refusal. */
const DIR_ERRORS: Record<string, string> = {
  ENOTDIR: "a part of the path is a file",
  EEXIST: "the path is a file",
  EACCES: "permission denied",
  EPERM: "not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left",
};

/** Makes `path` and everything below it private; returns the paths whose modes it changed. */
function tighten(path: string, fixed: string[]): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & GROUP_OTHER_BITS) !== 0) {
    chmodSync(path, stat.isDirectory() ? 0o700 : stat.mode & 0o700);
    fixed.push(path);
  }
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) tighten(join(path, name), fixed);
  }
}

/** Makes everything under `dir` private again, silently; returns the paths it changed. */
export function tightenDataDir(dir: string): string[] {
  const fixed: string[] = [];
  tighten(dir, fixed);
  return fixed;
}

/**
 * Creates `dir` and any missing parent 0700, whatever the umask. Every place that may be the
 * first to create DATA_DIR goes through here (the sandbox's secret key is written before the
 * store opens), so a directory the service made itself is private from the start and the
 * too-open warning below is kept for a directory someone else made.
 */
export function createPrivateDir(dir: string): void {
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A path through a file, a read-only or forbidden place: a bad DATA_DIR, refused as one.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new ConfigError(
      `DATA_DIR "${dir}" cannot be made a directory (${code}: ${DIR_ERRORS[code] ?? "refused"})`,
    );
  }
  // mkdir applies the umask to the mode; a permissive umask must not leave the new directories
  // open, so each one this call created is set to 0700 explicitly.
  if (created === undefined) return;
  const first = resolve(created);
  for (let path = resolve(dir); path.length >= first.length; path = dirname(path)) {
    chmodSync(path, 0o700);
    if (path === first) break;
  }
}

/**
 * Creates `dir` (0700) if needed, fixes any too-open mode under it, and sets the process umask
 * to 0o077. `warn` is told about every path it fixed.
 */
export function secureDataDir(dir: string, warn: (message: string) => void): string[] {
  // A worker thread cannot set the umask (the process's main thread owns it).
  if (isMainThread) process.umask(GROUP_OTHER_BITS);
  createPrivateDir(dir);
  const fixed: string[] = [];
  tighten(dir, fixed);
  if (fixed.length > 0) {
    const shown = fixed.slice(0, 10).join(", ");
    const more = fixed.length > 10 ? ` and ${fixed.length - 10} more` : "";
    warn(
      `DATA_DIR ${dir} was readable or writable by other users: made private (directories 0700, ` +
        `files 0600): ${shown}${more}`,
    );
  }
  return fixed;
}
