import type { DatabaseSync } from 'node:sqlite';
import { AGENT_SILENT_AFTER_MS, SAMPLE_EVERY_MS } from '../../protocol/agent.ts';
import { spanText } from '../../protocol/durations.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import type { CheckResult } from '../checks/record.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { MAX_AHEAD_MS } from './clock-ahead.ts';
import { notConnectedDetail, silentDetail } from './silence.ts';

/** Intervals without a run of a check before its connected agent counts as not running it. */
export const STALE_RUNS = 3;

/** Sweeps at most this often: runs arrive all the time, and each moves a deadline a little later. */
const SWEEP_GAP_MS = 5_000;

/**
 * How long after its last run (or since it was assigned, or its agent connected) a check run by a
 * connected agent turns unknown: 3 of its intervals (the agent spreads its first run over one, a run
 * may be missed), its timeout (the run itself) and one sampling interval (runs go to the server with
 * the next batch), and never sooner than a silent agent's checks do (60 s). A 10 s check: 60 s; a
 * minute's check: 3 min 25 s.
 */
export function staleAfterMs(def: { everyMs: number; timeoutMs: number }): number {
  return Math.max(AGENT_SILENT_AFTER_MS, STALE_RUNS * def.everyMs + def.timeoutMs + SAMPLE_EVERY_MS);
}

const aheadRow = mapper({ clockAheadMs: nullable(int) });

/**
 * How far ahead of the server's clock the frames of `host`'s last request were dated, when past
 * MAX_AHEAD_MS: its runs are then skipped (clock-ahead.ts) and never arrive; null otherwise.
 */
function skippedAheadMs(db: DatabaseSync, host: string): number | null {
  const ahead = one(db, 'SELECT clock_ahead_ms FROM hosts WHERE name = ?', aheadRow, host)?.clockAheadMs;
  return ahead != null && ahead > MAX_AHEAD_MS ? ahead : null;
}

export type StaleWatch = {
  start(): void;
  stop(): void;
  /** A frame of `host` arrived at `at` and is committed, with runs of the checks `ran`. */
  seen(host: string, at: number, ran: readonly string[]): void;
};

/**
 * Checks a connected agent stopped running (SPEC Check behavior 6 covers a silent agent; this, one
 * that keeps sending samples): an agent too old to read a check, a runner that hangs. A check whose
 * last run arrived longer ago than `staleAfterMs` turns unknown (`the agent on web-1 has not run this
 * check for 2 min`), as a silent agent's checks do, through the engine and its domain events; its next
 * run makes it known again. Counted from the run's arrival on the server's clock, not its date, so a
 * host whose clock is wrong is judged as any other; and from the later of that, the check's last change
 * (a check newly assigned has its grace), the agent's connection (after a silence) and the server's
 * start (arrivals are kept in memory). When the host's runs arrive but are skipped for being dated too
 * far ahead (an older agent on a host whose clock is ahead, clock-ahead.ts), the detail says that, not
 * that the agent does not run the check. A check already unknown for another reason (its agent is too
 * old for it, or may not read its variables) keeps that reason.
 */
export function createStaleWatch(options: {
  deps: Deps;
  engine: CheckEngine;
  checksOf: (host: string) => string[];
  /** Connected hosts, each since when (silence.ts). */
  connected: () => ReadonlyMap<string, number>;
}): StaleWatch {
  const { deps, engine, checksOf, connected } = options;
  const { clock } = deps;
  /** When a run of each check last arrived (server's clock). */
  const arrived = new Map<string, number>();
  let startedAt = 0;
  let running = false;
  let timer: TimerHandle | null = null;
  let armedAt = Number.POSITIVE_INFINITY;
  let writing = false;

  /**
   * When the check turns stale and what it then says; null when it cannot (already unknown for a
   * reason, not an agent's). With `db`, the detail names a host clock whose runs are skipped.
   */
  function judge(entry: Entry, host: string, since: number, now: number, db?: DatabaseSync) {
    const { rec, def } = entry;
    if (def.kind === 'heartbeat' || def.kind === 'domain') return null;
    const { status } = rec.state;
    const detail = rec.lastDetail;
    // Unknown because its agent was silent or not yet connected: that no longer holds, this does.
    if (
      status === 'unknown' &&
      detail !== null &&
      detail !== silentDetail(host) &&
      detail !== notConnectedDetail(host)
    )
      return null;
    const last =
      arrived.get(rec.id) ??
      (rec.lastRunAt !== null && rec.lastRunAt >= rec.updatedAt ? rec.lastRunAt : null);
    const counted = Math.max(
      arrived.get(rec.id) ?? Number.NEGATIVE_INFINITY,
      rec.updatedAt,
      since,
      startedAt,
    );
    const ahead = db ? skippedAheadMs(db, host) : null;
    return {
      at: counted + staleAfterMs(def),
      detail:
        ahead !== null
          ? `runs from ${host} are dated ${spanText(ahead)} ahead of mon's clock and skipped: fix the host's clock`
          : last !== null
            ? `the agent on ${host} has not run this check for ${spanText(now - last)}`
            : `the agent on ${host} has not run this check since it was assigned ${spanText(now - rec.updatedAt)} ago`,
    };
  }

  /** The checks due now, and the next deadline of the others; their details read `db` when given. */
  function scan(now: number, db?: DatabaseSync): { due: CheckResult[]; next: number } {
    const due: CheckResult[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [host, since] of connected()) {
      for (const id of checksOf(host)) {
        const entry = engine.get(id);
        const stale = entry && judge(entry, host, since, now, db);
        if (!stale) continue;
        if (stale.at <= now) due.push({ type: 'unknown', checkId: id, ts: now, detail: stale.detail });
        else next = Math.min(next, stale.at);
      }
    }
    return { due, next };
  }

  function arm(at: number): void {
    if (!running || writing || at >= armedAt) return;
    if (timer) clock.clearTimeout(timer);
    armedAt = at;
    timer = clock.setTimeout(sweep, Math.max(SWEEP_GAP_MS, at - clock.now()));
  }

  function sweep(): void {
    timer = null;
    armedAt = Number.POSITIVE_INFINITY;
    const { due, next } = scan(clock.now());
    if (due.length === 0) {
      arm(next);
      return;
    }
    writing = true;
    deps.store.writer
      .run((db, tx) => {
        // Judged again in the job: a run or a silence may have been committed since the scan.
        const again = scan(clock.now(), db).due;
        if (again.length > 0) engine.recordIn(tx, again);
      })
      .then(
        () => {
          writing = false;
          arm(scan(clock.now()).next);
        },
        (error: unknown) => {
          writing = false;
          deps.log.warn('stale checks not stored; trying again', { error: String(error) });
          arm(clock.now());
        },
      );
  }

  // A check assigned to a host (created, moved) starts its grace; one gone or moved away forgets its runs.
  const unsubscribe = engine.onCheckChange((before, after) => {
    if (before && (!after || after.def.from !== before.def.from)) arrived.delete(before.rec.id);
    if (after?.def.from) arm(clock.now() + staleAfterMs(after.def));
  });

  return {
    start() {
      startedAt = clock.now();
      running = true;
      arm(scan(startedAt).next);
    },
    stop() {
      running = false;
      unsubscribe();
      if (timer) clock.clearTimeout(timer);
      timer = null;
      armedAt = Number.POSITIVE_INFINITY;
    },
    seen(host, at, ran) {
      for (const id of ran) arrived.set(id, at);
      // A host that connects starts the grace of its checks.
      if (connected().get(host) === at) arm(at + AGENT_SILENT_AFTER_MS);
    },
  };
}
