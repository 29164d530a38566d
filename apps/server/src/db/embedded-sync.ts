/**
 * Durability of the embedded store. PGlite runs PostgreSQL with fsync off and its Node
 * filesystem layer never syncs: a committed write reaches the operating system's page cache,
 * which survives the process being killed but not the machine losing power.
 *
 * With EMBEDDED_SYNC=commit (the default) a transaction that wrote is not answered before its
 * commit is on disk: the write-ahead log files written since the last sync are fsynced (with
 * their directory, for a new segment). When pg_control changed (a checkpoint ran), every data
 * file written since the last sync is fsynced as well, so the redo point pg_control names never
 * points past data that is only in the page cache. The one window left: a machine crash during
 * the few milliseconds between a checkpoint rewriting pg_control and this sync (docs/operations.md).
 *
 * EMBEDDED_SYNC=off keeps PGlite's own behaviour (faster writes; a machine crash can lose what
 * the page cache held, on Linux up to about 30 s of acknowledged writes).
 */
import { closeSync, fsyncSync, openSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export type EmbeddedSyncMode = "commit" | "off";

export const EMBEDDED_SYNC_MODES: readonly EmbeddedSyncMode[] = ["commit", "off"];

/** What makes an embedded commit durable; `sync` runs after every commit that wrote. */
export interface CommitSync {
  sync(): void;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fsyncs files under `dir` (recursively) modified after `since`; returns whether any was. */
function fsyncModified(dir: string, since: number): boolean {
  let any = false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (fsyncModified(path, since)) {
        fsyncPath(path);
        any = true;
      }
    } else if (entry.isFile() && statSync(path).mtimeMs >= since) {
      fsyncPath(path);
      any = true;
    }
  }
  return any;
}

/** Syncs a PGlite data directory's log (and, after a checkpoint, its data files) to disk. */
export class DataDirSync implements CommitSync {
  /** Files modified at or after this instant (ms) are synced next time. */
  private since = 0;
  private controlMtimeMs: number;
  private readonly control: string;
  private readonly wal: string;

  constructor(private readonly dataDir: string) {
    this.control = join(dataDir, "global", "pg_control");
    this.wal = join(dataDir, "pg_wal");
    this.controlMtimeMs = this.controlMtime();
  }

  private controlMtime(): number {
    try {
      return statSync(this.control).mtimeMs;
    } catch {
      return 0;
    }
  }

  sync(): void {
    // Taken before the walk: a file written during it is synced again next time, never missed.
    // The margin covers filesystems whose timestamps are coarser than the clock.
    const started = Date.now() - 2_000;
    const control = this.controlMtime();
    if (control !== this.controlMtimeMs) {
      fsyncModified(this.dataDir, this.since);
      fsyncPath(this.dataDir);
      this.controlMtimeMs = control;
    } else if (fsyncModified(this.wal, this.since)) {
      fsyncPath(this.wal);
    }
    this.since = started;
  }
}
