import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type {
  CheckDefinitionRead,
  CheckDetail,
  Created,
  HistoryPage,
  ServiceRead,
  ServicesList,
} from '../../protocol/reads.ts';
import { staticConfig } from '../config/service.ts';
import { addToRollups } from './rollups.ts';
import { type Any, checkServer } from './testkit.ts';

const T0 = Date.UTC(2026, 0, 1);
const web = { name: 'home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/', everyMs: 10_000 };

test('POST /checks validates, names the field, refuses command and conflicts, and runs at once', async (t) => {
  const { server, script, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  let res = await inject('POST', '/api/v1/checks', { ...web, everyMs: 5000 });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^everyMs: /);
  res = await inject('POST', '/api/v1/checks', { ...web, command: 'true' });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^command: /);
  res = await inject('POST', '/api/v1/checks', { ...web, expect: [{ status: 'abc' }] });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^expect\[0\]\.status/);

  res = await inject('POST', '/api/v1/checks', web);
  assert.equal(res.status, 201);
  const { id } = res.body as Created;
  assert.match(id, /^[0-9a-f]{16}$/);
  await engine.flush();
  assert.equal(script.runs, 1, 'a new check runs at once');
  assert.equal(engine.get(id)!.rec.state.status, 'up');

  assert.equal((await inject('POST', '/api/v1/checks', { ...web, service: 'other' })).status, 409);
  // A check may not take the name of another service, nor a service the name of another check.
  assert.equal(
    (await inject('POST', '/api/v1/checks', { ...web, name: 'other2', service: 'home' })).status,
    409,
  );
  // Not even its own service's name: names are unique across checks, heartbeats and services.
  assert.equal((await inject('POST', '/api/v1/checks', { ...web, name: 'shop' })).status, 409);

  res = await inject('GET', `/api/v1/checks/${id}`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { id, managed: false, hostDefined: false, input: web } as CheckDefinitionRead);
  assert.equal((await inject('GET', '/api/v1/checks/0000000000000000')).status, 404);
  assert.equal((await inject('GET', '/api/v1/checks/0000000000000000/detail')).status, 404);
  assert.equal((await inject('GET', '/api/v1/checks/0000000000000000/history')).status, 404);
});

test('a check goes down after two failed runs and recovers after two successes and 3 minutes', async (t) => {
  const { server, clock, script, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const transitions: string[] = [];
  server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'check.transition') transitions.push(`${e.from}->${e.to}`);
  });
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Any;
  await clock.advance(0);
  script.outcome = { status: 'down', latencyMs: null, detail: 'connection refused' };
  await clock.advance(10_000);
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  await clock.advance(10_000);
  assert.equal(engine.get(id)!.rec.state.status, 'down');
  script.outcome = { status: 'up', latencyMs: 80, detail: '200 OK' };
  await clock.advance(170_000);
  assert.equal(engine.get(id)!.rec.state.status, 'down', 'not yet 3 minutes');
  // Down, but recovering: since the first success (30 s), up at 210 s if the runs keep passing.
  await engine.flush();
  const recovering = { since: T0 + 30_000, upAt: T0 + 210_000 };
  const during = (await inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  assert.deepEqual(during.check.recovering, recovering);
  const listed = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.deepEqual(listed.services[0]!.checks[0]!.recovering, recovering);
  await clock.advance(10_000);
  assert.equal(engine.get(id)!.rec.state.status, 'down', '3 minutes since the first success only at 210 s');
  await clock.advance(10_000);
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  assert.equal(clock.now(), recovering.upAt, 'up when the read said');
  assert.deepEqual(transitions, ['unknown->up', 'up->down', 'down->up']);
  await engine.flush();

  const detail = (await inject('GET', `/api/v1/checks/${id}/detail?range=1h`)).body as CheckDetail;
  assert.equal(detail.check.id, id);
  assert.equal(detail.check.status, 'up');
  assert.equal(detail.check.recovering, null);
  assert.deepEqual(detail.service, { name: 'shop', status: 'up' });
  assert.equal(detail.beats.length, 22);
  assert.ok(detail.beats[0]!.ts < detail.beats[21]!.ts, 'oldest first');
  assert.deepEqual(Object.keys(detail.beats[0]!), ['ts', 'status', 'latencyMs', 'detail']);
  assert.equal(detail.uptime?.day, Math.round((20 / 22) * 100_000) / 1000);
  assert.equal(detail.series.stepMs, 60_000);
  assert.equal(detail.series.x.length, 61, 'a partial first step');
  assert.deepEqual(detail.series.value, []);
  assert.equal(detail.expiry, null);
  assert.equal(typeof detail.dayAverageMs, 'number');

  const history = (await inject('GET', `/api/v1/checks/${id}/history`)).body as HistoryPage;
  assert.deepEqual(
    history.items.map((i) => `${i.kind}:${i.status}`),
    ['change:up', 'change:down', 'failure:down', 'failure:down', 'change:up'],
  );
  assert.equal(history.next, null);
  assert.equal((await inject('GET', `/api/v1/checks/${id}/history?limit=0`)).status, 422);
  assert.equal((await inject('GET', `/api/v1/checks/${id}/history?limit=101`)).status, 422);
  const page = (await inject('GET', `/api/v1/checks/${id}/history?limit=2`)).body as HistoryPage;
  // The change and the failure at 20 s share a timestamp: the page stops before them.
  assert.equal(page.items.length, 1);
  const rest = (await inject('GET', `/api/v1/checks/${id}/history?limit=2&before=${page.next}`))
    .body as HistoryPage;
  assert.deepEqual(
    rest.items.map((i) => `${i.kind}:${i.status}`),
    ['change:down', 'failure:down'],
  );
});

