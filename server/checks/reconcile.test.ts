import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CheckBody } from '../../protocol/check.ts';
import { FakeClock } from '../clock.ts';
import { silentLog } from '../log.ts';
import { createServer, type Server } from '../start.ts';
import { tempDir } from '../testing.ts';
import { hashToken } from './ping-tokens.ts';
import { checksForExport, panelCheckNames } from './store.ts';
import { type Any, checkServer, fileCheck, liveConfig } from './testkit.ts';

const api: CheckBody = { name: 'api', service: 'core', kind: 'http', target: 'http://127.0.0.1:9/health' };
const beat: CheckBody = { name: 'cron', service: 'core', kind: 'heartbeat', everyMs: 600_000 };
const token = `btp_${'a'.repeat(32)}`;

test('file checks are taken in, kept, changed, removed; file services are managed; file tokens stay', async (t) => {
  const config = liveConfig({
    services: [{ name: 'core', hosts: [], sites: [], dependsOn: [], tier: null }],
    checks: [fileCheck(0, api), fileCheck(1, beat, token)],
  });
  const { server, engine, inject, script } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  const byName = (name: string) => engine.all().find((e) => e.rec.name === name)!;
  const apiId = byName('api').rec.id;
  const beatId = byName('cron').rec.id;
  assert.equal(byName('api').rec.managed, true);
  assert.equal(script.runs, 1, 'a new file check runs at once');

  // Managed: the API refuses changes; the file token is never replaced and works.
  assert.equal((await inject('PUT', `/api/v1/checks/${apiId}`, { ...api, everyMs: 20_000 })).status, 409);
  assert.equal((await inject('DELETE', `/api/v1/checks/${apiId}`)).status, 409);
  assert.equal((await inject('POST', `/api/v1/checks/${beatId}/ping-url`)).status, 409);
  assert.equal((await inject('GET', `/ping/${token}`)).status, 200);
  assert.deepEqual((await inject('GET', `/api/v1/checks/${apiId}`)).body, {
    id: apiId,
    managed: true,
    hostDefined: false,
    input: api,
  });
  const services = (await inject('GET', '/api/v1/services')).body as Any;
  assert.equal(services.services[0].managed, true);

  // A panel check beside them, for the loader's collision list and the export.
  await inject('POST', '/api/v1/checks', {
    name: 'panel one',
    service: 'web',
    kind: 'tcp',
    target: '127.0.0.1:9',
  });
  assert.deepEqual(panelCheckNames(server.deps.store), [{ name: 'panel one', source: 'panel', from: null }]);
  assert.deepEqual(
    checksForExport(server.deps.store).filter((c) => !c.managed),
    [
      {
        body: { name: 'panel one', service: 'web', kind: 'tcp', target: '127.0.0.1:9' },
        managed: false,
        pingTokenHash: null,
      },
    ],
  );

  // Reload: api changed (same id, runs at once), cron removed, a new check added.
  const runsBefore = script.runs;
  config.reload({
    services: [],
    checks: [fileCheck(0, { ...api, everyMs: 20_000 }), fileCheck(1, { ...api, name: 'api2' })],
  });
  await engine.reconcile();
  await engine.flush();
  assert.equal(byName('api').rec.id, apiId);
  assert.equal(byName('api').def.everyMs, 20_000);
  assert.equal(script.runs, runsBefore + 2);
  assert.equal(engine.get(beatId), undefined);
  assert.equal(engine.idForTokenHash(hashToken(token)), undefined);
  assert.equal((await inject('GET', `/ping/${token}`)).status, 404);
  assert.ok(byName('api2').rec.managed);
  const stored = server.deps.store.read.prepare('SELECT count(*) AS n FROM checks').get() as Any;
  assert.equal(stored.n, 3);
  // The service of file checks stays managed; a file service without checks left is a panel one.
  const core = (await inject('GET', '/api/v1/services/core')).body as Any;
  assert.equal(core.managed, true);
});

test('a file check named like a panel check is skipped', async (t) => {
  const config = liveConfig({});
  const { server, engine, inject } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', api)).body as Any;
  config.reload({ checks: [fileCheck(0, { ...api, target: 'http://127.0.0.1:9/other' })] });
  await engine.reconcile();
  assert.equal(engine.get(id)!.rec.managed, false);
  assert.equal(engine.all().length, 1);
});

test('a mon.toml rejected at start keeps its stored checks and their history until a good file loads', async () => {
  const data = tempDir();
  const configPath = join(data.dir, 'mon.toml');
  const reference = ['$', '{HB_TOKEN}'].join('');
  writeFileSync(
    configPath,
    `[[check]]\nname = "nightly"\nservice = "jobs"\nevery = "1d"\nping_token = "${reference}"\n`,
  );
  const good = { HB_TOKEN: `btp_${'b'.repeat(32)}` };
  const start = async (env: Record<string, string>) =>
    createServer({
      dataDir: data.dir,
      configPath,
      env,
      log: silentLog,
      clock: new FakeClock(Date.UTC(2026, 0, 1)),
    });
  const idOf = (server: Server) => server.checks.engine.all().find((e) => e.rec.name === 'nightly')?.rec.id;

  let server = await start(good);
  const id = idOf(server);
  assert.ok(id);
  assert.equal((await server.app.inject({ method: 'GET', url: `/ping/${good.HB_TOKEN}` })).statusCode, 200);
  await server.close();

  server = await start({}); // HB_TOKEN missing: the file is rejected
  assert.match(server.deps.config.error() ?? '', /HB_TOKEN/);
  assert.equal(idOf(server), id, 'the file check is still there');
  assert.equal((await server.app.inject({ method: 'GET', url: `/ping/${good.HB_TOKEN}` })).statusCode, 200);
  await server.close();

  server = await start(good);
  assert.equal(idOf(server), id, 'same check, same history');
  await server.close();
  data.remove();
});
