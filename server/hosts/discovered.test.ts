// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a literal ${NAME} reference in a check target
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostRead, HostsList, Monitored } from '../../protocol/hosts.ts';
import type { LiveKey } from '../../protocol/live.ts';
import type { Overview } from '../../protocol/overview.ts';
import type { ServiceRead, ServicesList } from '../../protocol/reads.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import { fileService, incidentServer } from '../incidents/testkit.ts';
import { all, mapper, text } from '../store/rows.ts';
import type { TestServer } from '../testing.ts';
import { container, itemId, sample, storeSample, unit } from './testkit.ts';

/** web-1, added through the API, runs containers blog and redis and unit nginx.service, of no service. */
async function withItems() {
  const config = liveConfig({ services: [fileService('files', [], ['db-1'])] });
  const kit = await checkServer({ config: config.service });
  assert.equal((await kit.inject('POST', '/api/v1/hosts', { name: 'web-1' })).status, 201);
  const itemsSample = () =>
    sample(kit.clock.now(), {
      containers: [container({ name: 'blog' }), container({ name: 'redis' })],
      units: [unit({ name: 'nginx.service' })],
    });
  await storeSample(kit.server, 'web-1', itemsSample());
  const host = async () => (await kit.inject('GET', '/api/v1/hosts/web-1')).body as HostRead;
  return { ...kit, itemsSample, host };
}

const linkRow = mapper({ service: text, host: text });
const links = (server: TestServer) =>
  all(server.deps.store.read, 'SELECT service, host FROM service_hosts ORDER BY service', linkRow);
const serviceNames = async (inject: Awaited<ReturnType<typeof checkServer>>['inject']) =>
  ((await inject('GET', '/api/v1/services')).body as ServicesList).services.map((s) => s.name);

