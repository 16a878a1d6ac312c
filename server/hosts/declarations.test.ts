import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeclaredCheck } from '../../protocol/agent.ts';
import type { CheckBody } from '../../protocol/check.ts';
import type { CheckConflict } from '../../protocol/hosts.ts';
import type { HistoryPage, ServicesList } from '../../protocol/reads.ts';
import { panelServiceNames } from '../checks/store.ts';
import { type Any, addHost, checkServer, fileCheck, liveConfig } from '../checks/testkit.ts';
import type { LiveConfig } from '../config/service.ts';
import { fileService } from '../incidents/testkit.ts';
import { all, bool, int, json, mapper, nullable, text } from '../store/rows.ts';
import { applyDeclaration, checkConflictsOf, declarationOf } from './declarations.ts';

const api: CheckBody = { name: 'api', service: 'core', kind: 'http', target: 'http://127.0.0.1:9/health' };
const cmd = (name: string, service: string, command = `check-${name}`): DeclaredCheck => ({
  name,
  service,
  command,
  everyMs: 60_000,
  timeoutMs: 10_000,
});

const checkRow = mapper({
  id: text,
  name: text,
  service: text,
  kind: text,
  managed: bool,
  hostDefined: bool,
  updatedAt: int,
  body: json<Record<string, unknown>>(),
});
const changeRow = mapper({ service: text, status: nullable(text), title: text, detail: text });

/** A server whose mon.toml is `initial` (the test reloads it), with hosts web-1 and web-2 added. */
async function declarationServer(initial: Partial<LiveConfig> = {}) {
  const config = liveConfig(initial);
  const kit = await checkServer({ config: config.service });
  const { server, clock } = kit;
  await addHost(server, 'web-1');
  await addHost(server, 'web-2');
  const declare = (host: string, checks: DeclaredCheck[], problems: string[] = []) =>
    server.deps.store.writer.run((_db, tx) =>
      applyDeclaration({ engine: kit.engine, config: server.deps.config }, tx, host, {
        kind: 'declare',
        ts: clock.now(),
        checks,
        problems,
      }),
    );
  const commandChecks = () =>
    all(
      server.deps.store.read,
      'SELECT id, name, service, kind, managed, host_defined, updated_at, body FROM checks WHERE host_defined = 1 ORDER BY name',
      checkRow,
    );
  const conflicts = (host: string): CheckConflict[] =>
    checkConflictsOf(server.deps.store.read, server.deps.config.current(), host);
  return { ...kit, config, declare, commandChecks, conflicts };
}

