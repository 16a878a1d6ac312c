import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSample, UnitSample } from '../../protocol/agent.ts';
import { container, hostServer, sample, T0, unit } from './testkit.ts';

const MiB = 1024 * 1024;

test('a container or unit row is written when it changed or its CPU or memory moved, not at every sample', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const at = (i: number) => T0 + i * 15_000;
  const send = async (i: number, c: Partial<ContainerSample>, u: Partial<UnitSample> = {}) =>
    assert.equal(
      (await kit.send(token, [sample(at(i), { containers: [container(c)], units: [unit(u)] })])).status,
      200,
    );
  const row = (name: string) =>
    kit.db
      .prepare('SELECT updated_at, cpu, memory, health, restarts FROM host_items WHERE name = ?')
      .get(name) as {
      updated_at: number;
      cpu: number;
      memory: number;
      health: string | null;
      restarts: number;
    };

  await send(0, { cpu: 12.5, memory: 200 * MiB });
  // CPU within a point, memory within 1 %: the charts get the sample, the rows stay as they were.
  await send(1, { cpu: 13.2, memory: 201 * MiB }, { cpu: 1.9, memory: 30.1 * MiB });
  assert.deepEqual([row('api').updated_at, row('api').cpu], [at(0), 12.5]);
  assert.equal(row('nginx.service').updated_at, at(0));
  assert.equal(
    kit.count("SELECT cpu_n AS n FROM item_rollups WHERE name = 'api' AND res = 'm' AND bucket = ?", T0),
    2,
  );

  await send(2, { cpu: 20, memory: 201 * MiB }, { restarts: 1 });
  assert.deepEqual([row('api').updated_at, row('api').cpu], [at(2), 20], 'CPU moved 7.5 points');
  assert.deepEqual([row('nginx.service').updated_at, row('nginx.service').restarts], [at(2), 1]);
  await send(3, { cpu: 20, memory: 201 * MiB, health: 'unhealthy' }, { restarts: 1 });
  assert.deepEqual([row('api').updated_at, row('api').health], [at(3), 'unhealthy']);
  assert.equal(row('nginx.service').updated_at, at(2));
  await send(4, { cpu: 20, memory: 220 * MiB, health: 'unhealthy' }, { restarts: 1 });
  assert.deepEqual([row('api').updated_at, row('api').memory], [at(4), 220 * MiB], 'memory moved 9 %');
});
