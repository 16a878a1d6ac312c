import type { DatabaseSync } from 'node:sqlite';
import type { ChangeRow, DeploySource } from '../../protocol/deploys.ts';
import { exists, int, mapper, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/** Writing deploys and changes (migration 007); they run inside a writer job. Reads are in read.ts. */

/** Reports of the same service and version this close in time are one deploy. */
export const MERGE_WINDOW_MS = 2 * 60_000;

/** A deploy as reported by one source; `ts` is when the report arrived. */
export type DeployReport = {
  service: string;
  version: string;
  ts: number;
  by: string | null;
  url: string | null;
  description: string | null;
  source: DeploySource;
  /** The host whose container started from a new image (agent reports). */
  host: string | null;
};

/** A change as reported; `ts` is when the report arrived. */
export type ChangeReport = Omit<ChangeRow, 'id'> & { source: DeploySource };

export function serviceExists(db: DatabaseSync, name: string): boolean {
  return exists(db, 'SELECT 1 FROM services WHERE name = ?', name);
}

const mergeTarget = mapper({ id: int, sources: text });

/**
 * Stores a deploy, or merges it into the deploy of the same service and version reported within
 * 2 minutes by any source: the first arrival's time stays, the source joins `sources`, and `by`,
 * `url`, `description` and `host` fill in where they were empty.
 */
export function recordDeploy(db: DatabaseSync, report: DeployReport): { id: number; merged: boolean } {
  const earlier = one(
    db,
    `SELECT id, sources FROM deploys
     WHERE service = ? AND version = ? AND ts >= ? AND ts <= ?
     ORDER BY ts DESC, id DESC LIMIT 1`,
    mergeTarget,
    report.service,
    report.version,
    report.ts - MERGE_WINDOW_MS,
    report.ts + MERGE_WINDOW_MS,
  );
  if (earlier) {
    const sources = earlier.sources.split(',');
    if (!sources.includes(report.source)) sources.push(report.source);
    statement(
      db,
      `UPDATE deploys SET ts = min(ts, ?), sources = ?, by = coalesce(by, ?), url = coalesce(url, ?),
         description = coalesce(description, ?), host = coalesce(host, ?)
       WHERE id = ?`,
    ).run(report.ts, sources.join(','), report.by, report.url, report.description, report.host, earlier.id);
    return { id: earlier.id, merged: true };
  }
  const { lastInsertRowid } = statement(
    db,
    `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    report.service,
    report.version,
    report.ts,
    report.by,
    report.url,
    report.description,
    report.source,
    report.source,
    report.host,
  );
  return { id: Number(lastInsertRowid), merged: false };
}

export function recordChange(db: DatabaseSync, report: ChangeReport): number {
  const { lastInsertRowid } = statement(
    db,
    `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    report.ts,
    report.kind,
    report.what,
    report.service,
    report.host,
    report.by,
    report.url,
    report.description,
    report.source,
  );
  return Number(lastInsertRowid);
}