test('a declaration adds command checks, moves them as the API does, and removes those no longer declared (their alerts close)', async (t) => {
  const { server, clock, engine, script, inject, declare, commandChecks } = await declarationServer();
  t.after(() => server.dispose());
  const removed: string[] = [];
  server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'check.removed') removed.push(e.name);
  });

  // A job that fails after the declaration leaves neither rows nor checks in memory.
  const failed = server.deps.store.writer.run((_db, tx) => {
    const frame = {
      kind: 'declare' as const,
      ts: clock.now(),
      checks: [cmd('disk', 'storage')],
      problems: [],
    };
    applyDeclaration({ engine, config: server.deps.config }, tx, 'web-1', frame);
    throw new Error('the rest of the frames failed');
  });
  await assert.rejects(failed, /the rest of the frames failed/);
  assert.deepEqual(commandChecks(), []);
  assert.equal(engine.all().length, 0);
  assert.equal(declarationOf(server.deps.store.read, 'web-1'), null);

  await declare('web-1', [cmd('disk', 'storage'), cmd('backup', 'jobs')], ['line 9: no command']);
  const [backup, disk] = commandChecks();
  assert.deepEqual(
    { ...disk!, id: undefined, updatedAt: undefined },
    {
      id: undefined,
      name: 'disk',
      service: 'storage',
      kind: 'command',
      managed: false,
      hostDefined: true,
      updatedAt: undefined,
      body: {
        name: 'disk',
        service: 'storage',
        kind: 'command',
        command: 'check-disk',
        from: 'web-1',
        everyMs: 60_000,
        timeoutMs: 10_000,
      },
    },
  );
  assert.equal(backup!.name, 'backup');
  assert.deepEqual(declarationOf(server.deps.store.read, 'web-1'), {
    ts: clock.now(),
    checks: [cmd('disk', 'storage'), cmd('backup', 'jobs')],
    problems: ['line 9: no command'],
  });
  // In the engine once committed, never run by the server: the agent runs them.
  assert.equal(engine.get(disk!.id)!.def.kind, 'command');
  await clock.advance(180_000);
  assert.equal(script.runs, 0);
  const services = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.deepEqual(
    services.services.map((s) => [s.name, s.checks.map((c) => `${c.name}:${c.kind}`)]),
    [
      ['jobs', ['backup:command']],
      ['storage', ['disk:command']],
    ],
  );

  // The same declaration again changes nothing; a new service moves the check with its id.
  await clock.advance(60_000);
  await declare('web-1', [cmd('disk', 'storage'), cmd('backup', 'jobs')]);
  assert.deepEqual(commandChecks(), [backup, disk]);
  await declare('web-1', [cmd('disk', 'system', 'df -P /'), cmd('backup', 'jobs')]);
  const moved = commandChecks().find((c) => c.name === 'disk')!;
  assert.equal(moved.id, disk!.id);
  assert.equal(moved.service, 'system');
  assert.equal(moved.body.command, 'df -P /');
  assert.equal(engine.get(disk!.id)!.rec.service, 'system');
  assert.deepEqual(
    all(server.deps.store.read, 'SELECT service, status, title, detail FROM check_changes', changeRow),
    [{ service: 'storage', status: null, title: 'moved to service system', detail: 'from service storage' }],
  );
  const history = (await inject('GET', `/api/v1/checks/${disk!.id}/history`)).body as HistoryPage;
  assert.deepEqual(
    history.items.map((i) => i.title),
    ['moved to service system'],
  );
  const after = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.deepEqual(
    after.services.map((s) => s.name),
    ['jobs', 'system'],
    'the emptied service went',
  );

  // A failing backup opens an incident; taken out of checks.toml, it is removed and the alert closes.
  const run = (status: 'up' | 'down') =>
    engine.recordRun(backup!.id, { status, latencyMs: 40, detail: 'exit 1' }, clock.now());
  await run('down');
  await clock.advance(10_000);
  await run('down');
  let incidents = (await inject('GET', '/api/v1/incidents')).body as Any;
  assert.equal(incidents.incidents[0].state, 'open');
  await declare('web-1', [cmd('disk', 'system', 'df -P /')]);
  assert.deepEqual(
    commandChecks().map((c) => c.name),
    ['disk'],
  );
  assert.equal(engine.get(backup!.id), undefined);
  assert.deepEqual(removed, ['backup']);
  incidents = (await inject('GET', '/api/v1/incidents')).body as Any;
  assert.equal(incidents.incidents[0].state, 'resolved');
  assert.equal((await inject('GET', `/api/v1/checks/${backup!.id}`)).status, 404);
});

