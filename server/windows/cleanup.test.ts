import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import { staticConfig } from '../config/service.ts';
import type { Deps } from '../deps.ts';
import { DomainEvents } from '../events.ts';
import { Bus } from '../live/bus.ts';
import { silentLog } from '../log.ts';
import { createMetrics } from '../metrics.ts';
import { openStore } from '../store/db.ts';
import { tempDir } from '../testing.ts';
import { createWindows, KEEP_ENDED_MS } from './feature.ts';
import { windowOf } from './read.ts';
import { insertWindow } from './store.ts';

/**
 * The windows feature alone on a real store (no other feature's timers), so that a fake clock can run
 * through a year of hourly cleanups quickly.
 */

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

test('an hourly cleanup deletes silences 30 days after they end and maintenance windows after 400', async (t) => {
  const { dir, remove } = tempDir();
  const clock = new FakeClock(T0);
  const store = openStore(join(dir, 'mon.db'));
  const deps: Deps = Object.freeze({
    store,
    clock,
    bus: new Bus(),
    events: new DomainEvents(),
    metrics: createMetrics(),
    config: staticConfig(),
    log: silentLog,
    env: {},
    dataDir: dir,
  });
  const { feature } = createWindows(deps);
  t.after(async () => {
    await feature.stop?.();
    await store.close();
    remove();
  });
  const base = { scope: 'all' as const, name: null, reason: null, createdBy: 'test' };
  await store.writer.run((db) => {
    insertWindow(db, { ...base, id: 'a'.repeat(16), kind: 'silence', starts: T0, ends: T0 + HOUR }, T0);
    insertWindow(db, { ...base, id: 'b'.repeat(16), kind: 'maintenance', starts: T0, ends: T0 + HOUR }, T0);
    insertWindow(db, { ...base, id: 'c'.repeat(16), kind: 'silence', starts: T0, ends: T0 + 40 * DAY }, T0);
  });
  await feature.start?.();
  const exists = (id: string) => windowOf(store.read, id.repeat(16), clock.now()) !== null;

  // The first cleanup after the silence has been over for 30 days removes it.
  await clock.advance(HOUR + KEEP_ENDED_MS.silence - HOUR);
  assert.ok(exists('a'), 'not yet: the cleanup runs on the hour');
  await clock.advance(2 * HOUR);
  assert.ok(!exists('a'), 'ended 30 days ago: gone');
  assert.ok(exists('b'), 'maintenance stays: the year uptime leaves its time out');
  assert.ok(exists('c'), 'still in force');

  await clock.advance(KEEP_ENDED_MS.maintenance - 30 * DAY - 2 * HOUR);
  assert.ok(exists('b'));
  assert.ok(!exists('c'), 'ended more than 30 days ago');
  await clock.advance(2 * HOUR);
  assert.ok(!exists('b'), 'ended 400 days ago: gone');
});
