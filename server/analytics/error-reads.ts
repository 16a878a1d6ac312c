import type { DatabaseSync } from 'node:sqlite';
import type { ErrorGroupRead } from '../../protocol/analytics.ts';
import { HOUR } from '../../protocol/durations.ts';
import { all, int, mapper, nullable, one, text } from '../store/rows.ts';
import type { Piece } from './blocks.ts';
import { runsParam } from './pieces.ts';
import type { ReadSpan } from './ranges.ts';

/** Error groups in a read at most. */
export const MAX_ERROR_GROUPS = 50;
/** A deploy this long before a group was first seen is named with it. */
export const DEPLOY_WINDOW_MS = HOUR;

const groupRow = mapper({
  id: int,
  type: text,
  message: text,
  script: nullable(text),
  line: nullable(int),
  col: nullable(int),
  count: int,
  firstSeen: int,
  lastSeen: int,
});

/**
 * Groups with occurrences in the span: only groups last seen since its start are candidates (index
 * by site and last_seen), and each sums its counts of the read's pieces (pieces.ts), a range of the
 * primary key per run of pieces.
 */
const groupsSql = `
SELECT g.id, g.type, g.message, g.script, g.line, g.col, sum(c.n) AS count, g.first_seen, g.last_seen
FROM js_error_groups AS g CROSS JOIN json_each(?) AS p CROSS JOIN js_error_counts AS c
  ON c.group_id = g.id AND c.res = p.value ->> 0 AND c.at >= p.value ->> 1 AND c.at <= p.value ->> 2
WHERE g.site = ? AND g.last_seen >= ?
GROUP BY g.id HAVING sum(c.n) > 0
ORDER BY count DESC, g.last_seen DESC, g.id LIMIT ${MAX_ERROR_GROUPS}`;

const deployRow = mapper({ id: int, version: text, ts: int });

/** The latest deploy of `service` in the hour up to `firstSeen` (index by service and ts). */
function deployBefore(db: DatabaseSync, service: string, firstSeen: number) {
  return one(
    db,
    `SELECT id, version, ts FROM deploys WHERE service = ? AND ts >= ? AND ts <= ? ORDER BY ts DESC, id DESC LIMIT 1`,
    deployRow,
    service,
    firstSeen - DEPLOY_WINDOW_MS,
    firstSeen,
  );
}

/**
 * The site's JavaScript error groups seen in the span, most occurrences first: new when first seen
 * within it, and named with the deploy of the site's service that came just before them. Ids are the
 * groups' and deploys' numbers, as strings (a deploy's is the `event_id` the deploy API answered).
 */
export function readErrorGroups(
  db: DatabaseSync,
  site: { domain: string; service: string } | null,
  span: ReadSpan,
  pieces: Piece[],
): ErrorGroupRead[] {
  if (site === null || pieces.length === 0) return [];
  const rows = all(db, groupsSql, groupRow, runsParam(pieces), site.domain, span.from);
  return rows.map((g) => {
    const deploy = deployBefore(db, site.service, g.firstSeen);
    return {
      id: String(g.id),
      type: g.type,
      message: g.message,
      script: g.script,
      line: g.line,
      column: g.col,
      count: g.count,
      firstSeen: g.firstSeen,
      lastSeen: g.lastSeen,
      isNew: g.firstSeen >= span.from,
      deploy: deploy ? { id: String(deploy.id), version: deploy.version, ts: deploy.ts } : null,
    };
  });
}
