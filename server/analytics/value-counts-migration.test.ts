import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { OTHER_VALUE } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { migrate, migrationFiles } from '../store/db.ts';
import { CappedListRows, valuesKept } from './value-caps.ts';

const SITE = 'shop.example';

test('migration 022 counts the values of the last two days that an upgraded database has, so the cap holds in an hour under way', (t) => {
  // A database as 021 left it, with an hour under way and one from three days ago, then today's migrations.
  const dir = mkdtempSync(join(tmpdir(), 'mon-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const all = join(import.meta.dirname, '../store/migrations');
  for (const file of migrationFiles(all).filter((f) => Number(f.slice(0, 3)) <= 21)) {
    copyFileSync(join(all, file), join(dir, file));
  }
  const db = new DatabaseSync(':memory:');
  migrate(db, dir);
  // The backfill looks at the real clock (unixepoch('now')).
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  const old = hour - 3 * DAY;
  const kept = valuesKept('h', 'pages');
  const total = db.prepare("INSERT INTO analytics_totals (site, res, at) VALUES (?, 'h', ?)");
  const dim = db.prepare(
    "INSERT INTO analytics_dims (site, res, at, list, value, views) VALUES (?, 'h', ?, ?, ?, 1)",
  );
  for (const at of [hour, old]) total.run(SITE, at);
  for (let i = 0; i < kept - 1; i++) dim.run(SITE, hour, 'pages', `/p-${i}`);
  dim.run(SITE, hour, 'pages', OTHER_VALUE);
  for (let i = 0; i < 3; i++) dim.run(SITE, hour, 'referrers', `r${i}.example`);
  for (let i = 0; i < 5; i++) dim.run(SITE, old, 'pages', `/old-${i}`);

  migrate(db);
  assert.deepEqual(
    db
      .prepare('SELECT at, list, n FROM analytics_dim_values ORDER BY at, list')
      .all()
      .map((r) => ({ ...r })),
    [
      { at: hour, list: 'pages', n: kept - 1 },
      { at: hour, list: 'referrers', n: 3 },
    ],
    'the hour under way, (other) left out; nothing for the hour that gets no more events',
  );

  // Two new pages in the upgraded hour: the first is the last it keeps, the second adds to (other).
  db.exec('BEGIN');
  const rows = new CappedListRows(db);
  for (const value of ['/new-1', '/new-2'])
    rows.write('h', { site: SITE, at: hour, list: 'pages', value, visitors: 1, views: 1 });
  rows.finish();
  db.exec('COMMIT');
  const pages = db
    .prepare(
      "SELECT value, views FROM analytics_dims WHERE at = ? AND list = 'pages' AND value IN ('/new-1', '/new-2', ?) ORDER BY value",
    )
    .all(hour, OTHER_VALUE);
  assert.deepEqual(
    pages.map((r) => ({ ...r })),
    [
      { value: OTHER_VALUE, views: 2 },
      { value: '/new-1', views: 1 },
    ],
  );
  db.close();
});
