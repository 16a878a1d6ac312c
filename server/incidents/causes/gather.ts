import type { DatabaseSync } from 'node:sqlite';
import { checkStatus } from '../../checks/store.ts';
import { changesBetween, deploysBetween } from '../../deploys/read.ts';
import { all, int, mapper, nullable, oneOf, text } from '../../store/rows.ts';
import {
  type Candidate,
  type DependencyCandidate,
  type DependencyDown,
  type ExpiryCandidate,
  type Reach,
  relationOf,
} from './candidates.ts';
import { CHANGE_TIME, RAN_ELSEWHERE } from './formula.ts';
import { hostCandidates } from './host-events.ts';

/**
 * The candidates for an incident that started at `start`: one query per kind of state change, each
 * bounded by time and by the services or hosts it can concern. Only candidates related to the incident
 * come back. What agents saw on its hosts (restarts, OOM kills, units, thresholds, silence) is one
 * query for all of it (host-events.ts).
 */
export function gatherCandidates(db: DatabaseSync, start: number, reach: Reach): Candidate[] {
  return [
    ...deployCandidates(db, start, reach),
    ...changeCandidates(db, start, reach),
    ...dependencyCandidates(db, start, reach),
    ...expiryCandidates(db, start, reach),
    ...hostCandidates(db, start, reach),
  ];
}

/** The span in which a deploy, change or dependency failure may be a cause: up to the start, included. */
const changeSpan = (start: number) => [start - CHANGE_TIME.window, start + 1] as const;

function deployCandidates(db: DatabaseSync, start: number, reach: Reach): Candidate[] {
  const deploys = deploysBetween(db, ...changeSpan(start)).filter(
    (d) => relationOf(reach, d.service, d.host) !== null,
  );
  if (deploys.length === 0) return [];
  const elsewhere = ranElsewhere(db, start, [...new Set(deploys.map((d) => d.version))]);
  return deploys.map((deploy) => ({
    kind: 'deploy',
    deploy,
    ranElsewhere: elsewhere.filter((e) => e.version === deploy.version && e.service !== deploy.service),
  }));
}

const elsewhereRow = mapper({ id: int, ts: int, service: text, version: text });

/**
 * For each other service that got one of these versions 1 hour to 7 days before the start, its latest
 * such deploy, when that service has checks and none of them went down since. (SQLite takes the other
 * columns from the row of max(ts).)
 */
function ranElsewhere(db: DatabaseSync, start: number, versions: string[]) {
  return all(
    db,
    `SELECT d.id, d.ts, d.service, d.version FROM (
        SELECT id, max(ts) AS ts, service, version FROM deploys
         WHERE version IN (SELECT value FROM json_each(?)) AND ts >= ? AND ts <= ?
         GROUP BY service, version) d
      WHERE EXISTS (SELECT 1 FROM checks k WHERE k.service = d.service)
        AND NOT EXISTS (SELECT 1 FROM check_changes c
                         WHERE c.service = d.service AND c.status = 'down' AND c.ts >= d.ts AND c.ts <= ?)
      ORDER BY d.ts, d.id`,
    elsewhereRow,
    JSON.stringify(versions),
    start - RAN_ELSEWHERE.lookback,
    start - RAN_ELSEWHERE.ranFor,
    start,
  );
}

function changeCandidates(db: DatabaseSync, start: number, reach: Reach): Candidate[] {
  return changesBetween(db, ...changeSpan(start))
    .filter((c) => relationOf(reach, c.service, c.host) !== null)
    .map((change) => ({ kind: 'change', change }));
}

const statusRow = mapper({
  checkId: text,
  name: nullable(text),
  service: text,
  ts: int,
  status: checkStatus,
  detail: text,
});

/** Status changes of the dependencies' checks in the span, grouped into one candidate per dependency that went down. */
function dependencyCandidates(db: DatabaseSync, start: number, reach: Reach): DependencyCandidate[] {
  if (reach.dependencies.size === 0) return [];
  const rows = all(
    db,
    `SELECT c.check_id, k.name, c.service, c.ts, c.status, c.detail
       FROM check_changes c LEFT JOIN checks k ON k.id = c.check_id
      WHERE c.service IN (SELECT value FROM json_each(?)) AND c.status IS NOT NULL AND c.ts >= ? AND c.ts < ?
      ORDER BY c.ts, c.id`,
    statusRow,
    JSON.stringify([...reach.dependencies.keys()]),
    ...changeSpan(start),
  );
  // The last time each check went down in the span, and whether it came back before the start.
  const lastDown = new Map<string, DependencyDown & { service: string }>();
  for (const row of rows) {
    const down = lastDown.get(row.checkId);
    if (row.status === 'down') {
      const name = row.name ?? row.checkId;
      lastDown.set(row.checkId, {
        check: row.checkId,
        name,
        service: row.service,
        at: row.ts,
        detail: row.detail,
        recoveredAt: null,
      });
    } else if (down && down.recoveredAt === null && row.status !== 'unknown') {
      down.recoveredAt = row.ts;
    }
  }
  const byService = Map.groupBy(lastDown.values(), (d) => d.service);
  return [...byService].map(([service, downs]) => ({
    kind: 'dependency',
    service,
    downs: downs.map(({ service: _, ...down }) => down),
  }));
}

const expiryRow = mapper({
  checkId: text,
  name: text,
  service: text,
  kind: oneOf(['certificate', 'domain'] as const),
  ts: int,
  expires: int,
});

/**
 * The expiry date each check of the incident's services last recorded before the start (SQLite takes
 * the other columns from the row of max(ts)). Renewals record theirs too, so a date renewed before the
 * start is not taken for an expired one, and one renewed after it still explains the incident.
 */
function expiryCandidates(db: DatabaseSync, start: number, reach: Reach): ExpiryCandidate[] {
  return all(
    db,
    `SELECT c.check_id, k.name, c.service, k.expiry_kind AS kind, max(c.ts) AS ts, c.expires
       FROM check_changes c JOIN checks k ON k.id = c.check_id
      WHERE c.service IN (SELECT value FROM json_each(?)) AND c.expires IS NOT NULL AND c.ts <= ?
        AND k.expiry_kind IS NOT NULL
      GROUP BY c.check_id`,
    expiryRow,
    JSON.stringify(reach.services),
    start,
  ).map((r) => ({
    kind: r.kind,
    check: r.checkId,
    name: r.name,
    service: r.service,
    expires: r.expires,
    recordedAt: r.ts,
  }));
}
