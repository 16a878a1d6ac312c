import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSample, UnitSample } from '../../protocol/agent.ts';
import type { HostsList } from '../../protocol/hosts.ts';
import { liveConfig } from '../checks/testkit.ts';
import { fileService } from '../incidents/testkit.ts';
import { int, mapper, one } from '../store/rows.ts';
import { container, hostServer, itemId, sample, T0, unit } from './testkit.ts';

const countsRow = mapper({ containers: int, units: int, discovered: int });

/**
 * web-1, added through the API, sends its samples through the real ingest; the hosts list's counts are
 * compared with those ingest kept, at each step.
 */
async function counted() {
  const config = liveConfig({ services: [fileService('files')] });
  const kit = await hostServer({ config: config.service });
  const token = await kit.addHost('web-1');
  let n = 0;
  const send = async (containers: ContainerSample[] | null, units: UnitSample[] | null) => {
    const res = await kit.send(token, [sample(T0 + n++ * 15_000, { containers, units })]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const listed = async () => {
    const hosts = ((await kit.inject('GET', '/api/v1/hosts')).body as HostsList).hosts;
    const h = hosts.find((host) => host.name === 'web-1')!;
    return { containers: h.containers, units: h.units, discovered: h.discovered };
  };
  const kept = () =>
    one(
      kit.db,
      'SELECT containers, units, discovered FROM host_item_counts WHERE host = ?',
      countsRow,
      'web-1',
    );
  return { ...kit, config, send, listed, kept };
}

test('the hosts list counts containers, units and discovered items as ingest keeps them: through a sample, a dismissal, an item gone and a host monitored', async (t) => {
  const kit = await counted();
  t.after(() => kit.server.dispose());
  const files = container({ name: 'files-web', labels: { 'mon.service': 'files' } });
  const expect = async (counts: { containers: number; units: number; discovered: number }, why: string) => {
    assert.deepEqual(kit.kept(), counts, `${why}: kept by ingest`);
    assert.deepEqual(await kit.listed(), counts, `${why}: listed`);
  };

  await kit.send([container({ name: 'blog' }), container({ name: 'redis' }), files], [unit()]);
  await expect(
    { containers: 3, units: 1, discovered: 3 },
    'added: blog, redis and nginx.service of no service',
  );

  const dismissed = await kit.inject('POST', '/api/v1/discovered/dismiss', {
    ids: [itemId('web-1', 'container', 'redis')],
  });
  assert.equal(dismissed.status, 204);
  await expect({ containers: 3, units: 1, discovered: 2 }, 'redis dismissed');

  await kit.send([container({ name: 'blog' }), files], null);
  await expect({ containers: 2, units: 1, discovered: 2 }, 'redis gone; no systemd answered: the unit stays');
  await kit.send([container({ name: 'blog' }), files], []);
  await expect({ containers: 2, units: 0, discovered: 1 }, 'the unit gone');

  const monitored = await kit.inject('POST', '/api/v1/discovered/monitor', {
    host: 'web-1',
    service: 'blog-site',
    check: null,
  });
  assert.equal(monitored.status, 201);
  await expect({ containers: 2, units: 0, discovered: 0 }, 'web-1 runs one service: blog belongs to it');
});

test('counts kept under other services are not used: a service named like a container takes it at once, and the next sample keeps the new count', async (t) => {
  const kit = await counted();
  t.after(() => kit.server.dispose());
  await kit.send([container({ name: 'blog' }), container({ name: 'redis' })], [unit()]);
  assert.deepEqual(await kit.listed(), { containers: 2, units: 1, discovered: 3 });

  kit.config.reload({ services: [fileService('files'), fileService('redis')] });
  assert.deepEqual(kit.kept(), { containers: 2, units: 1, discovered: 3 }, 'kept under the old services');
  assert.deepEqual(await kit.listed(), { containers: 2, units: 1, discovered: 2 }, 'redis belongs to redis');
  await kit.send([container({ name: 'blog' }), container({ name: 'redis' })], [unit()]);
  assert.deepEqual(kit.kept(), { containers: 2, units: 1, discovered: 2 });
});
