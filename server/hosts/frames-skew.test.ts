import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSample } from '../../protocol/agent.ts';
import { staticConfig } from '../config/service.ts';
import type { HostAlert } from '../events.ts';
import { memoryLog } from '../testing.ts';
import { container, GiB, hello, hostServer, sample, T0, unit } from './testkit.ts';

/** What a newer agent may send that this server's word lists do not have: the sample is kept. */

test('a container or unit in a state or health this server does not know is counted; the sample is kept', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const newer = sample(T0, {
    memory: { used: 3 * GiB, total: 8 * GiB },
    units: [unit({ name: 'backup.service', state: 'cleaning' as 'active' }), unit()],
    containers: [
      container({ name: 'db', state: 'checkpointed' as 'running' }),
      container({ name: 'api', health: 'degraded' as 'healthy' }),
    ],
  });
  const res = await kit.send(token, [hello(T0), newer]);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { stored: 2, skipped: 0 }, 'the sample is stored, not skipped');
  const items = kit.db
    .prepare('SELECT kind, name, state, health FROM host_items WHERE host = ? ORDER BY kind, name')
    .all('web-1')
    .map((row) => ({ ...row }));
  // Never seen before in a state it can read, neither is listed: there is nothing to show of them yet.
  assert.deepEqual(items, [{ kind: 'unit', name: 'nginx.service', state: 'active', health: null }]);
  // The host's CPU and memory with it: the sample in its four resolutions.
  assert.equal(kit.count("SELECT count(*) AS n FROM host_rollups WHERE host = 'web-1'"), 4);
  const metrics = await kit.server.deps.metrics.text();
  assert.match(metrics, /mon_agent_unknown_frames_total 3/);
  assert.match(metrics, /mon_ingest_rejected_total\{reason="invalid"\} 0/);
  const logged = memory.lines().filter((l) => String(l.message).startsWith('agent sample items not read'));
  assert.equal(logged.length, 1);
  assert.equal(
    logged[0]?.message,
    'agent sample items not read: a state or health this server does not know (frames[1].containers[0].state: checkpointed)',
  );
  assert.equal(logged[0]?.items, 3);
  // A value that is wrong, not new (a state that is not text), still skips the sample alone.
  const broken = await kit.send(token, [sample(T0 + 15_000, { units: [{ ...unit(), state: 7 as never }] })]);
  assert.deepEqual(broken.body, { stored: 0, skipped: 1 });
});

test('a failing container in a state this server does not know stays as last seen: no "removed", no new incident', async (t) => {
  const shop = { name: 'shop', hosts: ['web-1'], sites: [], dependsOn: [], tier: 'standard' as const };
  const kit = await hostServer({ config: staticConfig({ services: [shop] }) });
  t.after(() => kit.server.dispose());
  const alerts: HostAlert[] = [];
  kit.server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'host.alert') alerts.push(e);
  });
  const token = await kit.addHost('web-1');
  let ts = T0;
  const send = async (over: Partial<ContainerSample>) => {
    ts += 15_000;
    await kit.clock.advance(15_000);
    const api = container({ labels: { 'mon.service': 'shop' }, ...over });
    const res = await kit.send(token, [sample(ts, { containers: [api] })]);
    assert.deepEqual(res.body, { stored: 1, skipped: 0 });
  };
  const row = () =>
    kit.db
      .prepare(
        "SELECT state, health, exit_code AS exitCode, gone_at AS goneAt FROM host_items WHERE name = 'api'",
      )
      .get();
  await send({ state: 'exited', exitCode: 1 });
  assert.deepEqual(
    alerts.map((a) => [a.key, a.state, a.detail]),
    [['container:web-1:api', 'failing', 'exited with code 1']],
  );
  // 11 minutes in a state this server does not know (a newer runtime's), then exited again.
  for (let i = 0; i < 45; i++) await send({ state: 'checkpointed' as 'exited', exitCode: 1 });
  assert.deepEqual(
    { ...row() },
    { state: 'exited', health: null, exitCode: 1, goneAt: null },
    'still listed',
  );
  assert.equal(kit.count("SELECT containers AS n FROM host_item_counts WHERE host = 'web-1'"), 1, 'counted');
  await send({ state: 'exited', exitCode: 1 });
  assert.equal(alerts.length, 1, 'no "recovered: removed", and no second failing');
  // An unknown health keeps the last known: unhealthy is not read as "no health check".
  for (let i = 0; i < 10; i++) await send({ state: 'running', health: 'unhealthy' });
  assert.deepEqual(alerts.slice(1), [], 'still failing: it runs, but is unhealthy');
  for (let i = 0; i < 45; i++) await send({ state: 'running', health: 'degraded' as 'healthy' });
  assert.deepEqual(alerts.slice(1), [], 'an unknown health clears nothing');
  assert.equal((row() as { health: string }).health, 'unhealthy');
  await send({ state: 'running', health: 'healthy' });
  assert.deepEqual(
    alerts.slice(1).map((a) => [a.state, a.detail]),
    [['recovered', 'running and healthy again']],
  );
});
