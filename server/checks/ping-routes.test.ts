import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Any, checkServer } from './testkit.ts';

const beat = { name: 'backup', service: 'ops', kind: 'heartbeat', everyMs: 3_600_000, graceMs: 300_000 };

test('ping URLs: heartbeats only, a new one replaces the old, pings and pushes move the status', async (t) => {
  const { server, clock, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const web = { name: 'home', service: 'ops', kind: 'http', target: 'http://127.0.0.1:9/' };
  const { id: webId } = (await inject('POST', '/api/v1/checks', web)).body as Any;
  const notBeat = await inject('POST', `/api/v1/checks/${webId}/ping-url`);
  assert.equal(notBeat.status, 422);
  assert.match((notBeat.body as Any).detail, /^kind: /);

  const { id } = (await inject('POST', '/api/v1/checks', beat)).body as Any;
  let res = await inject('POST', `/api/v1/checks/${id}/ping-url`);
  assert.equal(res.status, 201);
  const first = res.body as Any;
  assert.equal(first.replaced, false);
  assert.match(first.url, /^http:\/\/localhost(:\d+)?\/ping\/btp_[0-9a-f]{32}$/);
  res = await inject('POST', `/api/v1/checks/${id}/ping-url`);
  const second = res.body as Any;
  assert.equal(second.replaced, true);
  const oldPath = new URL(first.url).pathname;
  const path = new URL(second.url).pathname;
  assert.equal((await inject('GET', oldPath)).status, 404, 'the old URL stops working');
  assert.equal((await inject('GET', '/ping/btp_00000000000000000000000000000000')).status, 404);
  assert.equal((await inject('GET', `${path}/256`)).status, 404);
  assert.equal((await inject('GET', `${path}/log`)).status, 404);

  res = await inject('GET', path);
  assert.equal(res.status, 200);
  assert.equal(res.text, 'OK');
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  assert.equal((await inject('POST', `${path}/3`)).status, 200);
  assert.equal(engine.get(id)!.rec.state.status, 'down');
  assert.equal((await inject('HEAD', `${path}/0`)).status, 200);
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  const form = await server.app.inject({
    method: 'POST',
    url: `${path}/fail`,
    payload: 'output=disk full',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(form.statusCode, 200);
  assert.equal(engine.get(id)!.rec.state.status, 'down');

  const token = path.split('/')[2];
  res = await inject('GET', `/api/push/${token}?status=up&msg=fine&ping=42`);
  assert.deepEqual(res.body, { ok: true });
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  assert.equal(engine.get(id)!.rec.lastLatencyMs, 42);
  res = await inject('POST', `/api/push/${token}?status=down`);
  assert.deepEqual(res.body, { ok: true });
  assert.equal(engine.get(id)!.rec.state.status, 'down');
  assert.equal((await inject('GET', '/api/push/btp_nope0000000')).status, 404);
  // A repeated query key is refused and changes nothing.
  const before = engine.get(id)!.rec.lastDetail;
  res = await inject('GET', `/api/push/${token}?status=down&msg=a&msg=b`);
  assert.equal(res.status, 400);
  assert.equal(engine.get(id)!.rec.lastDetail, before);
  // A big body (a job's whole log) is read and dropped: the ping still counts.
  const big = await server.app.inject({
    method: 'POST',
    url: `/api/push/${token}?status=up&msg=big`,
    payload: 'x'.repeat(3 * 1024 * 1024),
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(big.statusCode, 200);
  assert.equal(engine.get(id)!.rec.lastDetail, 'big');
  // A reported duration that is not a plain number of at most 10 minutes is ignored.
  await inject('GET', `/api/push/${token}?status=up&ping=${'9'.repeat(400)}`);
  assert.equal(engine.get(id)!.rec.lastLatencyMs, null);
  await inject('GET', `/api/push/${token}?status=up&ping=1e307`);
  assert.equal(engine.get(id)!.rec.lastLatencyMs, null);

  // A start without a finish within grace is down; a finish records the job's duration.
  await inject('GET', `/api/push/${token}`);
  await inject('GET', `${path}/start`);
  await clock.advance(60_000);
  await inject('GET', path);
  assert.equal(engine.get(id)!.rec.lastLatencyMs, 60_000);
  await inject('GET', `${path}/start`);
  await clock.advance(300_000);
  assert.equal(engine.get(id)!.rec.state.status, 'down');
  assert.match(engine.get(id)!.rec.lastDetail!, /did not finish/);

  const metrics = await server.deps.metrics.registry.getSingleMetricAsString('mon_ingest_accepted_total');
  assert.match(metrics, /endpoint="ping"} 1[23]/);
});

test('a heartbeat is down when late (every plus grace) and up again on the next ping', async (t) => {
  const { server, clock, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', beat)).body as Any;
  const path = new URL(((await inject('POST', `/api/v1/checks/${id}/ping-url`)).body as Any).url).pathname;
  await inject('POST', path);
  await clock.advance(3_600_000 + 299_999);
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  await clock.advance(1);
  assert.equal(engine.get(id)!.rec.state.status, 'down');
  assert.match(engine.get(id)!.rec.lastDetail!, /expected by/);
  // One failed run per missed expected time.
  await clock.advance(3_600_000);
  await engine.flush();
  const runs = server.deps.store.read
    .prepare("SELECT count(*) AS n FROM check_runs WHERE check_id = ? AND status = 'down'")
    .get(id) as Any;
  assert.equal(runs.n, 2);
  await inject('GET', path);
  assert.equal(engine.get(id)!.rec.state.status, 'up');
  const row = ((await inject('GET', '/api/v1/services/ops')).body as Any).checks[0];
  assert.equal(row.id, id);
  assert.equal(row.heartbeat.dueAt, clock.now() + 3_600_000 + 300_000);
});

test('a cron heartbeat follows its time zone', async (t) => {
  const { server, clock, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const body = {
    name: 'nightly',
    service: 'ops',
    kind: 'heartbeat',
    cron: '0 3 * * *',
    timezone: 'America/New_York',
    graceMs: 600_000,
  };
  const { id } = (await inject('POST', '/api/v1/checks', body)).body as Any;
  // Created 2026-01-01 00:00 UTC = 19:00 New York: expected 03:00 EST = 08:00 UTC, late at 08:10.
  await clock.advance(8 * 3_600_000 + 600_000 - 1);
  assert.equal(engine.get(id)!.rec.state.status, 'unknown');
  await clock.advance(1);
  assert.equal(engine.get(id)!.rec.state.status, 'down');
});
