import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { type AnalyticsList, listValuesKept, OTHER_VALUE } from '../../protocol/analytics.ts';
import { DAY } from '../../protocol/durations.ts';
import { int, mapper, one, scalar } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * The values senders choose (pages, referrers, campaigns) are as many as they make up: a list keeps at
 * most `valuesKept` of them (listValuesKept) an hour and a UTC day, so that a read sums a bounded
 * number of rows (docs/analytics.md "How fast"). Values beyond, in that hour or day, add their counts to the list's
 * OTHER_VALUE row: the list's views still add up, and a read that meets the row says it is not exact.
 * Which values a period keeps: those that came first. How many each period has (at least) is kept
 * beside the rows (migration 022), in the writer's transaction, so a rolled-back batch takes its
 * count back too.
 *
 * The overview sums every list, and one made-up page view carries a value of its own to five of them
 * (page, referrer, UTM source, medium, campaign): summing a row costs about a µs, so the hours of a
 * day read at most 25 × (1,000 + 4 × 250) = 50,000 rows (about 50 ms), and the two days without blocks
 * of a longer read 2 × (5,000 + 4 × 1,250) = 20,000. Pages keep as many an hour as a list read answers
 * at most (and a block of days keeps); the other lists, whose values a site has far fewer of, a
 * quarter of that.
 */

/** The most values `list` keeps in a period of `res`. */
export const valuesKept = (res: Res, list: AnalyticsList): number =>
  listValuesKept[res][list === 'pages' ? 'pages' : 'others'];

/** Counts of periods that began this long ago are deleted: events are stamped with the server's clock. */
export const VALUE_COUNTS_KEPT_MS = 2 * DAY;

export type ListRow = {
  site: string;
  at: number;
  list: AnalyticsList;
  value: string;
  visitors: number;
  views: number;
};
type Res = keyof typeof listValuesKept;
type Counts = { visitors: number; views: number };
/** A period's count of values: exact once counted again (`exact`), else at least as many as it has. */
type Count = {
  site: string;
  res: Res;
  at: number;
  list: AnalyticsList;
  n: number;
  was: number;
  exact: boolean;
};

const upsertSql = `
INSERT INTO analytics_dims (site, res, at, list, value, visitors, views) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, res, at, list, value) DO UPDATE SET visitors = visitors + excluded.visitors, views = views + excluded.views`;
/** The same, with the row's counts after: a new row's (counts equal to the delta) is told apart. */
const upsertReturningSql = `${upsertSql}
RETURNING visitors, views`;
const updateSql = `
UPDATE analytics_dims SET visitors = visitors + ?, views = views + ?
WHERE site = ? AND res = ? AND at = ? AND list = ? AND value = ?`;
const countSql = 'SELECT n FROM analytics_dim_values WHERE site = ? AND res = ? AND at = ? AND list = ?';
/** The period's values: a scan of its rows, as many as it keeps at most. */
const recountSql = `
SELECT count(*) FROM analytics_dims WHERE site = ? AND res = ? AND at = ? AND list = ? AND value <> ?`;
const saveCountSql = `
INSERT INTO analytics_dim_values (site, res, at, list, n) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (site, res, at, list) DO UPDATE SET n = excluded.n`;
const nRow = mapper({ n: int });

/**
 * The list rows of one batch (rollups.ts), each written as it comes; `finish` then adds what went
 * beyond the values kept to the OTHER_VALUE rows and saves the periods' counts.
 *
 * Telling whether an upsert made a row (RETURNING) would cost the writer about a tenth more, so a
 * period's count is kept as at least its values: each row written adds one. When it reaches what the
 * period keeps, the period's rows are counted (one scan of at most that many rows), and for the rest
 * of the batch each upsert says whether it made a row; a count saved at the cap is thus exact, and a
 * period is counted once as it reaches its cap, not at every batch after. At the cap, a value is added only to its own row if
 * there is one (an UPDATE), else to OTHER_VALUE.
 */
export class CappedListRows {
  private readonly counts = new Map<string, Count>();
  private readonly other = new Map<string, ListRow & { res: Res }>();
  private readonly db: DatabaseSync;
  private readonly upsert: StatementSync;
  private readonly upsertReturning: StatementSync;
  private readonly update: StatementSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.upsert = statement(db, upsertSql);
    this.upsertReturning = statement(db, upsertReturningSql);
    this.update = statement(db, updateSql);
  }

  write(res: Res, row: ListRow): void {
    const count = this.countOf(res, row);
    const { site, at, list, value, visitors, views } = row;
    const kept = valuesKept(res, list);
    if (count.n >= kept && !count.exact) this.recount(count);
    if (count.n < kept) {
      if (!count.exact) {
        this.upsert.run(site, res, at, list, value, visitors, views);
        count.n++;
        return;
      }
      // Not through a mapper: a statement of each list row.
      const after = this.upsertReturning.get(site, res, at, list, value, visitors, views) as Counts;
      // Rows already there count a view at least (every list row adds one): equal counts, a new row.
      if (after.views === views && after.visitors === visitors && value !== OTHER_VALUE) count.n++;
      return;
    }
    if (this.update.run(visitors, views, site, res, at, list, value).changes > 0) return;
    const key = `${site}\0${res}\0${at}\0${list}`;
    const other = this.other.get(key);
    if (other) {
      other.visitors += visitors;
      other.views += views;
    } else this.other.set(key, { ...row, res, value: OTHER_VALUE });
  }

  /** Writes the OTHER_VALUE rows of the batch and the counts it changed. */
  finish(): void {
    for (const r of this.other.values())
      this.upsert.run(r.site, r.res, r.at, r.list, r.value, r.visitors, r.views);
    const save = statement(this.db, saveCountSql);
    for (const c of this.counts.values()) {
      if (c.n >= valuesKept(c.res, c.list) && !c.exact) this.recount(c);
      if (c.n !== c.was) save.run(c.site, c.res, c.at, c.list, c.n);
    }
  }

  private recount(count: Count): void {
    const { site, res, at, list } = count;
    count.n = scalar(this.db, recountSql, int, site, res, at, list, OTHER_VALUE);
    count.exact = true;
  }

  private countOf(res: Res, { site, at, list }: ListRow): Count {
    const key = `${site}\0${res}\0${at}\0${list}`;
    let count = this.counts.get(key);
    if (!count) {
      const n = one(this.db, countSql, nRow, site, res, at, list)?.n ?? 0;
      // A count saved at the cap or above is exact (`finish`).
      count = { site, res, at, list, n, was: n, exact: n >= valuesKept(res, list) };
      this.counts.set(key, count);
    }
    return count;
  }
}
