/**
 * Records finished webhook attempts in batches: the attempts that finish while one commit is
 * under way are written together by the next one (events/store.ts `recordAttempts`), so a busy
 * worker spends one transaction on many deliveries instead of one each, and an idle one still
 * records an attempt at once. A send's slot is released only when its attempt is recorded.
 */
import type { Db } from "../db/handles.ts";
import { type AttemptRecord, recordAttempts } from "./store.ts";

/** Most attempts written in one transaction. */
const RECORD_BATCH_MAX = 200;

interface Waiting {
  record: AttemptRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class AttemptRecorder {
  private readonly queue: Waiting[] = [];
  private flushing = false;

  constructor(private readonly db: Db) {}

  /** Resolves once the attempt is committed; rejects when its batch could not be. */
  record(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, RECORD_BATCH_MAX);
        try {
          await recordAttempts(
            this.db,
            batch.map((waiting) => waiting.record),
          );
          for (const waiting of batch) waiting.resolve();
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
