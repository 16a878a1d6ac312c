import type { DatabaseSync } from 'node:sqlite';
import { DAY, MINUTE } from '../../protocol/durations.ts';
import type { Gap, UptimeSpan, UptimeSpans } from '../../protocol/reads.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { all, int, mapper } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { windowStart } from './rollups.ts';

/**
 * When mon itself was running (table `mon_running`): a row per start whose `alive_at` moves on every
 * minute and at a clean stop. From one row's alive_at to the next start, mon was not running: no check
 * ran, so uptime and the run bars show that time as no data, never as up. After a crash the last
 * minute before it counts as not running.
 */
export const ALIVE_EVERY_MS = MINUTE;

/** Shorter stops (a restart) are not reported. */
export const MIN_GAP_MS = MINUTE;

export type RunningRecord = { start(): Promise<void>; stop(): Promise<void> };

export function runningRecord(deps: Pick<Deps, 'store' | 'clock' | 'log'>): RunningRecord {
  const { store, clock, log } = deps;
  let id: number | null = null;
  let timer: TimerHandle | null = null;

  const touch = async () => {
    if (id === null) return;
    const row = id;
    const now = clock.now();
    try {
      await store.writer.run((db) =>
        statement(db, 'UPDATE mon_running SET alive_at = ? WHERE id = ?').run(now, row),
      );
    } catch (error) {
      // The next minute tries again; meanwhile that time may read as no data.
      log.warn('could not record that mon is running', { error: String(error) });
    }
  };
  const every = () => {
    timer = clock.setTimeout(() => void touch().finally(() => timer && every()), ALIVE_EVERY_MS);
  };

  return {
    async start() {
      const now = clock.now();
      id = await store.writer.run((db) =>
        Number(
          statement(db, 'INSERT INTO mon_running (started_at, alive_at) VALUES (?, ?)').run(now, now)
            .lastInsertRowid,
        ),
      );
      every();
    },
    async stop() {
      if (timer) clock.clearTimeout(timer);
      timer = null;
      await touch();
      id = null;
    },
  };
}

const gapRow = mapper({ from: int, to: int });

/** The spans of at least MIN_GAP_MS when mon was not running that overlap [from, to], oldest first. */
export function gapsBetween(db: DatabaseSync, from: number, to: number): Gap[] {
  // One row per start: a full scan stays small.
  return all(
    db,
    `SELECT alive_at AS "from", next_start AS "to" FROM (
       SELECT alive_at, lead(started_at) OVER (ORDER BY id) AS next_start FROM mon_running)
     WHERE next_start - alive_at >= ? AND next_start > ? AND alive_at < ? ORDER BY alive_at`,
    gapRow,
    MIN_GAP_MS,
    from,
    to,
  );
}

/** How long the gaps (disjoint spans) cover of [from, to]. */
export function noDataMs(gaps: readonly Gap[], from: number, to: number): number {
  if (to <= from) return 0;
  let sum = 0;
  for (const g of gaps) sum += Math.max(0, Math.min(g.to, to) - Math.max(g.from, from));
  return sum;
}

/**
 * What each uptime window measured: its start (see windowParts), or `bornAt` (when the check, or the
 * oldest check of a service, was made) when later; how long of that mon was not running; and how long
 * of the rest the service was in maintenance (`held`: its maintenance times, merged).
 */
export function uptimeSpans(
  db: DatabaseSync,
  bornAt: number,
  now: number,
  held: readonly Gap[] = [],
): UptimeSpans {
  const gaps = gapsBetween(db, Math.max(bornAt, now - 366 * DAY), now);
  const span = (windowMs: number): UptimeSpan => {
    const start = windowStart(now - windowMs, now);
    const since = bornAt > start ? bornAt : null;
    const from = since ?? start;
    // Maintenance while mon was not running is no data already.
    let maintenanceMs = noDataMs(held, from, now);
    for (const h of held) maintenanceMs -= noDataMs(gaps, Math.max(h.from, from), Math.min(h.to, now));
    return { since, noDataMs: noDataMs(gaps, from, now), maintenanceMs };
  };
  return { day: span(DAY), month: span(30 * DAY), year: span(365 * DAY) };
}