test('detail range rules give 422 with the field', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Created;
  const status = async (q: string) => (await inject('GET', `/api/v1/checks/${id}/detail?${q}`)).status;
  assert.equal(await status('range=2h'), 422);
  assert.equal(await status('range=toString'), 422);
  assert.equal(await status('range=__proto__'), 422);
  assert.equal(await status('range=1h&from=1&to=2'), 422);
  assert.equal(await status('from=1'), 422);
  assert.equal(await status('from=5&to=4'), 422);
  assert.equal(await status(`from=0&to=${401 * 86_400_000}`), 422);
  assert.equal(await status(`from=0&to=${400 * 86_400_000}`), 200);
  const y = (await inject('GET', `/api/v1/checks/${id}/detail?range=1y`)).body as CheckDetail;
  assert.equal(y.series.stepMs, 86_400_000);
});

test('PUT moves a check with a change row; DELETE removes it; services read', async (t) => {
  const { server, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Created;
  await engine.flush();
  assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...web, everyMs: 5 })).status, 422);
  assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...web, service: 'blog' })).status, 200);
  await engine.flush();
  const history = (await inject('GET', `/api/v1/checks/${id}/history`)).body as HistoryPage;
  assert.equal(history.items[0]?.title, 'moved to service blog');

  const list = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.deepEqual(
    list.services.map((s) => [s.name, s.status, s.checks.length]),
    [['blog', 'up', 1]],
    'the service the check left had no other check and is gone',
  );
  const blog = (await inject('GET', '/api/v1/services/blog')).body as ServiceRead;
  assert.equal(blog.checks[0]?.id, id);
  assert.equal(blog.checks[0]?.target, web.target);
  assert.deepEqual(Object.keys(blog.uptime), ['day', 'month', 'year']);
  assert.equal((await inject('GET', '/api/v1/services/nope')).status, 404);

  assert.equal((await inject('DELETE', `/api/v1/checks/${id}`)).status, 204);
  assert.equal((await inject('GET', `/api/v1/checks/${id}`)).status, 404);
  assert.equal((await inject('DELETE', `/api/v1/checks/${id}`)).status, 404);
  const left = server.deps.store.read
    .prepare('SELECT count(*) AS n FROM check_runs WHERE check_id = ?')
    .get(id) as Any;
  assert.equal(left.n, 0);
});

test('reads hide literal header values; PUT with null keeps them; POST with null is refused', async (t) => {
  // Panel checks may use the variables mon.toml lists for them.
  const config = staticConfig({ checkSettings: { apiEnv: ['API_TOKEN'] } });
  const { server, engine, inject } = await checkServer({ config });
  t.after(() => server.dispose());
  const reference = ['$', '{API_TOKEN}'].join('');
  const body = { ...web, headers: { 'X-Auth': 'secret-value', Authorization: reference } };
  let res = await inject('POST', '/api/v1/checks', body);
  assert.equal(res.status, 201);
  const { id } = res.body as Created;
  res = await inject('GET', `/api/v1/checks/${id}`);
  assert.deepEqual((res.body as Any).input.headers, { 'X-Auth': null, Authorization: reference });
  assert.doesNotMatch(JSON.stringify(res.body), /secret-value/);

  // The panel sends back what it read: the stored value stays.
  res = await inject('PUT', `/api/v1/checks/${id}`, {
    ...web,
    everyMs: 20_000,
    headers: (res.body as Any).input.headers,
  });
  assert.equal(res.status, 200);
  const stored = engine.get(id)!.rec.body;
  assert.equal(stored.kind === 'command' ? null : stored.headers?.['X-Auth'], 'secret-value');
  res = await inject('PUT', `/api/v1/checks/${id}`, { ...web, headers: { 'X-Other': null } });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^headers\.X-Other: /);
  res = await inject('POST', '/api/v1/checks', { ...web, name: 'fresh', headers: { 'X-Auth': null } });
  assert.equal(res.status, 422);
  assert.match((res.body as Any).detail, /^headers\.X-Auth: /);
});

