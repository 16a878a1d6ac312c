import type { DatabaseSync } from 'node:sqlite';
import type { HistoryItem, HistoryPage } from '../../protocol/reads.ts';
import { all, int, mapper, nullable, real, text } from '../store/rows.ts';
import { checkStatus, runStatus } from './store.ts';

/** History items (SPEC "Check read models"): failed or degraded runs, and changes. */

const failureTitle: Record<string, string> = { down: 'down', degraded: 'degraded' };

/**
 * Newest first, before `before` (exclusive). A page never splits a timestamp: when the limit falls
 * inside a group of items with one timestamp the group moves to the next page, unless the group is the
 * whole page, in which case the page holds all of it.
 */
export function readHistory(db: DatabaseSync, checkId: string, before: number, limit: number): HistoryPage {
  const items = fetch(db, checkId, before, limit + 1, null);
  if (items.length <= limit) return { items, next: null };
  const boundary = items[limit]!.ts;
  const page = items.slice(0, limit).filter((i) => i.ts !== boundary);
  if (page.length > 0) return { items: page, next: page[page.length - 1]!.ts };
  // The newest timestamp alone holds more than `limit`: the page is that whole group, and there is a
  // next page only when something older exists.
  const group = fetch(db, checkId, boundary + 1, Number.MAX_SAFE_INTEGER, boundary);
  const older = fetch(db, checkId, boundary, 1, null).length > 0;
  return { items: group, next: older ? boundary : null };
}

const changeRow = mapper({ ts: int, status: nullable(checkStatus), title: text, detail: text });
const failureRow = mapper({ ts: int, status: runStatus, detail: text, latencyMs: nullable(real) });

/** Merges changes and failures with ts < before (or ts = onlyTs), changes first within a timestamp. */
function fetch(
  db: DatabaseSync,
  checkId: string,
  before: number,
  limit: number,
  onlyTs: number | null,
): HistoryItem[] {
  const low = onlyTs ?? Number.MIN_SAFE_INTEGER;
  const changes = all(
    db,
    `SELECT ts, status, title, detail FROM check_changes WHERE check_id = ? AND ts < ? AND ts >= ?
       ORDER BY ts DESC, id DESC LIMIT ?`,
    changeRow,
    checkId,
    before,
    low,
    limit,
  );
  const failures = all(
    db,
    `SELECT ts, status, detail, latency_ms FROM check_runs WHERE check_id = ? AND status != 'up' AND ts < ?
       AND ts >= ? ORDER BY ts DESC LIMIT ?`,
    failureRow,
    checkId,
    before,
    low,
    limit,
  );
  const out: HistoryItem[] = [];
  let c = 0;
  let f = 0;
  while (out.length < limit && (c < changes.length || f < failures.length)) {
    const change = changes[c];
    const failure = failures[f];
    if (change && (!failure || change.ts >= failure.ts)) {
      out.push({
        ts: change.ts,
        kind: 'change',
        status: change.status,
        title: change.title,
        detail: change.detail,
        latencyMs: null,
      });
      c++;
    } else if (failure) {
      out.push({
        ts: failure.ts,
        kind: 'failure',
        status: failure.status,
        title: failureTitle[failure.status] ?? failure.status,
        detail: failure.detail,
        latencyMs: failure.latencyMs,
      });
      f++;
    }
  }
  return out;
}
