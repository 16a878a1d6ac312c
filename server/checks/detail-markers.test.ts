import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckDetail, Created } from '../../protocol/reads.ts';
import { statement } from '../store/statements.ts';
import { checkServer, liveConfig } from './testkit.ts';

/** The check detail carries the deploys and changes its chart marks. */

const HOUR = 3_600_000;

test('the detail carries deploys of its service and changes of its service, its hosts or nothing, in range', async (t) => {
  const service = { name: 'shop', hosts: ['web-1'], sites: [], dependsOn: [], tier: 'standard' };
  const config = liveConfig({ services: [service] });
  const { server, clock, inject } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  const body = {
    name: 'home',
    service: 'shop',
    kind: 'http',
    target: 'http://127.0.0.1:9/',
    everyMs: 60_000,
  };
  const { id } = (await inject('POST', '/api/v1/checks', body)).body as Created;
  await clock.advance(3 * HOUR);
  const now = clock.now();
  await server.deps.store.writer.run((db) => {
    const deploy = statement(
      db,
      `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
       VALUES (?, ?, ?, 'ci', 'https://ci.example/run', NULL, 'api', 'api', NULL)`,
    );
    deploy.run('shop', 'v1', now - 2 * HOUR);
    deploy.run('shop', 'v0', now - 30 * HOUR);
    deploy.run('db', '15.2', now - HOUR);
    const change = statement(
      db,
      `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
       VALUES (?, 'change', ?, ?, ?, NULL, NULL, NULL, 'api')`,
    );
    change.run(now - 90 * 60_000, 'migration 0042', 'shop', null);
    change.run(now - 80 * 60_000, 'kernel update', null, 'web-1');
    change.run(now - 70 * 60_000, 'DNS moved', null, null);
    change.run(now - 60 * 60_000, 'index rebuilt', 'db', null);
    change.run(now - 50 * 60_000, 'disk swapped', null, 'web-9');
  });

  const day = (await inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  assert.deepEqual(
    day.deploys.map((d) => [d.service, d.version, d.by, d.url]),
    [['shop', 'v1', 'ci', 'https://ci.example/run']],
  );
  assert.deepEqual(
    day.changes.map((c) => c.what),
    ['migration 0042', 'kernel update', 'DNS moved'],
  );
  const hour = (await inject('GET', `/api/v1/checks/${id}/detail?range=1h`)).body as CheckDetail;
  assert.deepEqual(hour.deploys, []);
  assert.deepEqual(hour.changes, []);
  const week = (await inject('GET', `/api/v1/checks/${id}/detail?range=7d`)).body as CheckDetail;
  assert.deepEqual(
    week.deploys.map((d) => d.version),
    ['v0', 'v1'],
  );
});
