import type { DatabaseSync } from 'node:sqlite';
import { MINUTE } from '../../protocol/durations.ts';
import type { IncidentHost } from '../../protocol/hosts.ts';
import { chooseStep } from '../checks/rollups.ts';
import { all, int, mapper, oneOf, text } from '../store/rows.ts';
import { GONE_ITEM_KEEP_MS } from './housekeeping.ts';
import { readHostSeries, readItemSeries } from './rollups.ts';

/**
 * What an incident shows of its hosts (docs/incidents.md): CPU and memory from 30 minutes before its
 * start to 30 minutes after (or to its resolution, or now, when sooner), the five largest containers
 * and units by memory over that span, and the agent's log lines around the start; empty for a host
 * whose agent sent nothing then. A bounded number of queries per host, for at most five hosts.
 */

/** Hosts shown at most, in the incident's order (its alerts' hosts, then its services'). */
export const MAX_INCIDENT_HOSTS = 5;
/** The charts span this long before and after the start. */
export const AROUND_START_MS = 30 * MINUTE;
/** Containers and units shown at most, each. */
export const LARGEST_ITEMS = 5;
/** Log lines from this long before the start to this long after, at most MAX_LOG_LINES (those nearest the start). */
export const LOGS_BEFORE_MS = 15 * MINUTE;
export const LOGS_AFTER_MS = 5 * MINUTE;
export const MAX_LOG_LINES = 100;

const itemRow = mapper({ kind: oneOf(['container', 'unit'] as const), name: text });
const logRow = mapper({ id: int, ts: int, level: text, text: text });

export function incidentHosts(
  db: DatabaseSync,
  hosts: readonly string[],
  start: number,
  resolvedAt: number | null,
  now: number,
): IncidentHost[] {
  const from = start - AROUND_START_MS;
  const to = Math.max(start, Math.min(start + AROUND_START_MS, resolvedAt ?? now, now)) + 1;
  return hosts.slice(0, MAX_INCIDENT_HOSTS).map((name) => {
    const series = readHostSeries(db, name, from, to, now);
    const items = largestItems(db, name, from, to, now);
    const itemSeries = (kind: 'container' | 'unit') =>
      items
        .filter((i) => i.kind === kind)
        .map((i) => ({ name: i.name, ...readItemSeries(db, name, kind, i.name, from, to, now) }));
    return {
      name,
      x: series.x,
      stepMs: series.stepMs,
      cpu: series.cpu,
      memory: series.memory,
      containers: itemSeries('container'),
      units: itemSeries('unit'),
      logs: logsAround(db, name, start),
    };
  });
}

/**
 * The items whose rollups the ranking reads, so that it reads by the primary keys of `host_items` and
 * `item_rollups` (host, kind, name first), never by `item_rollups_by_age`, which would read every
 * host's items in the span (DESIGN rule 4). A span that starts within GONE_ITEM_KEEP_MS of now reads
 * the host's listed items: every item a sample listed since then still has its row (an item only in
 * samples that came after newer ones, an outage's, has none: it is left out). An older span walks the
 * host's names in `item_rollups` itself, one seek per name, as items gone since then were forgotten.
 */
const LISTED_ITEMS = 'SELECT kind, name FROM host_items WHERE host = ?1';
const ROLLUP_ITEMS = `WITH RECURSIVE names(kind, name) AS (
    SELECT k.kind, (SELECT min(name) FROM item_rollups WHERE host = ?1 AND kind = k.kind)
      FROM (SELECT 'container' AS kind UNION ALL SELECT 'unit') AS k
    UNION ALL
    SELECT kind, (SELECT min(name) FROM item_rollups WHERE host = ?1 AND kind = names.kind AND name > names.name)
      FROM names WHERE name IS NOT NULL)
  SELECT kind, name FROM names WHERE name IS NOT NULL`;

/** The ranking over `items` (a query of kind, name); CROSS JOIN keeps the items the outer loop. */
const largestItemsSql = (items: string) =>
  `WITH items(kind, name) AS (${items})
   SELECT kind, name FROM (
       SELECT kind, name, row_number() OVER (
           PARTITION BY kind ORDER BY mem DESC NULLS LAST, cpu DESC NULLS LAST, name) AS rank
         FROM (SELECT i.kind, i.name, sum(r.mem_sum) / sum(r.mem_n) AS mem, sum(r.cpu_sum) / sum(r.cpu_n) AS cpu
                 FROM items AS i CROSS JOIN item_rollups AS r
                WHERE r.host = ?1 AND r.kind = i.kind AND r.name = i.name
                  AND r.res = ?2 AND r.bucket >= ?3 AND r.bucket < ?4
                GROUP BY i.kind, i.name))
     WHERE rank <= ${LARGEST_ITEMS} ORDER BY kind, rank`;
/** Exported for the test of their plans. */
export const LARGEST_LISTED_SQL = largestItemsSql(LISTED_ITEMS);
export const LARGEST_ROLLUP_SQL = largestItemsSql(ROLLUP_ITEMS);

/** The five containers and five units with the most memory (mean over the span), then CPU. */
function largestItems(db: DatabaseSync, host: string, from: number, to: number, now: number) {
  const { res, ms } = chooseStep(from, to, now);
  const start = Math.floor(from / ms) * ms;
  const sql = start >= now - GONE_ITEM_KEEP_MS ? LARGEST_LISTED_SQL : LARGEST_ROLLUP_SQL;
  return all(db, sql, itemRow, host, res, start, to);
}

/** The agent's lines from 15 minutes before the start to 5 after, the 100 nearest the start, oldest first. */
function logsAround(db: DatabaseSync, host: string, start: number): IncidentHost['logs'] {
  return all(
    db,
    `SELECT id, ts, level, text FROM agent_logs WHERE host = ? AND ts >= ? AND ts <= ?
      ORDER BY abs(ts - ?), id LIMIT ${MAX_LOG_LINES}`,
    logRow,
    host,
    start - LOGS_BEFORE_MS,
    start + LOGS_AFTER_MS,
    start,
  )
    .sort((a, b) => a.ts - b.ts || a.id - b.id)
    .map(({ ts, level, text }) => ({ ts, level, text }));
}
