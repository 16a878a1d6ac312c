import type { DatabaseSync } from 'node:sqlite';
import type { ChangeRow, DeployRow, DeploySource } from '../../protocol/deploys.ts';
import { all, int, mapper, nullable, oneOf, text } from '../store/rows.ts';

/**
 * Reading deploys and changes for timelines, chart markers, the overview and likely causes. Times are
 * `[from, to)`; rows come oldest first. Runs on `store.read` or inside a writer job.
 */

const sources: readonly DeploySource[] = ['api', 'codehost', 'agent'];

const deployRow = mapper(
  {
    id: int,
    ts: int,
    service: text,
    version: text,
    by: nullable(text),
    url: nullable(text),
    description: nullable(text),
    sources: text,
    host: nullable(text),
  },
  (r): DeployRow => ({
    ...r,
    sources: r.sources.split(',').filter((s): s is DeploySource => sources.includes(s as DeploySource)),
  }),
);

const changeRow = mapper({
  id: int,
  ts: int,
  kind: oneOf(['change', 'push'] as const),
  what: text,
  service: nullable(text),
  host: nullable(text),
  by: nullable(text),
  url: nullable(text),
  description: nullable(text),
});

const deployColumns = 'id, ts, service, version, by, url, description, sources, host';
const changeColumns = 'id, ts, kind, what, service, host, by, url, description';

/** Deploys of any service in the span. */
export function deploysBetween(db: DatabaseSync, from: number, to: number): DeployRow[] {
  return all(
    db,
    `SELECT ${deployColumns} FROM deploys WHERE ts >= ? AND ts < ? ORDER BY ts, id`,
    deployRow,
    from,
    to,
  );
}

/** Deploys of `service` in the span. */
export function deploysOf(db: DatabaseSync, service: string, from: number, to: number): DeployRow[] {
  return all(
    db,
    `SELECT ${deployColumns} FROM deploys WHERE service = ? AND ts >= ? AND ts < ? ORDER BY ts, id`,
    deployRow,
    service,
    from,
    to,
  );
}

/** Changes in the span, whatever they are bound to. */
export function changesBetween(db: DatabaseSync, from: number, to: number): ChangeRow[] {
  return all(
    db,
    `SELECT ${changeColumns} FROM changes WHERE ts >= ? AND ts < ? ORDER BY ts, id`,
    changeRow,
    from,
    to,
  );
}
