import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Overview } from '../../protocol/overview.ts';
import type { CheckDefinitionRead, CheckDetail, ServiceRead } from '../../protocol/reads.ts';
import { defaultHostAlerts } from '../hosts/config.ts';
import { applyDeclaration } from '../hosts/declarations.ts';
import { fileService } from '../incidents/testkit.ts';
import { type Any, addHost, checkServer, liveConfig } from './testkit.ts';

const disk = { name: 'disk', service: 'storage', command: 'df -P /', everyMs: 60_000, timeoutMs: 5_000 };

test('a command check reads as its host declared it; the API refuses to change or delete it (409)', async (t) => {
  const { server, clock, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  await addHost(server, 'web-1');
  await server.deps.store.writer.run((_db, tx) =>
    applyDeclaration({ engine, config: server.deps.config }, tx, 'web-1', {
      kind: 'declare',
      ts: clock.now(),
      checks: [disk],
      problems: [],
    }),
  );
  const id = engine.all()[0]!.rec.id;
  const input = { ...disk, kind: 'command', from: 'web-1' };
  assert.deepEqual((await inject('GET', `/api/v1/checks/${id}`)).body, {
    id,
    managed: false,
    hostDefined: true,
    input: {
      name: 'disk',
      service: 'storage',
      kind: 'command',
      command: 'df -P /',
      from: 'web-1',
      everyMs: 60_000,
      timeoutMs: 5_000,
    },
  } satisfies CheckDefinitionRead);

  // The agent's runs: exit code for the status, the number printed for the value series.
  await engine.recordRun(
    id,
    { status: 'up', latencyMs: 30, detail: '/ is 71% full', value: 71 },
    clock.now(),
  );
  await clock.advance(20_000);
  await engine.recordRun(
    id,
    { status: 'up', latencyMs: 34, detail: '/ is 73% full', value: 73 },
    clock.now(),
  );
  const detail = (await inject('GET', `/api/v1/checks/${id}/detail?range=1h`)).body as CheckDetail;
  assert.equal(detail.check.kind, 'command');
  assert.equal(detail.check.status, 'up');
  assert.equal(detail.check.hostDefined, true);
  assert.equal(detail.check.from, 'web-1');
  assert.equal(detail.check.lastDetail, '/ is 73% full');
  assert.equal(detail.check.lastValue, 73);
  assert.equal(detail.check.everyMs, 60_000);
  assert.deepEqual(
    detail.series.value.filter((v) => v !== null),
    [72],
  );
  assert.deepEqual(
    detail.beats.map((b) => b.detail),
    ['/ is 71% full', '/ is 73% full'],
  );

  const service = (await inject('GET', '/api/v1/services/storage')).body as ServiceRead;
  assert.deepEqual(
    service.checks.map((c) => [c.name, c.kind, c.hostDefined, c.from]),
    [['disk', 'command', true, 'web-1']],
  );
  const overview = (await inject('GET', '/api/v1/overview')).body as Overview;
  assert.deepEqual(
    overview.services.map((s) => [s.name, s.checks.map((c) => `${c.name}:${c.kind}:${c.status}`)]),
    [['storage', ['disk:command:up']]],
  );
  const metrics = (await inject('GET', '/metrics')).text;
  assert.match(metrics, /^mon_check_up\{check="disk",service="storage",kind="command"\} 1$/m);

  // Changed only in checks.toml: 409 whatever the body, and nothing changes.
  const other = { name: 'disk', service: 'storage', kind: 'tcp', target: '127.0.0.1:9' };
  for (const body of [other, input, { nonsense: true }]) {
    const res = await inject('PUT', `/api/v1/checks/${id}`, body);
    assert.equal(res.status, 409, JSON.stringify(body));
    assert.match((res.body as Any).detail, /checks\.toml of host web-1/);
  }
  assert.equal((await inject('DELETE', `/api/v1/checks/${id}`)).status, 409);
  assert.equal((await inject('POST', `/api/v1/checks/${id}/ping-url`)).status, 422);
  assert.deepEqual(((await inject('GET', `/api/v1/checks/${id}`)).body as Any).input, input);
  assert.equal(engine.get(id)!.rec.kind, 'command');
});

test('stored command checks are taken in at start and never run by the server', async (t) => {
  const first = await checkServer();
  await addHost(first.server, 'web-1');
  await first.server.deps.store.writer.run((_db, tx) =>
    applyDeclaration({ engine: first.engine, config: first.server.deps.config }, tx, 'web-1', {
      kind: 'declare',
      ts: first.clock.now(),
      checks: [disk],
      problems: [],
    }),
  );
  await first.server.close();
  const { server, clock, engine, script } = await checkServer({
    dataDir: first.server.dataDir,
    clock: first.clock,
  });
  t.after(() => server.dispose());
  const [entry] = engine.all();
  assert.equal(entry?.def.kind, 'command');
  assert.equal(entry.def.from, 'web-1');
  await clock.advance(300_000);
  assert.equal(script.runs, 0);
  await engine.recordRun(entry.rec.id, { status: 'down', latencyMs: 12, detail: 'exit 2' }, clock.now());
  assert.equal(engine.get(entry.rec.id)!.rec.lastDetail, 'exit 2');
});

test('a check’s from must name a known host: 422 otherwise, in POST and PUT', async (t) => {
  const config = liveConfig({
    hosts: [{ name: 'file-host', alerts: defaultHostAlerts }],
    services: [fileService('edge', [], ['edge-host'])],
  });
  const { server, inject } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  const body = { name: 'db', service: 'core', kind: 'tcp', target: 'db.internal:5432', from: 'web-1' };
  let res = await inject('POST', '/api/v1/checks', body);
  assert.equal(res.status, 422);
  assert.equal(
    (res.body as Any).detail,
    'from: no host named "web-1": add it with POST /api/v1/hosts or name it in mon.toml',
  );
  assert.equal((await inject('GET', '/api/v1/services/core')).status, 404, 'nothing stored');

  await addHost(server, 'web-1');
  res = await inject('POST', '/api/v1/checks', body);
  assert.equal(res.status, 201);
  const { id } = res.body as Any;
  // Hosts of mon.toml count: a [[host]] and a service's hosts.
  for (const from of ['file-host', 'edge-host']) {
    assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...body, from })).status, 200, from);
  }
  res = await inject('PUT', `/api/v1/checks/${id}`, { ...body, from: 'web-9' });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^from: no host named "web-9"/);
  assert.equal(((await inject('GET', `/api/v1/checks/${id}`)).body as Any).input.from, 'edge-host');
  // No from: the server runs it.
  assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...body, from: null })).status, 200);
});

