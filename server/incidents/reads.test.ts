import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { statement } from '../store/statements.ts';
import { type AlertRecord, type IncidentRecord, insertAlert, insertIncident } from './store.ts';
import { fileService, incidentServer } from './testkit.ts';

/** `GET /api/v1/incidents` and `GET /api/v1/incidents/{id}` (docs/incidents.md "Reads"). */

const incident = (id: string, startedAt: number, resolvedAt: number | null): IncidentRecord => ({
  id,
  title: `${id} down`,
  service: 'shop',
  startedAt,
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt,
  inMaintenance: false,
  topCause: null,
});

const alert = (incident: string, openedAt: number, recoveredAt: number | null): AlertRecord => ({
  incident,
  key: 'check:0000000000000001',
  checkId: '0000000000000001',
  service: 'shop',
  host: null,
  name: 'home',
  detail: 'connection refused',
  impact: false,
  openedAt,
  recoveredAt,
});

const hex = (n: number) => n.toString(16).padStart(16, '0');

test('the list: open incidents first, then those resolved in range, newest first, at most 200', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const now = kit.clock.now();
  await kit.server.deps.store.writer.run((db) => {
    // 30 open, 220 resolved over the last 22 days, and 5 resolved 40 days ago.
    for (let i = 0; i < 30; i++) insertIncident(db, incident(hex(1000 + i), now - i * HOUR, null));
    for (let i = 0; i < 220; i++) {
      const start = now - (i + 1) * 2 * HOUR - 3 * DAY;
      insertIncident(db, incident(hex(2000 + i), start, start + HOUR));
      insertAlert(db, alert(hex(2000 + i), start, start + HOUR));
    }
    for (let i = 0; i < 5; i++)
      insertIncident(db, incident(hex(3000 + i), now - 40 * DAY, now - 40 * DAY + HOUR));
  });
  const all = await kit.list();
  assert.equal(all.length, 200);
  assert.deepEqual(
    all.slice(0, 30).map((i) => i.state),
    Array(30).fill('open'),
  );
  assert.equal(all[0]?.id, hex(1000), 'the newest open one first');
  assert.equal(all[30]?.id, hex(2000), 'then the newest resolved one');
  assert.equal(all[30]?.alertCount, 1);
  assert.equal(all[30]?.failingCount, 0);
  const starts = all.slice(30).map((i) => i.startedAt);
  assert.deepEqual(
    starts,
    [...starts].sort((a, b) => b - a),
  );

  // Resolved ones open at some time of the range; open ones always.
  const lastWeek = await kit.list('?range=7d');
  // Resolved an hour after starting, every 2 hours from 3 days ago: 48 within the last 7 days.
  assert.equal(lastWeek.length, 30 + 48);
  assert.ok(lastWeek.every((i) => i.resolvedAt === null || i.resolvedAt >= now - 7 * DAY));
  const old = await kit.list(`?from=${now - 41 * DAY}&to=${now - 39 * DAY}`);
  assert.deepEqual(
    old.slice(30).map((i) => i.id),
    [hex(3000), hex(3001), hex(3002), hex(3003), hex(3004)].sort().reverse(),
  );
  assert.equal(old.slice(0, 30).length, 30);

  for (const [query, field] of [
    ['?range=2d', 'range'],
    ['?range=7d&from=1', 'range'],
    [`?from=${now}&to=${now - 1}`, 'to'],
    ['?from=yesterday&to=1', 'from'],
  ] as const) {
    const res = await kit.inject('GET', `/api/v1/incidents${query}`);
    assert.equal(res.status, 422, query);
    assert.match(String((res.body as { detail: string }).detail), new RegExp(`^${field}:`));
  }
});

