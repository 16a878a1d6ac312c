import type { DatabaseSync } from 'node:sqlite';
import { all, int, type Mapped, mapper, nullable, oneOf, text } from '../store/rows.ts';

/**
 * What agents saw on hosts (`host_events`), as incidents read it for their likely causes: container
 * restarts and OOM kills, systemd units failed or restarted, thresholds crossed, agents gone silent.
 * The hosts feature writes these rows (items.ts, alerting.ts, silence.ts); this is their one read.
 */

export const hostEventKinds = [
  'restart',
  'oom',
  'unit_failed',
  'unit_restart',
  'threshold',
  'silent',
] as const;
export type HostEventKind = (typeof hostEventKinds)[number];

const eventRow = mapper({
  host: text,
  ts: int,
  kind: oneOf(hostEventKinds),
  subject: text,
  service: nullable(text),
  detail: text,
});

export type HostEventRow = Mapped<typeof eventRow>;

/**
 * The events of `hosts` from `from` to `to`, both included: the newest `limit` of them, newest first
 * (one query, by the index on host and time).
 */
export function hostEventsBetween(
  db: DatabaseSync,
  hosts: readonly string[],
  from: number,
  to: number,
  limit: number,
): HostEventRow[] {
  if (hosts.length === 0) return [];
  return all(
    db,
    `SELECT host, ts, kind, subject, service, detail FROM host_events
      WHERE host IN (SELECT value FROM json_each(?)) AND ts >= ? AND ts <= ?
      ORDER BY ts DESC, id DESC LIMIT ?`,
    eventRow,
    JSON.stringify(hosts),
    from,
    to,
    limit,
  );
}