test('a [[check]] whose from names no known host is an error of mon.toml until the host is added', async (t) => {
  const { server, engine } = await checkServer();
  t.after(() => server.dispose());
  writeFileSync(
    join(server.dataDir, 'mon.toml'),
    '[[check]]\nname = "db"\nservice = "core"\ntcp = "db.internal:5432"\nfrom = "web-1"\n',
  );
  server.deps.config.reload();
  assert.equal(
    server.deps.config.error(),
    'check[0].from: no host named "web-1": add it with POST /api/v1/hosts, or name it in a [[host]] or a service\'s hosts',
  );
  await addHost(server, 'web-1');
  server.deps.config.reload();
  assert.equal(server.deps.config.error(), null);
  await engine.reconcile();
  assert.equal(engine.all()[0]!.def.from, 'web-1');
});

test('a reload that drops the host a panel check runs from is refused, naming the check', async (t) => {
  const { server, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const file = join(server.dataDir, 'mon.toml');
  writeFileSync(file, '[[service]]\nname = "edge"\nhosts = ["svc-host"]\n');
  server.deps.config.reload();
  assert.equal(server.deps.config.error(), null);
  const body = { name: 'db', service: 'core', kind: 'tcp', target: 'db.internal:5432', from: 'svc-host' };
  const res = await inject('POST', '/api/v1/checks', body);
  assert.equal(res.status, 201, res.text);
  const { id } = res.body as Any;

  writeFileSync(file, '');
  server.deps.config.reload();
  const error =
    'the panel check "db" runs from the host "svc-host", which this file no longer names: keep it in a [[host]] or a service\'s hosts, add it with POST /api/v1/hosts, or change the check\'s from (the whole file is rejected until then)';
  assert.equal(((await inject('GET', '/api/v1/config/status')).body as Any).error, error);
  // The file in force stays: svc-host is still a host, and the check still runs from it.
  assert.equal((await inject('GET', '/api/v1/hosts/svc-host')).status, 200);
  assert.equal(engine.get(id)!.def.from, 'svc-host');

  // Once the check runs from elsewhere, the file loads.
  assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...body, from: null })).status, 200);
  server.deps.config.reload();
  assert.equal(server.deps.config.error(), null);
  assert.equal((await inject('GET', '/api/v1/hosts/svc-host')).status, 404);
});
