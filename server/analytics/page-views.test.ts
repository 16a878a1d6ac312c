import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { HOUR } from '../../protocol/durations.ts';
import { FakeClock } from '../clock.ts';
import { createTestServer, type TestServer } from '../testing.ts';
import { insertView, VIEW_TRIES } from './page-views.ts';
import { engage, rows, store, view } from './storage-testkit.ts';

const HOUR_10 = Date.UTC(2026, 0, 5, 10);
const HOUR_11 = HOUR_10 + HOUR;
/** Two milliseconds before 11:00 UTC. */
const T = HOUR_11 - 2;

async function server(t: TestContext): Promise<TestServer> {
  const s = await createTestServer({ clock: new FakeClock(T) });
  t.after(() => s.dispose());
  return s;
}

const viewTimes = (s: TestServer) =>
  rows(s, 'SELECT ts FROM analytics_views ORDER BY ts').map((r) => r.ts as number);

test("views in one visitor's millisecond at the end of an hour stay in that hour, as do their Web Vitals", async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T }), view({ ts: T }), view({ ts: T })]);
  // Up to the end of the hour, then down from the view's own millisecond.
  assert.deepEqual(viewTimes(s), [T - 1, T, T + 1]);
  await store(s, [engage({ ts: HOUR_11 + 5_000, vitals: { lcp: 1_800 } })]);
  const lcpIn = (hour: number) =>
    rows(
      s,
      "SELECT sum(n) AS n FROM analytics_vitals WHERE res = 'h' AND at = ? AND metric = 'lcp'",
      hour,
    )[0]!.n;
  assert.equal(lcpIn(HOUR_10), 1);
  assert.equal(lcpIn(HOUR_11), null);
});

test('a view whose nearest milliseconds are all taken is refused, and its batch rolled back', async (t) => {
  const s = await server(t);
  const at = HOUR_10 + 15 * 60_000;
  await s.deps.store.writer.run((db) => {
    for (let i = 0; i < VIEW_TRIES; i++) insertView(db, 'shop.example', 'v1', '/', at);
  });
  assert.equal(viewTimes(s).length, VIEW_TRIES);
  await assert.rejects(
    store(s, [view({ ts: at, page: '/pricing' }), view({ ts: at })]),
    /no free millisecond/,
  );
  assert.equal(viewTimes(s).length, VIEW_TRIES);
  assert.deepEqual(rows(s, 'SELECT * FROM analytics_totals'), []);
});

test('a view that breaks another rule of the table throws at once: only a key taken is passed over', async (t) => {
  const s = await server(t);
  await assert.rejects(
    s.deps.store.writer.run((db) => {
      // A page the table does not take: NOT NULL.
      insertView(db, 'shop.example', 'v1', null as unknown as string, T);
    }),
    /NOT NULL/,
  );
  assert.deepEqual(viewTimes(s), []);
});
