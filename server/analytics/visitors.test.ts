import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { FakeClock } from '../clock.ts';
import { FIRST_PASS_DELAY_MS } from '../housekeeping.ts';
import { blob, int, scalar } from '../store/rows.ts';
import { createTestServer } from '../testing.ts';
import { createVisitorIds, SALT_KEPT_MS } from './visitors.ts';

const DAY0 = Date.UTC(2026, 2, 1);
const agent =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0';

test('one salt per UTC day: the same id all day, another after midnight, kept across a restart', async (t) => {
  const server = await createTestServer();
  t.after(() => server.dispose());
  const salts = () =>
    server.deps.store.read
      .prepare('SELECT day FROM analytics_salts ORDER BY day')
      .all()
      .map((r) => r.day);
  const visitors = createVisitorIds(server.deps);

  // Concurrent first calls of a day share one writer job: one salt.
  const first = await Promise.all(
    Array.from({ length: 20 }, () => visitors.idOf('shop.example', '81.2.69.160', agent, DAY0 + 10 * 60_000)),
  );
  assert.equal(new Set(first).size, 1);
  assert.match(first[0]!, /^[0-9a-f]{32}$/);
  assert.deepEqual(salts(), [DAY0]);

  const id = first[0]!;
  // Once the day's salt is stored, an id is given at once, without a promise.
  assert.equal(visitors.idOf('shop.example', '81.2.69.160', agent, DAY0 + DAY - 1), id);
  // Each part of the key makes another visitor.
  assert.notEqual(await visitors.idOf('blog.example', '81.2.69.160', agent, DAY0), id);
  assert.notEqual(await visitors.idOf('shop.example', '81.2.69.161', agent, DAY0), id);
  assert.notEqual(await visitors.idOf('shop.example', '81.2.69.160', `${agent} Edg/126`, DAY0), id);
  // After midnight, a new salt: the same person is a new visitor.
  const tomorrow = await visitors.idOf('shop.example', '81.2.69.160', agent, DAY0 + DAY);
  assert.notEqual(tomorrow, id);
  assert.deepEqual(salts(), [DAY0, DAY0 + DAY]);

  // A restart (a new instance on the same database) keeps today's ids.
  const again = createVisitorIds(server.deps);
  assert.equal(await again.idOf('shop.example', '81.2.69.160', agent, DAY0 + DAY + HOUR), tomorrow);
  assert.equal(salts().length, 2);
});

test('a salt is deleted once its day began more than 48 hours ago', async (t) => {
  const server = await createTestServer();
  t.after(() => server.dispose());
  const days = () =>
    server.deps.store.read
      .prepare('SELECT day FROM analytics_salts ORDER BY day')
      .all()
      .map((r) => r.day);
  const visitors = createVisitorIds(server.deps);
  await visitors.idOf('shop.example', '81.2.69.160', agent, DAY0);
  await visitors.idOf('shop.example', '81.2.69.160', agent, DAY0 + DAY);

  await visitors.prune(DAY0 + SALT_KEPT_MS);
  assert.deepEqual(days(), [DAY0, DAY0 + DAY]);
  await visitors.prune(DAY0 + SALT_KEPT_MS + 1);
  assert.deepEqual(days(), [DAY0 + DAY]);
  await visitors.prune(DAY0 + DAY + SALT_KEPT_MS + HOUR);
  assert.deepEqual(days(), []);
});

test('a deleted salt leaves no byte in the database file or its WAL (docs/analytics.md, "Visitors")', async (t) => {
  const clock = new FakeClock(DAY0);
  const server = await createTestServer({ clock });
  t.after(() => server.dispose());
  const visitors = createVisitorIds(server.deps);
  await visitors.idOf('shop.example', '81.2.69.160', agent, DAY0);
  // The next day's salt rewrites the page, the first salt with it.
  await visitors.idOf('shop.example', '81.2.69.160', agent, DAY0 + DAY);
  const saltOf = (day: number) =>
    Buffer.from(scalar(server.deps.store.read, 'SELECT salt FROM analytics_salts WHERE day = ?', blob, day));
  const salt = saltOf(DAY0);
  const kept = saltOf(DAY0 + DAY);
  const file = join(server.dataDir, 'mon.db');
  const holds = (path: string, bytes: Buffer) => existsSync(path) && readFileSync(path).includes(bytes);
  assert.ok(holds(file, salt) || holds(`${file}-wal`, salt), 'the salt is in the files at first');

  // The server's own housekeeping, hour after hour, past the 48 hours.
  await clock.advance(SALT_KEPT_MS + HOUR + FIRST_PASS_DELAY_MS);
  await server.analytics.pruned();
  assert.equal(scalar(server.deps.store.read, 'SELECT count(*) FROM analytics_salts', int), 1);
  assert.ok(!holds(file, salt), 'not in mon.db');
  assert.ok(!holds(`${file}-wal`, salt), 'not in its WAL');
  assert.ok(holds(file, kept) || holds(`${file}-wal`, kept), 'the salt kept is still there');

  await server.close();
  assert.ok(!holds(file, salt), 'nor after the server closed');
});