test('one incident: its timeline with the deploys and changes of its services and hosts, and its response times', async (t) => {
  const kit = await incidentServer([fileService('db', [], ['db1']), fileService('shop', ['db'], ['web1'])]);
  t.after(() => kit.server.dispose());
  const { deps } = kit.server;
  const home = await kit.check('home', 'shop');
  const t0 = kit.clock.now();
  // A run a minute for the hour before: response times around the incident.
  for (let i = 0; i < 60; i++) {
    await kit.run(home, 'up');
    await kit.clock.advance(MINUTE);
  }
  const start = kit.clock.now() + 10_000;
  await deps.store.writer.run((db) => {
    const deploy = statement(
      db,
      `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
       VALUES (?, ?, ?, ?, ?, ?, 'api', 'api', ?)`,
    );
    deploy.run('shop', 'v41', start - 2 * HOUR, 'ana', null, null, null);
    deploy.run('shop', 'v42', start - 30 * MINUTE, 'ana', 'https://ci.example/42', 'checkout rewrite', null);
    deploy.run('blog', 'v7', start - 20 * MINUTE, 'bo', null, null, null);
    deploy.run('web', 'sha-1', start - 10 * MINUTE, 'agent', null, null, 'web1');
    deploy.run('shop', 'v43', start + 10 * DAY, 'ana', null, null, null);
    const change = statement(
      db,
      `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'api')`,
    );
    change.run(start - 15 * MINUTE, 'change', 'DNS moved', null, null, 'ops', 'https://dns.example', null);
    change.run(start - 12 * MINUTE, 'change', 'blog theme', 'blog', null, 'bo', null, null);
    change.run(start - 5 * MINUTE, 'push', 'main: fix cart', 'shop', null, 'ana', null, 'abc123');
    change.run(start - 4 * MINUTE, 'change', 'kernel update', null, 'db1', 'ops', null, null);
  });
  await kit.fail(home);
  const [summary] = await kit.list();
  assert.equal(summary?.startedAt, start);
  // The host its check runs from, then its service's.
  assert.deepEqual(summary?.hosts, ['agent1', 'web1']);
  const read = await kit.read(summary!.id);
  assert.deepEqual(
    read.timeline.map((r) => [r.kind, r.title, r.by, r.url, r.check]),
    [
      ['deploy', 'shop v42 deployed', 'ana', 'https://ci.example/42', null],
      ['change', 'DNS moved', 'ops', 'https://dns.example', null],
      ['deploy', 'web sha-1 deployed', 'agent', null, null],
      ['push', 'main: fix cart', 'ana', null, null],
      ['opened', 'home down', null, null, home],
    ],
  );
  assert.equal(read.timeline[0]?.detail, 'checkout rewrite');
  // Causes come from likelyCauses (causes/scenarios.test.ts covers the ranking): the read carries
  // them best first, the list's topCause is the first, and other services' rows are never among them.
  assert.ok(read.causes.length > 0);
  assert.deepEqual(read.topCause, read.causes[0]);
  assert.deepEqual(summary?.topCause, read.causes[0]);
  assert.deepEqual(read.causes[0]?.ref, { deploy: 4, service: 'web' }, 'the deploy on its host');
  const deploys = read.causes.flatMap((c) => (c.ref.deploy === undefined ? [] : [c.ref.deploy]));
  assert.ok(!deploys.includes(3), "another service's deploy is no cause");
  assert.ok(!deploys.includes(5), 'a deploy after the start is no cause');

  // Response times from an hour before; the hour before has a value a minute.
  assert.equal(read.responseTimes.length, 1);
  const [times] = read.responseTimes;
  assert.deepEqual([times?.check, times?.name, times?.service], [home, 'home', 'shop']);
  assert.ok(times!.series.x[0]! <= start - HOUR && times!.series.x[0]! >= t0 - 5 * MINUTE);
  assert.ok(times!.series.p50.filter((v) => v !== null).length >= 30, 'latencies of the hour before');

  // A resolved incident's timeline ends at its resolution.
  await kit.recover(home);
  await deps.store.writer.run((db) =>
    statement(
      db,
      `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
       VALUES (?, 'change', 'late change', 'shop', NULL, NULL, NULL, NULL, 'api')`,
    ).run(kit.clock.now() + MINUTE),
  );
  await kit.clock.advance(2 * MINUTE);
  const resolved = await kit.read(summary!.id);
  assert.equal(resolved.timeline.at(-1)?.kind, 'resolved');
  assert.ok(!resolved.timeline.some((r) => r.title === 'late change'));
  assert.equal((await kit.inject('GET', '/api/v1/incidents/0123456789abcdef')).status, 404);
});