test('a panel service no check uses any more goes away and frees its name', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  let res = await inject('POST', '/api/v1/checks', { ...web, name: 'probe', service: 'tmp' });
  const { id } = res.body as Created;
  assert.equal((await inject('POST', '/api/v1/checks', { ...web, name: 'tmp' })).status, 409);
  assert.equal((await inject('DELETE', `/api/v1/checks/${id}`)).status, 204);
  assert.equal((await inject('GET', '/api/v1/services/tmp')).status, 404);
  res = await inject('POST', '/api/v1/checks', { ...web, name: 'tmp' });
  assert.equal(res.status, 201);
  // Moving the last check out of a service removes the service too.
  const moved = (res.body as Created).id;
  res = await inject('PUT', `/api/v1/checks/${moved}`, { ...web, name: 'tmp', service: 'elsewhere' });
  assert.equal(res.status, 200);
  assert.equal((await inject('GET', '/api/v1/services/shop')).status, 404);
});

test('detail of a check that has not run: uptime null, no beats, empty series values', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const beat = { name: 'nightly', service: 'jobs', kind: 'heartbeat', everyMs: 86_400_000 };
  const { id } = (await inject('POST', '/api/v1/checks', beat)).body as Created;
  const detail = (await inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  assert.equal(detail.uptime, null);
  assert.deepEqual(detail.beats, []);
  assert.equal(detail.dayAverageMs, null);
  assert.deepEqual(detail.series.value, []);
});

test('renaming a panel check lets a mon.toml rejected for its name load at once', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', { ...web, name: 'coll' })).body as Created;
  writeFileSync(
    join(server.dataDir, 'mon.toml'),
    '[[check]]\nname = "coll"\nservice = "files"\ntcp = "127.0.0.1:9"\n',
  );
  server.deps.config.reload();
  assert.match(server.deps.config.error() ?? '', /coll/);
  const res = await inject('PUT', `/api/v1/checks/${id}`, { ...web, name: 'coll-renamed' });
  assert.equal(res.status, 200);
  assert.equal(server.deps.config.error(), null);
  assert.ok(server.deps.config.current().managed.checks.has('coll'));
});

test('a check changed while its run is in flight keeps running on its new schedule', async (t) => {
  const { server, clock, script, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  let release = () => {};
  script.gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Created;
  await clock.advance(0);
  assert.equal(script.runs, 1, 'the first run is in flight');
  assert.equal((await inject('PUT', `/api/v1/checks/${id}`, { ...web, everyMs: 20_000 })).status, 200);
  script.gate = null;
  release();
  await engine.flush();
  const before = script.runs;
  await clock.advance(60_000);
  await engine.flush();
  assert.ok(script.runs >= before + 3, `runs went on: ${before} then ${script.runs}`);
  assert.notEqual(engine.get(id)!.rec.lastRunAt, null);
});

test('day uptime and average count no run from before the last 24 hours, alike in every read', async (t) => {
  const { server, clock, script, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  script.outcome = { status: 'up', latencyMs: 100, detail: '200 OK' };
  const { id } = (await inject('POST', '/api/v1/checks', { ...web, everyMs: 7 * 86_400_000 }))
    .body as Created;
  await engine.flush();
  // Not aligned to a minute, 10 minutes or an hour.
  await clock.advance(2 * 86_400_000 + 37 * 60_000 + 31_000);
  const now = clock.now();
  const from = now - 86_400_000;
  // One run a minute: down (5000 ms) for 2 hours before the window, up (100 ms) inside it.
  await server.deps.store.writer.run((db) => {
    for (let ts = from - 2 * 3_600_000; ts < now; ts += 60_000) {
      const isDown = ts < from;
      addToRollups(db, {
        checkId: id,
        ts,
        status: isDown ? 'down' : 'up',
        latencyMs: isDown ? 5000 : 100,
        value: null,
      });
    }
  });
  const detail = (await inject('GET', `/api/v1/checks/${id}/detail`)).body as CheckDetail;
  assert.equal(detail.uptime?.day, 100);
  assert.equal(detail.dayAverageMs, 100);
  const list = (await inject('GET', '/api/v1/services')).body as ServicesList;
  assert.equal(list.services[0]?.uptime.day, 100);
  const service = (await inject('GET', '/api/v1/services/shop')).body as ServiceRead;
  assert.equal(service.uptime.day, 100);
  // The month and year hold the down runs, and the first run.
  assert.ok(service.uptime.month !== null && service.uptime.month < 100);
  assert.equal(service.uptime.month, detail.uptime?.month);
});

test('an unaligned from/to span of 400 days gives at most 400 points', async (t) => {
  const { server, clock, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Created;
  const to = clock.now() - 3_600_000 - 17;
  const from = to - 400 * 86_400_000;
  const detail = (await inject('GET', `/api/v1/checks/${id}/detail?from=${from}&to=${to}`))
    .body as CheckDetail;
  assert.ok(detail.series.x.length <= 400, `${detail.series.x.length} points`);
  assert.ok(detail.series.x[0]! <= from);
});
