import type { DatabaseSync } from 'node:sqlite';
import type { IncidentHost } from '../../protocol/hosts.ts';
import { chooseStep, MINUTE } from '../checks/rollups.ts';
import { all, int, mapper, oneOf, text } from '../store/rows.ts';
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

/** The five containers and five units with the most memory (mean over the span), then CPU. */
function largestItems(db: DatabaseSync, host: string, from: number, to: number, now: number) {
  const { res, ms } = chooseStep(from, to, now);
  return all(
    db,
    `SELECT kind, name FROM (
       SELECT kind, name, row_number() OVER (
           PARTITION BY kind ORDER BY mem DESC NULLS LAST, cpu DESC NULLS LAST, name) AS rank
         FROM (SELECT kind, name, sum(mem_sum) / sum(mem_n) AS mem, sum(cpu_sum) / sum(cpu_n) AS cpu
                 FROM item_rollups WHERE host = ? AND res = ? AND bucket >= ? AND bucket < ?
                GROUP BY kind, name))
     WHERE rank <= ${LARGEST_ITEMS} ORDER BY kind, rank`,
    itemRow,
    host,
    res,
    Math.floor(from / ms) * ms,
    to,
  );
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
