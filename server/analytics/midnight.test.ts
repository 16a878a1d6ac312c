import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { readServer } from './read-testkit.ts';
import { agents } from './testkit.ts';
import { createVisitorIds } from './visitors.ts';

/** Midnight UTC between two days. */
const MIDNIGHT = Date.UTC(2026, 2, 2);
const SECOND = 1_000;

type Kit = Awaited<ReturnType<typeof readServer>>;

/** Posts one tracker event of shop.example as `/b.js` does, from `address`, at the clock's time. */
async function send(kit: Kit, address: string, event: Record<string, unknown>): Promise<void> {
  const res = await kit.server.app.inject({
    method: 'POST',
    url: '/e',
    remoteAddress: address,
    headers: { 'content-type': 'text/plain', 'user-agent': agents.chromeWindows },
    payload: JSON.stringify({ d: 'shop.example', u: 'https://shop.example/', ...event }),
  });
  assert.equal(res.statusCode, 204, res.body);
}

/** Moves the fake clock to `at` (no timer of the test's concern fires in between). */
const at = (kit: Kit, ts: number) => kit.clock.jump(ts - kit.clock.now());

const dayTotals = (kit: Kit, day: number) =>
  kit.server.deps.store.read
    .prepare(
      "SELECT visitors, views, visits, bounces, engaged_ms FROM analytics_totals WHERE site = 'shop.example' AND res = 'd' AND at = ?",
    )
    .get(day);

test('engagement just after midnight UTC ends the visit begun before it, under yesterday’s id; a view after midnight starts today’s', async (t) => {
  const kit = await readServer(MIDNIGHT - 45 * MINUTE);
  t.after(() => kit.server.dispose());
  // A visitor who left at 23:20: their engagement at 00:05 comes after 30 idle minutes, and ends no
  // visit of the day before.
  await at(kit, MIDNIGHT - 40 * MINUTE);
  await send(kit, '81.2.69.161', { k: 'v' });
  // A reader: a view at 23:59:00, the page hidden at 00:00:30 after 90 s of reading, then another page.
  await at(kit, MIDNIGHT - MINUTE);
  await send(kit, '81.2.69.160', { k: 'v' });
  await at(kit, MIDNIGHT + 30 * SECOND);
  await send(kit, '81.2.69.160', { k: 'e', t: 90_000, w: { lcp: 900 } });
  await at(kit, MIDNIGHT + MINUTE);
  await send(kit, '81.2.69.160', { k: 'v', u: 'https://shop.example/pricing' });
  await at(kit, MIDNIGHT + 5 * MINUTE);
  await send(kit, '81.2.69.161', { k: 'e', t: 20_000 });

  // The reader's visit of yesterday engaged for 90 s; today's visit is another, and so is its visitor:
  // the id changes at midnight, and each day counts the visitors of its own visits.
  assert.deepEqual(
    { ...dayTotals(kit, MIDNIGHT - DAY) },
    { visitors: 2, views: 2, visits: 2, bounces: 1, engaged_ms: 90_000 },
  );
  assert.deepEqual(
    { ...dayTotals(kit, MIDNIGHT) },
    { visitors: 1, views: 1, visits: 1, bounces: 1, engaged_ms: 0 },
  );
  const span = `from=${MIDNIGHT - HOUR}&to=${MIDNIGHT + HOUR}`;
  const read = (await kit.get(`/api/v1/analytics?site=shop.example&${span}`)).body as AnalyticsRead;
  assert.deepEqual(read.totals, { visitors: 3, views: 3, visits: 3, bounce: 66.7, time: 30_000 });
  // The Web Vitals of the page read before midnight count at its view, in yesterday's last hour.
  const vitals = kit.server.deps.store.read
    .prepare("SELECT at FROM analytics_vitals WHERE res = 'h' AND page = '' AND metric = 'lcp'")
    .all();
  assert.deepEqual(
    vitals.map((r) => r.at),
    [MIDNIGHT - HOUR],
  );
});

test('yesterday’s id is worked out from a stored salt, never a new one', async (t) => {
  const kit = await readServer(MIDNIGHT - HOUR);
  t.after(() => kit.server.dispose());
  const salts = () => kit.server.deps.store.read.prepare('SELECT day FROM analytics_salts').all().length;
  const ids = createVisitorIds(kit.server.deps);
  const address = '81.2.69.160';
  // Nobody visited the day before: no id, and no salt made for it.
  assert.equal(ids.dayBeforeIdOf('shop.example', address, agents.chromeWindows, MIDNIGHT - HOUR), null);
  assert.equal(salts(), 0);
  const yesterday = await ids.idOf('shop.example', address, agents.chromeWindows, MIDNIGHT - HOUR);
  assert.equal(
    ids.dayBeforeIdOf('shop.example', address, agents.chromeWindows, MIDNIGHT + MINUTE),
    yesterday,
  );
  // After a restart, from the database.
  const again = createVisitorIds(kit.server.deps);
  assert.equal(
    again.dayBeforeIdOf('shop.example', address, agents.chromeWindows, MIDNIGHT + MINUTE),
    yesterday,
  );
  assert.equal(salts(), 1);
});

test('a read going on past 00:30 keeps its engagement: yesterday’s visit goes on while its last activity is within 30 idle minutes', async (t) => {
  const kit = await readServer(MIDNIGHT - 15 * MINUTE);
  t.after(() => kit.server.dispose());
  // A view at 23:50; read 00:10–00:20 (20 idle minutes after the view), then 00:40–00:45 (20 after
  // that), then 01:20–01:21 (35 after): the last starts nothing.
  await at(kit, MIDNIGHT - 10 * MINUTE);
  await send(kit, '81.2.69.160', { k: 'v' });
  await at(kit, MIDNIGHT + 20 * MINUTE);
  await send(kit, '81.2.69.160', { k: 'e', t: 10 * MINUTE });
  await at(kit, MIDNIGHT + 45 * MINUTE);
  await send(kit, '81.2.69.160', { k: 'e', t: 5 * MINUTE });
  await at(kit, MIDNIGHT + 81 * MINUTE);
  await send(kit, '81.2.69.160', { k: 'e', t: MINUTE });
  assert.deepEqual(
    { ...dayTotals(kit, MIDNIGHT - DAY) },
    { visitors: 1, views: 1, visits: 1, bounces: 0, engaged_ms: 15 * MINUTE },
  );
  assert.equal(dayTotals(kit, MIDNIGHT), undefined, 'nothing on the new day');
  const visits = kit.server.deps.store.read.prepare('SELECT last_at FROM analytics_sessions').all();
  assert.deepEqual(
    visits.map((r) => r.last_at),
    [MIDNIGHT + 45 * MINUTE],
  );
});