test('names held by mon.toml, the panel or another host are conflicts; a name freed is free, and taken at the next declaration', async (t) => {
  const { server, inject, declare, commandChecks, conflicts } = await declarationServer({
    services: [fileService('edge')],
    checks: [fileCheck(0, api), fileCheck(1, { ...api, name: 'api2' })],
  });
  t.after(() => server.dispose());
  const home = await inject('POST', '/api/v1/checks', {
    name: 'home',
    service: 'shop',
    kind: 'tcp',
    target: '127.0.0.1:9',
  });
  assert.equal(home.status, 201);
  await declare('web-2', [cmd('nightly', 'batch'), cmd('weekly', 'batch')]);
  assert.deepEqual(conflicts('web-2'), []);

  await declare(
    'web-1',
    [
      cmd('api2', 'misc'),
      cmd('core', 'misc'),
      cmd('edge', 'misc'),
      cmd('beside-api', 'api'),
      cmd('home', 'misc'),
      cmd('shop', 'misc'),
      cmd('weekly', 'misc'),
      cmd('in-batch', 'nightly'),
      cmd('batch', 'misc'),
      cmd('disk', 'misc'),
      cmd('disk', 'other'),
      cmd('misc', 'elsewhere'),
    ],
    [],
  );
  assert.deepEqual(conflicts('web-1'), [
    { name: 'api2', with: 'file', host: null },
    { name: 'core', with: 'file', host: null },
    { name: 'edge', with: 'file', host: null },
    { name: 'beside-api', with: 'file', host: null },
    { name: 'home', with: 'panel', host: null },
    { name: 'shop', with: 'panel', host: null },
    { name: 'weekly', with: 'host', host: 'web-2' },
    { name: 'in-batch', with: 'host', host: 'web-2' },
    { name: 'batch', with: 'host', host: 'web-2' },
  ]);
  assert.deepEqual(
    commandChecks().map((c) => `${c.name}@${c.body.from}`),
    ['disk@web-1', 'nightly@web-2', 'weekly@web-2'],
  );
  // Problems of the declaration itself are the agent's to fix: shown with its own.
  assert.deepEqual(declarationOf(server.deps.store.read, 'web-1')?.problems, [
    'check "disk": declared twice; only the first is used',
    'check "misc": also the name of a service; checks and services need different names',
  ]);

  // The panel check goes: its name and its service are free, and the next declaration takes them.
  assert.equal((await inject('DELETE', `/api/v1/checks/${(home.body as Any).id}`)).status, 204);
  const declared = declarationOf(server.deps.store.read, 'web-1')!.checks;
  assert.deepEqual(
    conflicts('web-1').filter((c) => c.with === 'free'),
    [
      { name: 'home', with: 'free', host: null },
      { name: 'shop', with: 'free', host: null },
    ],
  );
  await declare('web-1', declared);
  assert.deepEqual(
    conflicts('web-1').map((c) => c.name),
    ['api2', 'core', 'edge', 'beside-api', 'weekly', 'in-batch', 'batch'],
  );
  assert.deepEqual(
    commandChecks().map((c) => `${c.name}@${c.body.from}`),
    ['disk@web-1', 'home@web-1', 'nightly@web-2', 'shop@web-1', 'weekly@web-2'],
  );
});

test('mon.toml taking a host check’s name (or service) wins at once; the host check comes back once the file lets go', async (t) => {
  const { server, engine, config, declare, commandChecks, conflicts } = await declarationServer();
  t.after(() => server.dispose());
  const removed: string[] = [];
  server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'check.removed') removed.push(e.name);
  });
  const declared = [cmd('disk', 'storage'), cmd('temp', 'sensors'), cmd('load', 'system')];
  await declare('web-1', declared);
  assert.equal(commandChecks().length, 3);
  // A service only hosts' checks use is no panel service: the file may take its name.
  assert.deepEqual(panelServiceNames(server.deps.store), []);

  config.reload({
    checks: [fileCheck(0, { ...api, name: 'disk' }), fileCheck(1, { ...api, name: 'sensors', service: 'x' })],
  });
  await engine.reconcile();
  assert.deepEqual(
    commandChecks().map((c) => c.name),
    ['load'],
  );
  assert.deepEqual(removed.sort(), ['disk', 'temp']);
  const disk = engine.all().find((e) => e.rec.name === 'disk')!;
  assert.equal(disk.rec.managed, true, 'the file check took the name');
  assert.deepEqual(conflicts('web-1'), [
    { name: 'disk', with: 'file', host: null },
    { name: 'temp', with: 'file', host: null },
  ]);
  // The agent's next declaration changes nothing while the file holds them.
  await declare('web-1', declared);
  assert.equal(engine.get(disk.rec.id)!.rec.managed, true);
  assert.equal(conflicts('web-1').length, 2);

  config.reload({ checks: [] });
  await engine.reconcile();
  assert.deepEqual(conflicts('web-1'), [
    { name: 'disk', with: 'free', host: null },
    { name: 'temp', with: 'free', host: null },
  ]);
  await declare('web-1', declared);
  assert.deepEqual(conflicts('web-1'), []);
  assert.deepEqual(
    commandChecks().map((c) => c.name),
    ['disk', 'load', 'temp'],
  );
});
