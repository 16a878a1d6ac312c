import type { Deps } from '../deps.ts';
import { pruneRollups } from './rollups.ts';
import { pruneRuns, type RunWrite, writeRuns } from './runs.ts';
import { writeExpectedTimes } from './store.ts';

/** Results waiting to be written at most; beyond, the oldest are dropped (storage far behind). */
const MAX_PENDING = 200_000;
/** Results written in one writer job at most. */
const BATCH = 2000;

/**
 * The engine's results on their way to storage: queued, then written in batches so that a slow disk
 * delays writes, never runs. A full writer queue (503) keeps them and tries again shortly.
 */
export class ResultQueue {
  private readonly deps: Deps;
  private readonly running: () => boolean;
  private pending: { write: RunWrite; done: () => void }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(deps: Deps, running: () => boolean) {
    this.deps = deps;
    this.running = running;
  }

  /** Queues one write; resolves once it is committed (or dropped). */
  enqueue(write: RunWrite): Promise<void> {
    return new Promise<void>((done) => {
      if (this.pending.length >= MAX_PENDING) {
        this.deps.log.warn('check results dropped: storage is too slow');
        this.pending.shift()?.done();
      }
      this.pending.push({ write, done });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once every result queued so far is written. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, BATCH);
        try {
          await this.deps.store.writer.run((db) => {
            const writes = batch.map((b) => b.write);
            writeRuns(db, writes);
            writeExpectedTimes(
              db,
              writes.map((w) => w.record),
            );
          });
        } catch (error) {
          if ((error as { status?: number }).status === 503 && this.running()) {
            // Queue full: keep the results and try again shortly.
            this.pending.unshift(...batch);
            await new Promise((r) => setTimeout(r, 200));
            continue;
          }
          this.deps.log.error('check results not written', { error: String(error) });
        }
        for (const b of batch) b.done();
      }
    } finally {
      this.flushing = null;
    }
  }
}

/** Deletes raw runs and rollups past their retention, in chunks of checks so writes keep flowing. */
export async function pruneResults(deps: Deps, checkIds: string[]): Promise<void> {
  const now = deps.clock.now();
  const keep = deps.config.current().retention.checkResultsMs;
  try {
    for (let i = 0; i < checkIds.length; i += 500) {
      const chunk = checkIds.slice(i, i + 500);
      await deps.store.writer.run((db) => pruneRuns(db, chunk, now, keep));
    }
    await deps.store.writer.run((db) => pruneRollups(db, now));
  } catch (error) {
    deps.log.warn('pruning check runs failed', { error: String(error) });
  }
}
