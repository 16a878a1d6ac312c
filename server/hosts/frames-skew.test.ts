import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLog } from '../testing.ts';
import { container, GiB, hello, hostServer, sample, T0, unit } from './testkit.ts';

/** What a newer agent may send that this server's word lists do not have: the sample is kept. */

test('a container or unit in a state this server does not know is left out alone and counted; the sample is kept', async (t) => {
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
  assert.deepEqual(items, [
    // A health this server does not know reads as none reported.
    { kind: 'container', name: 'api', state: 'running', health: null },
    { kind: 'unit', name: 'nginx.service', state: 'active', health: null },
  ]);
  // The host's CPU and memory with it: the sample in its four resolutions.
  assert.equal(kit.count("SELECT count(*) AS n FROM host_rollups WHERE host = 'web-1'"), 4);
  const metrics = await kit.server.deps.metrics.text();
  assert.match(metrics, /mon_agent_unknown_frames_total 2/);
  assert.match(metrics, /mon_ingest_rejected_total\{reason="invalid"\} 0/);
  const logged = memory.lines().filter((l) => String(l.message).startsWith('agent sample items skipped'));
  assert.equal(logged.length, 1);
  assert.equal(
    logged[0]?.message,
    'agent sample items skipped: a state this server does not know (frames[1].containers[0].state: checkpointed)',
  );
  assert.equal(logged[0]?.items, 2);
  // A value that is wrong, not new (a state that is not text), still skips the sample alone.
  const broken = await kit.send(token, [sample(T0 + 15_000, { units: [{ ...unit(), state: 7 as never }] })]);
  assert.deepEqual(broken.body, { stored: 0, skipped: 1 });
});
