import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { WindowKind, WindowScope } from '../../protocol/notify.ts';
import { openStore } from '../store/db.ts';
import { tempDir } from '../testing.ts';
import {
  holdsAt,
  inMaintenanceAt,
  maintenanceAt,
  maintenanceBetween,
  maintenanceSpans,
  mutedBy,
  type Scope,
} from './active.ts';
import { insertWindow } from './store.ts';

/** Which windows hold a scope at a moment, read from real rows of the `windows` table. */

const T = Date.UTC(2026, 4, 1, 10);
const HOUR = 3_600_000;

async function storeWith(
  t: { after(fn: () => Promise<void>): void },
  rows: [
    id: string,
    kind: WindowKind,
    scope: WindowScope,
    name: string | null,
    starts: number,
    ends: number,
  ][],
) {
  const { dir, remove } = tempDir();
  const store = openStore(join(dir, 'mon.db'));
  t.after(async () => {
    await store.close();
    remove();
  });
  await store.writer.run((db) => {
    for (const [id, kind, scope, name, starts, ends] of rows) {
      insertWindow(db, { id, kind, scope, name, starts, ends, reason: `${id} reason`, createdBy: 'test' }, T);
    }
  });
  return store.read;
}

const shop: Scope = { services: ['shop'], hosts: ['web1', 'web2'] };
const blog: Scope = { services: ['blog'], hosts: ['web3'] };
const none: Scope = { services: ['api'], hosts: [] };

test('a window holds its service, its host or everything from its start up to (not including) its end', async (t) => {
  const db = await storeWith(t, [
    ['svc', 'silence', 'service', 'shop', T, T + HOUR],
    ['host', 'maintenance', 'host', 'web2', T + 2 * HOUR, T + 3 * HOUR],
    ['other', 'maintenance', 'service', 'blog', T, T + 3 * HOUR],
    ['otherhost', 'silence', 'host', 'web3', T, T + 3 * HOUR],
  ]);
  assert.deepEqual(holdsAt(db, shop, T - 1), [], 'before its start');
  assert.deepEqual(holdsAt(db, shop, T), [{ id: 'svc', kind: 'silence' }], 'at its start');
  assert.deepEqual(mutedBy(db, shop, T + HOUR - 1), { id: 'svc', kind: 'silence' });
  assert.equal(mutedBy(db, shop, T + HOUR), null, 'at its end it no longer holds');
  assert.equal(inMaintenanceAt(db, shop, T), false, 'a silence is no maintenance');

  // A host window holds the services of that host; windows of other services and hosts do not.
  assert.deepEqual(mutedBy(db, shop, T + 2 * HOUR), { id: 'host', kind: 'maintenance' });
  assert.equal(inMaintenanceAt(db, shop, T + 2 * HOUR), true);
  assert.equal(inMaintenanceAt(db, shop, T + 3 * HOUR), false);
  assert.equal(
    inMaintenanceAt(db, { services: ['shop'], hosts: [] }, T + 2 * HOUR),
    false,
    'shop without hosts',
  );
  assert.deepEqual(
    holdsAt(db, blog, T + 2 * HOUR).map((h) => h.id),
    ['other', 'otherhost'],
    'maintenance first',
  );
  assert.deepEqual(holdsAt(db, none, T + 2 * HOUR), []);
});

test('a window of everything holds every scope; maintenance comes before silences', async (t) => {
  const db = await storeWith(t, [
    ['quiet', 'silence', 'service', 'api', T - HOUR, T + HOUR],
    ['all', 'maintenance', 'all', null, T, T + HOUR],
  ]);
  for (const scope of [shop, blog, none, { services: [], hosts: [] }]) {
    assert.equal(inMaintenanceAt(db, scope, T), true);
    assert.equal(inMaintenanceAt(db, scope, T - 1), false);
  }
  assert.deepEqual(mutedBy(db, none, T - 1), { id: 'quiet', kind: 'silence' });
  assert.deepEqual(
    mutedBy(db, none, T),
    { id: 'all', kind: 'maintenance' },
    'the maintenance window names the hold',
  );
  assert.deepEqual(
    holdsAt(db, none, T).map((h) => h.id),
    ['all', 'quiet'],
  );
});

test('maintenance times of a scope are merged and clipped; the one in force says until when', async (t) => {
  const db = await storeWith(t, [
    ['a', 'maintenance', 'service', 'shop', T, T + 2 * HOUR],
    ['b', 'maintenance', 'host', 'web1', T + HOUR, T + 3 * HOUR],
    ['c', 'maintenance', 'all', null, T + 5 * HOUR, T + 6 * HOUR],
    ['d', 'maintenance', 'service', 'blog', T + 3 * HOUR, T + 4 * HOUR],
    ['e', 'silence', 'service', 'shop', T + 3 * HOUR, T + 4 * HOUR],
  ]);
  const windows = maintenanceBetween(db, T - HOUR, T + 10 * HOUR);
  assert.deepEqual(
    windows.map((w) => w.reason),
    ['a reason', 'b reason', 'd reason', 'c reason'],
    'maintenance only, by start',
  );
  assert.deepEqual(maintenanceBetween(db, T + 6 * HOUR, T + 7 * HOUR), [], 'ended at the start of the span');
  assert.deepEqual(maintenanceSpans(windows, shop, T - HOUR, T + 10 * HOUR), [
    { from: T, to: T + 3 * HOUR },
    { from: T + 5 * HOUR, to: T + 6 * HOUR },
  ]);
  assert.deepEqual(maintenanceSpans(windows, shop, T + 30 * 60_000, T + 5.5 * HOUR), [
    { from: T + 30 * 60_000, to: T + 3 * HOUR },
    { from: T + 5 * HOUR, to: T + 5.5 * HOUR },
  ]);
  assert.deepEqual(maintenanceSpans(windows, none, T, T + 10 * HOUR), [
    { from: T + 5 * HOUR, to: T + 6 * HOUR },
  ]);

  assert.deepEqual(maintenanceAt(windows, shop, T + 90 * 60_000), {
    until: T + 3 * HOUR,
    reason: 'b reason',
  });
  assert.equal(maintenanceAt(windows, shop, T + 3 * HOUR), null);
  assert.deepEqual(maintenanceAt(windows, blog, T + 3 * HOUR), { until: T + 4 * HOUR, reason: 'd reason' });
  assert.equal(maintenanceAt(windows, blog, T + 2 * HOUR), null);
});
