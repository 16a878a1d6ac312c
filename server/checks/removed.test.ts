import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckBody } from '../../protocol/check.ts';
import type { CheckDetail, ServicesList } from '../../protocol/reads.ts';
import { all, int, mapper, scalar, text } from '../store/rows.ts';
import { checkColumns } from './removed.ts';
import { type Any, checkServer, fileCheck, liveConfig } from './testkit.ts';

const HOUR = 3_600_000;
const api: CheckBody = { name: 'api', service: 'core', kind: 'http', target: 'http://127.0.0.1:9/health' };
const nightly: CheckBody = { name: 'nightly', service: 'jobs', kind: 'heartbeat', everyMs: 86_400_000 };

/** The file holds `api` and `nightly`, whose ping URL was made in the panel and has been pinged once. */
async function fileWithHeartbeat() {
  const config = liveConfig({ checks: [fileCheck(0, api), fileCheck(1, nightly)] });
  const kit = await checkServer({ config: config.service });
  const { engine, inject } = kit;
  const id = engine.all().find((e) => e.rec.name === 'nightly')!.rec.id;
  const made = await inject('POST', `/api/v1/checks/${id}/ping-url`);
  assert.equal(made.status, 201);
  const ping = new URL((made.body as Any).url).pathname;
  assert.equal((await inject('GET', ping)).status, 200);
  const reload = async (checks: ReturnType<typeof fileCheck>[]) => {
    config.reload({ checks });
    await engine.reconcile();
    await engine.flush();
  };
  const services = async () =>
    ((await inject('GET', '/api/v1/services')).body as ServicesList).services.map((s) => s.name);
  const beats = async (checkId: string) =>
    ((await inject('GET', `/api/v1/checks/${checkId}/detail`)).body as CheckDetail).beats.map(
      (b) => b.detail,
    );
  return { ...kit, id, ping, reload, services, beats };
}

test('a file check taken out and put back within a day keeps its id, history and ping URL; its service goes and comes back', async (t) => {
  const { server, clock, engine, inject, id, ping, reload, services, beats } = await fileWithHeartbeat();
  t.after(() => server.dispose());
  assert.deepEqual(await beats(id), ['ping']);
  assert.deepEqual(await services(), ['core', 'jobs']);

  await reload([fileCheck(0, api)]);
  assert.equal(engine.get(id), undefined, 'no longer scheduled');
  assert.equal((await inject('GET', `/api/v1/checks/${id}`)).status, 404);
  assert.equal((await inject('GET', ping)).status, 404);
  assert.deepEqual(await services(), ['core'], 'a service without checks goes');
  assert.equal((await inject('GET', '/api/v1/services/jobs')).status, 404);

  await clock.advance(HOUR);
  await reload([fileCheck(0, api), fileCheck(1, nightly)]);
  assert.equal(engine.all().find((e) => e.rec.name === 'nightly')?.rec.id, id, 'same check');
  assert.deepEqual((await beats(id))[0], 'ping', 'its history is back');
  assert.deepEqual(await services(), ['core', 'jobs']);
  assert.equal((await inject('GET', ping)).status, 200, 'the ping URL made in the panel still works');
  assert.equal((await beats(id)).at(-1), 'ping');
});

test('a file check taken out is purged with its history after a day; put back later it is a new check', async (t) => {
  const { server, clock, engine, id, ping, reload, inject } = await fileWithHeartbeat();
  t.after(() => server.dispose());
  const db = server.deps.store.read;
  const runsOf = (checkId: string) =>
    scalar(db, 'SELECT count(*) FROM check_runs WHERE check_id = ?', int, checkId) +
    scalar(db, 'SELECT count(*) FROM check_rollups WHERE check_id = ?', int, checkId);
  assert.ok(runsOf(id) > 0);

  await reload([fileCheck(0, api)]);
  await clock.advance(23 * HOUR);
  assert.ok(runsOf(id) > 0, 'kept for a day');
  await clock.advance(2 * HOUR); // the hourly cleanup after the day
  await engine.flush();
  assert.equal(runsOf(id), 0, 'runs and rollups are gone');
  assert.equal(scalar(db, 'SELECT count(*) FROM removed_checks', int), 0);

  await reload([fileCheck(0, api), fileCheck(1, nightly)]);
  const again = engine.all().find((e) => e.rec.name === 'nightly')!.rec.id;
  assert.notEqual(again, id);
  assert.equal((await inject('GET', ping)).status, 404, 'the old ping URL went with it');
});

test('a file check moved to another service leaves no empty service behind', async (t) => {
  const config = liveConfig({ checks: [fileCheck(0, api)] });
  const { server, engine, inject } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  config.reload({ checks: [fileCheck(0, { ...api, service: 'edge' })] });
  await engine.reconcile();
  const list = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.deepEqual(
    list.services.map((s) => [s.name, s.checks.length]),
    [['edge', 1]],
  );
});

test('removed_checks keeps every column of checks', async (t) => {
  const { server } = await checkServer();
  t.after(() => server.dispose());
  const columns = mapper({ name: text }, (r) => r.name);
  const of = (table: string) =>
    all(server.deps.store.read, `SELECT name FROM pragma_table_info('${table}')`, columns);
  assert.deepEqual(of('checks'), checkColumns.split(', '));
  assert.deepEqual(of('removed_checks'), [...checkColumns.split(', '), 'removed_at']);
});
