import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import { int, mapper, one, scalar } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { errorFingerprint } from './fingerprint.ts';
import { dayOf, hourOf } from './rollups.ts';

/**
 * JavaScript error groups (`js_error_groups`, one per site and fingerprint) and their counts per hour
 * and UTC day (`js_error_counts`). A batch's errors are added up by group first; a group keeps the
 * message, script, line and column of its first occurrence.
 */

/**
 * New groups a site may get per UTC day. Messages that vary in ways the fingerprint does not foresee
 * (or a hostile page posting made-up errors) would otherwise add groups without bound; beyond it, an
 * error of a group not yet known is dropped, and those of known groups still count.
 */
export const MAX_NEW_ERROR_GROUPS_PER_DAY = 1_000;

const idRow = mapper({ id: int });

/** The groups of `site` first seen on the UTC day `day` (along the index by last seen: they were seen since). */
function groupsNewOn(db: DatabaseSync, site: string, day: number): number {
  return scalar(
    db,
    `SELECT count(*) FROM js_error_groups
     WHERE site = ? AND last_seen >= ? AND first_seen >= ? AND first_seen < ?`,
    int,
    site,
    day,
    day,
    day + DAY,
  );
}

export type ErrorOccurrence = {
  site: string;
  ts: number;
  type: string;
  message: string;
  script: string | null;
  line: number | null;
  column: number | null;
  stack: string | null;
};

type Group = {
  first: ErrorOccurrence;
  lastSeen: number;
  count: number;
  /** Occurrences by hour bucket. */
  hours: Map<number, number>;
};

const upsertGroup = `
INSERT INTO js_error_groups (site, fingerprint, type, message, script, line, col, count, first_seen, last_seen)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, fingerprint) DO UPDATE SET count = count + excluded.count,
  first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)
RETURNING id`;
const upsertCount = `
INSERT INTO js_error_counts (group_id, res, at, n) VALUES (?, ?, ?, ?)
ON CONFLICT (group_id, res, at) DO UPDATE SET n = n + excluded.n`;

export class BatchErrors {
  private readonly groups = new Map<string, Group>();

  add(error: ErrorOccurrence): void {
    const key = `${error.site}\0${errorFingerprint(error)}`;
    const hour = hourOf(error.ts);
    const group = this.groups.get(key);
    if (!group) {
      this.groups.set(key, { first: error, lastSeen: error.ts, count: 1, hours: new Map([[hour, 1]]) });
      return;
    }
    group.count++;
    group.lastSeen = Math.max(group.lastSeen, error.ts);
    group.hours.set(hour, (group.hours.get(hour) ?? 0) + 1);
  }

  write(db: DatabaseSync): void {
    const countStmt = statement(db, upsertCount);
    /** New groups of a site and day so far, by `site\0day`. */
    const newGroups = new Map<string, number>();
    for (const [key, { first, lastSeen, count, hours }] of this.groups) {
      const fingerprint = key.slice(key.indexOf('\0') + 1);
      const known = one(
        db,
        'SELECT id FROM js_error_groups WHERE site = ? AND fingerprint = ?',
        idRow,
        first.site,
        fingerprint,
      );
      if (!known) {
        const day = dayOf(first.ts);
        const siteDay = `${first.site}\0${day}`;
        const made = newGroups.get(siteDay) ?? groupsNewOn(db, first.site, day);
        if (made >= MAX_NEW_ERROR_GROUPS_PER_DAY) continue;
        newGroups.set(siteDay, made + 1);
      }
      const id = scalar(
        db,
        upsertGroup,
        int,
        first.site,
        fingerprint,
        first.type,
        first.message,
        first.script,
        first.line,
        first.column,
        count,
        first.ts,
        lastSeen,
      );
      const days = new Map<number, number>();
      for (const [hour, n] of hours) {
        countStmt.run(id, 'h', hour, n);
        const day = dayOf(hour);
        days.set(day, (days.get(day) ?? 0) + n);
      }
      for (const [day, n] of days) countStmt.run(id, 'd', day, n);
    }
  }
}