test('a dismissed item is no longer discovered, also when its agent lists it again', async (t) => {
  const { server, inject, clock, itemsSample, host } = await withItems();
  t.after(() => server.dispose());
  assert.deepEqual(
    (await host()).discovered.map((d) => d.name),
    ['blog', 'redis', 'nginx.service'],
  );
  const redis = itemId('web-1', 'container', 'redis');
  const nginx = itemId('web-1', 'unit', 'nginx.service');
  const res = await inject('POST', '/api/v1/discovered/dismiss', { ids: [redis, nginx] });
  assert.equal(res.status, 204, res.text);
  assert.deepEqual(
    (await host()).discovered.map((d) => d.name),
    ['blog'],
  );
  await clock.advance(15_000);
  await storeSample(server, 'web-1', itemsSample());
  const again = await host();
  assert.deepEqual(
    again.discovered.map((d) => d.name),
    ['blog'],
  );
  assert.equal(again.containers.length, 2, 'dismissed items are still listed with the host');
  const list = (await inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.equal(list.hosts.find((h) => h.name === 'web-1')?.discovered, 1);
  // Dismissing twice changes nothing.
  assert.equal((await inject('POST', '/api/v1/discovered/dismiss', { ids: [redis] })).status, 204);
});

test('dismiss refuses malformed and unknown ids, naming the field, and dismisses nothing', async (t) => {
  const { server, inject, host } = await withItems();
  t.after(() => server.dispose());
  const blog = itemId('web-1', 'container', 'blog');
  const cases: [unknown, RegExp][] = [
    [{ ids: ['xyz'] }, /^ids\[0\]: must be ids of discovered items/],
    [{ ids: [] }, /^ids: /],
    [{ ids: blog }, /^ids: /],
    [{}, /^ids: required/],
    [{ ids: [blog, '0123456789abcdef'] }, /^ids\[1\]: no container or unit has this id/],
  ];
  for (const [body, detail] of cases) {
    const res = await inject('POST', '/api/v1/discovered/dismiss', body);
    assert.equal(res.status, 422, res.text);
    assert.match((res.body as Any).detail, detail);
  }
  assert.equal((await host()).discovered.length, 3);
});

test('monitoring creates the service, links the host and its items belong to the service', async (t) => {
  const { server, inject, host } = await withItems();
  t.after(() => server.dispose());
  const res = await inject('POST', '/api/v1/discovered/monitor', {
    host: 'web-1',
    service: 'blog',
    check: null,
  });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.body as Monitored, { service: 'blog', check: null });
  assert.deepEqual(links(server), [{ service: 'blog', host: 'web-1' }]);
  const services = ((await inject('GET', '/api/v1/services')).body as ServicesList).services;
  assert.deepEqual(
    services.map((s) => [s.name, s.managed, s.checks.length]),
    [
      ['blog', false, 0],
      ['files', true, 0],
    ],
  );
  // web-1 runs one service now: its every item belongs to it.
  const read = await host();
  assert.deepEqual(read.services, ['blog']);
  assert.deepEqual(read.discovered, []);
  assert.deepEqual(
    read.containers.map((c) => [c.name, c.service]),
    [
      ['blog', 'blog'],
      ['redis', 'blog'],
    ],
  );
  const list = (await inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.deepEqual(list.hosts.find((h) => h.name === 'web-1')?.services, ['blog']);
  // Again: nothing new, the same answer.
  const again = await inject('POST', '/api/v1/discovered/monitor', { host: 'web-1', service: 'blog' });
  assert.equal(again.status, 201, again.text);
  assert.equal(links(server).length, 1);
});

test('monitoring with a check adds it as POST /checks would, and it runs at once', async (t) => {
  const { server, inject, engine, script } = await withItems();
  t.after(() => server.dispose());
  const check = {
    name: 'blog-home',
    service: 'blog',
    kind: 'http',
    target: 'http://127.0.0.1:9/',
    everyMs: 10_000,
  };
  const res = await inject('POST', '/api/v1/discovered/monitor', { host: 'web-1', service: 'blog', check });
  assert.equal(res.status, 201, res.text);
  const { check: id } = res.body as Monitored;
  assert.match(id ?? '', /^[0-9a-f]{16}$/);
  await engine.flush();
  assert.equal(engine.get(id!)?.rec.service, 'blog');
  assert.equal(script.runs, 1);
  const definition = await inject('GET', `/api/v1/checks/${id}`);
  assert.deepEqual((definition.body as Any).input, check);
});

test('a refused monitor leaves no service, no link and no check behind', async (t) => {
  const { server, inject, engine } = await withItems();
  t.after(() => server.dispose());
  const taken = { name: 'taken', service: 'blog', kind: 'http', target: 'http://127.0.0.1:9/' };
  assert.equal((await inject('POST', '/api/v1/checks', taken)).status, 201);
  const check = { name: 'shop-home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/' };
  const cases: [unknown, number, RegExp][] = [
    // Refused inside the writer job, after the service would have been made.
    [
      { host: 'web-1', service: 'shop', check: { ...check, name: 'taken' } },
      409,
      /a check named "taken" exists/,
    ],
    [
      { host: 'web-1', service: 'shop', check: { ...check, from: 'web-9' } },
      422,
      /^check\.from: no host named "web-9"/,
    ],
    [{ host: 'web-9', service: 'shop', check: null }, 422, /^host: no host named "web-9"/],
    // The file's services and names held by checks.
    [{ host: 'web-1', service: 'files', check: null }, 409, /"files" is defined in mon\.toml/],
    [{ host: 'web-1', service: 'taken', check: null }, 409, /a check named "taken" exists/],
    [{ host: 'web-1', service: 'shop', check: { ...check, name: 'shop' } }, 409, /its service/],
    // The check's own values, named as fields of `check`.
    [{ host: 'web-1', service: 'shop', check: { ...check, everyMs: 5000 } }, 422, /^check\.everyMs: /],
    [{ host: 'web-1', service: 'shop', check: { ...check, command: 'true' } }, 422, /^check\.command: /],
    [
      { host: 'web-1', service: 'shop', check: { ...check, headers: { 'X-Key': null } } },
      422,
      /^check\.headers\.X-Key: /,
    ],
    [
      { host: 'web-1', service: 'shop', check: { ...check, target: 'http://${KEY}/' } },
      422,
      /^check\.target: /,
    ],
    [
      { host: 'web-1', service: 'shop', check: { ...check, service: 'other' } },
      422,
      /^check\.service: must be the service monitored/,
    ],
    [{ host: 'web-1', check: null }, 422, /^service: required/],
  ];
  for (const [body, status, detail] of cases) {
    const res = await inject('POST', '/api/v1/discovered/monitor', body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    assert.match((res.body as Any).detail, detail);
  }
  assert.deepEqual(await serviceNames(inject), ['blog', 'files']);
  assert.deepEqual(links(server), []);
  assert.deepEqual(
    engine.all().map((e) => e.rec.name),
    ['taken'],
  );
});

test('a linked service keeps its name when its last check goes', async (t) => {
  const { server, inject } = await withItems();
  t.after(() => server.dispose());
  const check = { name: 'blog-home', service: 'blog', kind: 'http', target: 'http://127.0.0.1:9/' };
  const made = await inject('POST', '/api/v1/discovered/monitor', { host: 'web-1', service: 'blog', check });
  const id = (made.body as Monitored).check;
  assert.equal((await inject('DELETE', `/api/v1/checks/${id}`)).status, 204);
  assert.deepEqual(await serviceNames(inject), ['blog', 'files'], 'web-1 is still linked to blog');
});

test('a host linked by monitoring is part of its service for incidents: its maintenance window marks them', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const { inject, clock } = kit;
  assert.equal((await inject('POST', '/api/v1/hosts', { name: 'web-1' })).status, 201);
  assert.equal(
    (await inject('POST', '/api/v1/discovered/monitor', { host: 'web-1', service: 'shop', check: null }))
      .status,
    201,
  );
  const home = await kit.check('home', 'shop');
  const window = await inject('POST', '/api/v1/maintenance', {
    scope: 'host',
    name: 'web-1',
    starts: clock.now(),
    ends: clock.now() + 3_600_000,
  });
  assert.equal(window.status, 201, window.text);
  await kit.fail(home);
  const [incident] = await kit.list();
  assert.equal(incident?.inMaintenance, true);
});

test('a linked host is a host of its service in every read: the lists, the service, its maintenance', async (t) => {
  const { server, inject, clock, engine, script } = await withItems();
  t.after(() => server.dispose());
  const check = {
    name: 'blog-home',
    service: 'blog',
    kind: 'http',
    target: 'http://127.0.0.1:9/',
    everyMs: 60_000,
  };
  const made = await inject('POST', '/api/v1/discovered/monitor', { host: 'web-1', service: 'blog', check });
  assert.equal(made.status, 201, made.text);
  await engine.flush();
  const services = ((await inject('GET', '/api/v1/services')).body as ServicesList).services;
  assert.deepEqual(
    services.map((s) => [s.name, s.hosts]),
    [
      ['blog', ['web-1']],
      ['files', ['db-1']],
    ],
  );
  const blog = async () => (await inject('GET', '/api/v1/services/blog')).body as ServiceRead;
  assert.deepEqual((await blog()).hosts, ['web-1']);
  assert.equal((await blog()).maintenance, null);

  // A maintenance window of web-1 holds blog: its screens reload, and its reads say so.
  const published: LiveKey[][] = [];
  const stop = server.deps.bus.subscribe((keys) => published.push([...keys]));
  t.after(stop);
  await clock.advance(30_000);
  const ends = clock.now() + 3_600_000;
  const window = await inject('POST', '/api/v1/maintenance', {
    scope: 'host',
    name: 'web-1',
    starts: clock.now(),
    ends,
  });
  assert.equal(window.status, 201, window.text);
  assert.deepEqual(published.pop()?.sort(), ['overview', 'service:blog']);
  assert.equal((await blog()).maintenance?.until, ends);
  const overview = (await inject('GET', '/api/v1/overview')).body as Overview;
  assert.equal(overview.services.find((s) => s.name === 'blog')?.maintenance?.until, ends);
  // A failed run inside the window counts neither way: blog's uptime stays that of its first run.
  script.outcome = { status: 'down', latencyMs: null, detail: 'refused' };
  await clock.advance(31_000);
  await engine.flush();
  assert.equal(script.runs, 2);
  assert.equal((await blog()).uptime.day, 100);
  const listed = ((await inject('GET', '/api/v1/services')).body as ServicesList).services;
  assert.equal(listed.find((s) => s.name === 'blog')?.uptime.day, 100);
});
