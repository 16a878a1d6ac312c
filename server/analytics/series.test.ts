import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { FakeClock } from '../clock.ts';
import { type IncidentRecord, insertIncident } from '../incidents/store.ts';
import { fileService, incidentServer } from '../incidents/testkit.ts';
import { statement } from '../store/statements.ts';

/** The visitors of an incident's site (docs/incidents.md, `GET /api/v1/incidents/{id}`). */

const incident = (
  id: string,
  service: string,
  startedAt: number,
  resolvedAt: number | null,
): IncidentRecord => ({
  id,
  title: `${service} down`,
  service,
  startedAt,
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt,
  inMaintenance: false,
  topCause: null,
});

test('an incident shows the visitors of its service’s first site around it; without a site, null', async (t) => {
  // shop has two sites (shop.example is the first); db has none. Now is 15:00 UTC.
  const day = Date.UTC(2026, 0, 1);
  const at = (hours: number, minutes = 0) => day + hours * HOUR + minutes * MINUTE;
  const kit = await incidentServer(
    [{ ...fileService('shop'), sites: ['www.shop.example', 'shop.example'] }, fileService('db')],
    {},
    { clock: new FakeClock(at(15)) },
  );
  t.after(() => kit.server.dispose());
  const earlier = day - 40 * DAY;
  await kit.server.deps.store.writer.run((db) => {
    const total = statement(
      db,
      'INSERT INTO analytics_totals (site, res, at, visitors, views) VALUES (?, ?, ?, ?, ?)',
    );
    // Hours 8 to 14; only 9 to 13 are within an hour of the incident (10:20 to 12:03).
    for (const [i, visitors] of [50, 3, 5, 7, 2, 4, 9].entries()) {
      total.run('shop.example', 'h', at(8 + i), visitors, 100);
    }
    total.run('www.shop.example', 'h', at(10), 100, 100);
    total.run('shop.example', 'd', day, 1000, 5000);
    // 40 days ago: beyond the hourly rollups, that day's.
    total.run('shop.example', 'h', earlier + 10 * HOUR, 30, 100);
    total.run('shop.example', 'd', earlier, 700, 5000);
    // Raw visits (rows of analytics_sessions) give `during`: everyone with a visit overlapping the span.
    const visit = statement(
      db,
      `INSERT INTO analytics_sessions (site, visitor, started_at, last_at, views, engaged_ms, entry_page, device,
         browser, os) VALUES (?, ?, ?, ?, 1, 0, '/', 'desktop', 'Chrome', 'Windows')`,
    );
    // Came in the morning and again during the incident: counted, though first seen at 8:00.
    visit.run('shop.example', 'morning', at(8), at(8, 5));
    visit.run('shop.example', 'morning', at(11), at(11, 30));
    // A visit begun before the incident and still going at its start.
    visit.run('shop.example', 'reader', at(10), at(10, 25));
    visit.run('shop.example', 'during', at(12), at(12, 1));
    // Left before it started; came after it resolved; another site; yesterday.
    visit.run('shop.example', 'before', at(9), at(10, 19));
    visit.run('shop.example', 'after', at(12, 3), at(12, 30));
    visit.run('www.shop.example', 'other-site', at(11), at(11));
    visit.run('shop.example', 'yesterday', day - HOUR, day - 1);
    insertIncident(db, incident('0000000000000001', 'shop', at(10, 20), at(12, 3)));
    insertIncident(db, incident('0000000000000002', 'db', at(10, 20), null));
    insertIncident(db, incident('0000000000000003', 'shop', at(13, 30), null));
    insertIncident(db, incident('0000000000000004', 'shop', earlier + 10 * HOUR, earlier + 11 * HOUR));
  });

  const resolved = await kit.read('0000000000000001');
  assert.deepEqual(resolved.visitors, {
    site: 'shop.example',
    x: [at(9), at(10), at(11), at(12), at(13)],
    stepMs: HOUR,
    visitors: [3, 5, 7, 2, 4],
    during: 3,
  });
  assert.equal((await kit.read('0000000000000002')).visitors, null);
  // Open: until now (15:00), its hours without visitors at 0.
  const open = await kit.read('0000000000000003');
  assert.deepEqual(open.visitors?.x, [at(12), at(13), at(14)]);
  assert.deepEqual(open.visitors?.visitors, [2, 4, 9]);
  assert.equal(open.visitors?.during, 0);

  // 40 days ago its visits are pruned: `during` adds the daily points the incident overlaps.
  const old = await kit.read('0000000000000004');
  assert.deepEqual(old.visitors, {
    site: 'shop.example',
    x: [earlier],
    stepMs: DAY,
    visitors: [700],
    during: 700,
  });
});

test('a site added through the API shows on its service’s incidents', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const res = await kit.inject('POST', '/api/v1/sites', { domain: 'blog.example' });
  assert.equal(res.status, 201, res.text);
  await kit.clock.advance(2 * HOUR);
  const start = kit.clock.now() - 30 * MINUTE;
  await kit.server.deps.store.writer.run((db) => {
    insertIncident(db, incident('0000000000000001', 'blog-example', start, null));
  });
  const { visitors } = await kit.read('0000000000000001');
  assert.equal(visitors?.site, 'blog.example');
  assert.deepEqual(visitors?.visitors, [0, 0]);
  assert.equal(visitors?.during, 0);
});
