import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../store/db.ts';
import { tempDir } from '../testing.ts';

const migrations = join(import.meta.dirname, '../store/migrations');

test('the storage migration keeps the visits and page views stored before it, in visitor order', (t) => {
  const work = tempDir();
  t.after(work.remove);
  const files = readdirSync(migrations)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const mine = files.findIndex((f) => f.endsWith('-analytics-storage.sql'));
  assert.ok(mine > 0);
  const dir = join(work.dir, 'migrations');
  mkdirSync(dir);
  for (const file of files.slice(0, mine)) copyFileSync(join(migrations, file), join(dir, file));
  const db = new DatabaseSync(join(work.dir, 'mon.db'));
  const rows = (sql: string) =>
    db
      .prepare(sql)
      .all()
      .map((row) => ({ ...row }));
  t.after(() => db.close());
  migrate(db, dir);
  db.exec(`
    INSERT INTO analytics_sessions (site, visitor, started_at, last_at, views, engaged_ms, entry_page, referrer,
      utm_source, utm_medium, utm_campaign, country, device, browser, os)
    VALUES ('a.example', 'v1', 10, 20, 2, 500, '/', 'b.example', NULL, NULL, NULL, 'DE', 'desktop', 'Firefox', 'Linux');
    INSERT INTO analytics_views (site, ts, session, visitor, page) VALUES ('a.example', 10, 1, 'v1', '/'),
      ('a.example', 20, 1, 'v1', '/docs');
  `);
  copyFileSync(join(migrations, files[mine]!), join(dir, files[mine]!));
  migrate(db, dir);
  assert.deepEqual(
    rows('SELECT site, visitor, started_at, last_at, views, referrer, country FROM analytics_sessions'),
    [
      {
        site: 'a.example',
        visitor: 'v1',
        started_at: 10,
        last_at: 20,
        views: 2,
        referrer: 'b.example',
        country: 'DE',
      },
    ],
  );
  assert.deepEqual(rows('SELECT site, visitor, page, ts, vitals FROM analytics_views ORDER BY ts'), [
    { site: 'a.example', visitor: 'v1', page: '/', ts: 10, vitals: null },
    { site: 'a.example', visitor: 'v1', page: '/docs', ts: 20, vitals: null },
  ]);
});
