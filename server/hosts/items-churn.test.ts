import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSample, UnitSample } from '../../protocol/agent.ts';
import { queryPlan } from '../store/query-plan.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { DISMISSED_LIVE_SQL } from './item-counts.ts';
import { ITEM_BY_KEY_SQL, LIVE_ITEMS_SQL } from './items.ts';
import { container, hostServer, IMAGE_B, itemId, sample, T0, unit } from './testkit.ts';

/**
 * A host whose containers and units come and go (a CI runner) keeps its gone items a day: a sample
 * reads the host's live items and, by key, the gone ones it lists again, never the day's gone rows
 * (DESIGN rule 4: what a job costs follows what it carries).
 */

test("a sample's reads of the host's items: the live ones along their index, a gone one by its key", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const plan = (sql: string) => kit.server.deps.store.writer.run((db) => queryPlan(db, sql));
  assert.deepEqual(await plan(LIVE_ITEMS_SQL), ['SEARCH host_items USING INDEX host_items_live (host=?)']);
  assert.deepEqual(await plan(ITEM_BY_KEY_SQL), [
    'SEARCH host_items USING PRIMARY KEY (host=? AND kind=? AND name=?)',
  ]);
  assert.deepEqual(await plan(DISMISSED_LIVE_SQL), [
    'SEARCH i USING INDEX host_items_live (host=?)',
    'SEARCH d USING PRIMARY KEY (id=?)',
  ]);
});

const itemRow = mapper({ firstSeen: int, updatedAt: int, goneAt: nullable(int) });
const countsRow = mapper({ containers: int, units: int, discovered: int });

test('among thousands of gone items, one listed again comes back with its history: events, deploys, dismissal, counts', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('ci-1');
  const at = (i: number) => T0 + i * 15_000;
  const job = (k: number, over: Partial<ContainerSample> = {}) =>
    container({ name: `job-${k}`, image: 'ci/job:1', ...over });
  const run = (k: number, over: Partial<UnitSample> = {}) => unit({ name: `run-r${k}.service`, ...over });
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
  const send = async (i: number, containers: ContainerSample[], units: UnitSample[]) => {
    const res = await kit.send(token, [sample(at(i), { containers, units })]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const row = (kind: 'container' | 'unit', name: string) =>
    one(
      kit.db,
      'SELECT first_seen, updated_at, gone_at FROM host_items WHERE host = ? AND kind = ? AND name = ?',
      itemRow,
      'ci-1',
      kind,
      name,
    );

  await send(
    0,
    [container(), ...range(0, 1500).map((k) => job(k))],
    [unit(), ...range(0, 500).map((k) => run(k))],
  );
  const dismissed = await kit.inject('POST', '/api/v1/discovered/dismiss', {
    ids: [itemId('ci-1', 'container', 'job-3')],
  });
  assert.equal(dismissed.status, 204);
  await send(
    1,
    [container(), ...range(1500, 3000).map((k) => job(k))],
    [unit(), ...range(500, 1000).map((k) => run(k))],
  );
  await send(2, [container()], [unit()]);
  assert.equal(
    kit.count("SELECT count(*) AS n FROM host_items WHERE host = 'ci-1' AND gone_at IS NOT NULL"),
    4000,
  );
  assert.deepEqual(row('container', 'job-7'), { firstSeen: at(0), updatedAt: at(0), goneAt: at(1) });

  // Back: job-3 (dismissed while listed), job-7 on a new image, run-r5 failed; run-r900 never left.
  await send(
    3,
    [container({ restarts: 1 }), job(3), job(7, { image: 'ci/job:2', imageId: IMAGE_B })],
    [unit(), run(5, { state: 'failed', subState: 'failed' })],
  );
  assert.deepEqual(row('container', 'job-7'), { firstSeen: at(0), updatedAt: at(3), goneAt: null });
  assert.deepEqual(row('unit', 'run-r5.service'), { firstSeen: at(0), updatedAt: at(3), goneAt: null });
  assert.deepEqual(row('unit', 'run-r900.service'), { firstSeen: at(1), updatedAt: at(1), goneAt: at(2) });
  assert.equal(kit.count("SELECT count(*) AS n FROM host_items WHERE host = 'ci-1' AND gone_at IS NULL"), 5);

  const events = kit.db.prepare('SELECT ts, kind, subject FROM host_events ORDER BY subject').all();
  assert.deepEqual(
    events.map((e) => ({ ...e })),
    [
      { ts: at(3), kind: 'restart', subject: 'api' },
      { ts: at(3), kind: 'unit_failed', subject: 'run-r5.service' },
    ],
    'the unit that came back failed is compared with its gone row',
  );
  const changes = kit.db.prepare('SELECT ts, what FROM changes').all();
  assert.deepEqual(
    changes.map((c) => ({ ...c })),
    [{ ts: at(3), what: 'container job-7 started from a new image ci/job:2 (bbbbbbbbbbbb)' }],
    'the container that came back on a new image is a change of its host',
  );
  assert.deepEqual(
    one(kit.db, "SELECT containers, units, discovered FROM host_item_counts WHERE host = 'ci-1'", countsRow),
    { containers: 3, units: 2, discovered: 4 },
    'job-3 came back still dismissed',
  );
  const host = await kit.inject('GET', '/api/v1/hosts/ci-1');
  assert.deepEqual(
    host.body.discovered.map((d: { name: string }) => d.name),
    ['api', 'job-7', 'nginx.service', 'run-r5.service'],
  );
});
