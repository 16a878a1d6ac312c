import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigExport, ConfigStatus } from '../../protocol/config.ts';
import type { ServiceRead } from '../../protocol/reads.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { int, scalar } from '../store/rows.ts';
import { createTestServer } from '../testing.ts';
import { agents, BRITISH_ADDRESS, view } from './testkit.ts';

const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

/**
 * docs/analytics.md "Adding a site", docs/configuration.md "Names and collisions" and "Export": a
 * `[[service]]` may take the name of a panel service that owns a site added through the API. The site
 * stays the service's and keeps taking events; the export writes the table with the file's sites only;
 * the service taken out of the file again is a panel service with its site.
 */
test('a file service that takes over a panel service keeps its API site working; the export writes the file’s sites', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const server = await createTestServer({
    clock,
    authenticate: async (request) => (request.url.startsWith('/api/') ? admin : null),
  });
  t.after(() => server.dispose());
  const file = join(server.dataDir, 'mon.toml');
  const get = async <T>(url: string) => (await server.app.inject({ url })).json<T>();
  const reload = (text: string) => {
    writeFileSync(file, text);
    server.deps.config.reload();
  };
  const send = async (domain: string) =>
    (
      await server.app.inject({
        method: 'POST',
        url: '/e',
        remoteAddress: BRITISH_ADDRESS,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': agents.chromeWindows },
        payload: JSON.stringify(view({ d: domain, u: `https://${domain}/` })),
      })
    ).statusCode;
  const views = (domain: string) =>
    scalar(server.deps.store.read, 'SELECT count(*) FROM analytics_views WHERE site = ?', int, domain);

  const added = await server.app.inject({
    method: 'POST',
    url: '/api/v1/sites',
    payload: { domain: 'shop.example', service: 'shop' },
  });
  assert.equal(added.statusCode, 201, added.body);
  assert.equal(await send('shop.example'), 204);

  reload('[[service]]\nname = "shop"\nsites = ["blog.example"]\ntier = "critical"\n');
  await server.checks.engine.reconcile();
  assert.deepEqual(await get<ConfigStatus>('/api/v1/config/status'), { error: null, inForce: 'file' });
  const shop = await get<ServiceRead>('/api/v1/services/shop');
  assert.deepEqual([shop.managed, shop.sites], [true, ['blog.example', 'shop.example']]);
  assert.equal(await send('shop.example'), 204, 'the API site keeps taking events');
  assert.equal(await send('blog.example'), 204);
  assert.deepEqual([views('shop.example'), views('blog.example')], [2, 1]);
  const { toml } = await get<ConfigExport>('/api/v1/config/export');
  assert.match(toml, /name = "shop"\nsites = \[ "blog\.example" \]/);
  assert.doesNotMatch(toml, /"shop\.example"/, 'the API site stays out of the export');
  const again = await server.app.inject({
    method: 'POST',
    url: '/api/v1/sites',
    payload: { domain: 'news.example', service: 'shop' },
  });
  assert.equal(again.statusCode, 409, 'new sites of a file service go in the file');

  // Taken out of the file, the service is a panel service again, held by its API site.
  reload('');
  await server.checks.engine.reconcile();
  const back = await get<ServiceRead>('/api/v1/services/shop');
  assert.deepEqual([back.managed, back.sites], [false, ['shop.example']]);
  assert.equal(await send('shop.example'), 204);
  assert.equal(await send('blog.example'), 404, 'the file’s site went with the file');
  assert.equal(views('shop.example'), 3);
});
