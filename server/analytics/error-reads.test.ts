import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { readServer, writeDeploy, writeErrorGroup } from './read-testkit.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const SHOP = 'shop.example';
const NINE = Date.UTC(2026, 2, 10, 9);
const TEN = Date.UTC(2026, 2, 10, 10);

async function server() {
  const kit = await readServer(NOW);
  after(() => kit.server.dispose());
  return kit;
}

test('error groups seen in the range, most first, new when first seen in it, with the deploy just before them', async () => {
  const { server: s, get } = await server();
  const firstSeen = NINE + 15 * MINUTE;
  // Deploys of the site's service 50 and 30 minutes before the new group: the latest is named.
  await writeDeploy(s, 'shop', 'v1', firstSeen - 50 * MINUTE);
  const v2 = await writeDeploy(s, 'shop', 'v2', firstSeen - 30 * MINUTE);
  // Another service's deploy, later still, and one after the group appeared: neither is named.
  await writeDeploy(s, 'blog', 'b7', firstSeen - 10 * MINUTE);
  await writeDeploy(s, 'shop', 'v3', firstSeen + MINUTE);
  const fresh = await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'f1',
    message: 'x is undefined',
    firstSeen,
    lastSeen: TEN + 5 * MINUTE,
    counts: [
      ['h', NINE, 2],
      ['h', TEN, 5],
      ['d', Date.UTC(2026, 2, 10), 7],
    ],
  });
  // Known for two days; a deploy two hours before it first appeared is not its cause.
  const oldFirstSeen = NOW - 2 * DAY;
  await writeDeploy(s, 'shop', 'v0', oldFirstSeen - 2 * HOUR);
  const known = await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'f2',
    type: 'RangeError',
    message: 'Maximum call stack size exceeded',
    firstSeen: oldFirstSeen,
    lastSeen: TEN,
    counts: [
      ['h', oldFirstSeen - (oldFirstSeen % HOUR), 40],
      ['h', TEN, 3],
    ],
  });
  // Not seen in the range, and another site's group.
  await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'f3',
    message: 'old',
    firstSeen: oldFirstSeen,
    lastSeen: oldFirstSeen,
    counts: [['h', oldFirstSeen - (oldFirstSeen % HOUR), 100]],
  });
  await writeErrorGroup(s, {
    site: 'blog.example',
    fingerprint: 'f1',
    message: 'x is undefined',
    firstSeen,
    lastSeen: TEN,
    counts: [['h', TEN, 100]],
  });

  const read = (await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead;
  assert.deepEqual(read.errors, [
    {
      id: String(fresh),
      type: 'TypeError',
      message: 'x is undefined',
      script: 'https://shop.example/app.js',
      line: 12,
      column: 34,
      count: 7,
      firstSeen,
      lastSeen: TEN + 5 * MINUTE,
      isNew: true,
      deploy: { id: String(v2), version: 'v2', ts: firstSeen - 30 * MINUTE },
    },
    {
      id: String(known),
      type: 'RangeError',
      message: 'Maximum call stack size exceeded',
      script: 'https://shop.example/app.js',
      line: 12,
      column: 34,
      count: 3,
      firstSeen: oldFirstSeen,
      lastSeen: TEN,
      isNew: false,
      deploy: null,
    },
  ]);
});

test('a deploy exactly an hour before the group is named; a week reads the daily counts', async () => {
  const { server: s, get } = await server();
  const firstSeen = Date.UTC(2026, 2, 5, 8);
  await writeDeploy(s, 'shop', 'v9', firstSeen - HOUR);
  await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'f1',
    message: 'boom',
    firstSeen,
    lastSeen: Date.UTC(2026, 2, 6, 8),
    counts: [
      ['d', Date.UTC(2026, 2, 5), 4],
      ['d', Date.UTC(2026, 2, 6), 2],
      ['h', Date.UTC(2026, 2, 6, 8), 2],
    ],
  });
  const [group] = ((await get(`/api/v1/analytics?site=${SHOP}&range=7d`)).body as AnalyticsRead).errors!;
  assert.equal(group!.count, 6);
  assert.equal(group!.isNew, true);
  assert.equal(group!.deploy?.version, 'v9');
  // The last 24 hours hold none of its occurrences.
  assert.deepEqual(((await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead).errors, []);
});

test('a deploy names a group first seen up to the same millisecond, 60 minutes after it, not 61', async () => {
  const { server: s, get } = await server();
  const cases: [string, number, number][] = [
    ['61 minutes', NINE, NINE - 61 * MINUTE],
    ['60 minutes', TEN + 90 * MINUTE, TEN + 30 * MINUTE],
    ['same millisecond', TEN + 210 * MINUTE, TEN + 210 * MINUTE],
  ];
  for (const [message, firstSeen, deployed] of cases) {
    await writeDeploy(s, 'shop', message, deployed);
    await writeErrorGroup(s, {
      site: SHOP,
      fingerprint: message,
      message,
      firstSeen,
      lastSeen: firstSeen,
      counts: [['h', firstSeen - (firstSeen % HOUR), 1]],
    });
  }
  const errors = ((await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead).errors!;
  assert.deepEqual(errors.map((g) => [g.message, g.deploy?.version ?? null]).sort(), [
    ['60 minutes', '60 minutes'],
    ['61 minutes', null],
    ['same millisecond', 'same millisecond'],
  ]);
});

test('at most 50 groups, the most frequent', async () => {
  const { server: s, get } = await server();
  for (let i = 1; i <= 55; i++) {
    await writeErrorGroup(s, {
      site: SHOP,
      fingerprint: `f${i}`,
      message: `error ${i}`,
      firstSeen: TEN,
      lastSeen: TEN,
      counts: [['h', TEN, i]],
    });
  }
  const errors = ((await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead).errors!;
  assert.equal(errors.length, 50);
  assert.equal(errors[0]!.count, 55);
  assert.equal(errors.at(-1)!.count, 6);
});

test('a range reaching back beyond 35 days leaves the errors out: groups not seen since are deleted', async () => {
  const { server: s, get } = await server();
  await writeErrorGroup(s, {
    site: SHOP,
    fingerprint: 'f1',
    message: 'boom',
    firstSeen: NOW - 20 * DAY,
    lastSeen: NOW - 20 * DAY,
    counts: [['d', Math.floor((NOW - 20 * DAY) / DAY) * DAY, 3]],
  });
  const month = (await get(`/api/v1/analytics?site=${SHOP}&range=30d`)).body as AnalyticsRead;
  assert.deepEqual(
    month.errors?.map((g) => g.count),
    [3],
  );
  assert.ok(!month.omitted.includes('errors'));
  for (const range of ['range=1y', `from=${NOW - 35 * DAY - HOUR}&to=${NOW}`]) {
    const long = (await get(`/api/v1/analytics?site=${SHOP}&${range}`)).body as AnalyticsRead;
    assert.equal(long.errors, null, range);
    assert.ok(long.omitted.includes('errors'), range);
  }
});
