import assert from 'node:assert/strict';
import { type DatabaseSync, StatementSync } from 'node:sqlite';
import { test } from 'node:test';
import { HOUR, MINUTE } from '../../protocol/durations.ts';
import type { Overview } from '../../protocol/overview.ts';
import type { Created, RunStatus } from '../../protocol/reads.ts';
import { addToRollups } from '../checks/rollups.ts';
import { type Any, checkServer } from '../checks/testkit.ts';
import { statement } from '../store/statements.ts';

/**
 * `GET /api/v1/overview` against a real server on a fake clock: checks made through the API, their
 * rollups, incidents, deploys and changes written as the features write them.
 */

const T0 = Date.UTC(2026, 0, 1);
const NOW = T0 + 2 * HOUR;
const check = (name: string, service: string) => ({
  name,
  service,
  kind: 'http',
  target: 'http://127.0.0.1:9/',
  everyMs: 86_400_000,
});

/** A server at T0 with checks made (each runs once at once), then its clock moved to NOW. */
async function overviewServer(names: [string, string][]) {
  const kit = await checkServer();
  const ids: Record<string, string> = {};
  for (const [name, service] of names) {
    const res = await kit.inject('POST', '/api/v1/checks', check(name, service));
    assert.equal(res.status, 201, res.text);
    ids[name] = (res.body as Created).id;
  }
  await kit.engine.flush();
  await kit.clock.advance(NOW - T0);
  const write = (job: (db: DatabaseSync) => void) => kit.server.deps.store.writer.run(job);
  const overview = async (query = '') => {
    const res = await kit.inject('GET', `/api/v1/overview${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body as Overview;
  };
  return { ...kit, ids, write, overview };
}

test('each check has a strip of its range with the worst run per slot, its uptime, median and last latency', async (t) => {
  const { server, ids, write, overview } = await overviewServer([
    ['home', 'shop'],
    ['cart', 'shop'],
    ['primary', 'db'],
  ]);
  t.after(() => server.dispose());
  // The last hour, a run a minute: home fails at minutes 10 and 11 (and passes at 11 too), is degraded at 20.
  await write((db) => {
    for (let m = 0; m < 60; m++) {
      const ts = NOW - HOUR + m * MINUTE + 5_000;
      const status: RunStatus = m === 10 || m === 11 ? 'down' : m === 20 ? 'degraded' : 'up';
      addToRollups(db, { checkId: ids.home!, ts, status, latencyMs: 100, value: null });
      addToRollups(db, { checkId: ids.primary!, ts, status: 'up', latencyMs: 3, value: null });
    }
    addToRollups(db, {
      checkId: ids.home!,
      ts: NOW - 49 * MINUTE,
      status: 'up',
      latencyMs: 100,
      value: null,
    });
  });

  const o = await overview('?range=1h');
  assert.equal(o.from, NOW - HOUR);
  assert.equal(o.to, NOW);
  assert.deepEqual(o.strip, { start: NOW - HOUR, stepMs: MINUTE, slots: 60 });
  assert.deepEqual(
    o.services.map((s) => [s.name, s.checks.map((c) => c.name)]),
    [
      ['db', ['primary']],
      ['shop', ['cart', 'home']],
    ],
  );
  const shop = o.services.find((s) => s.name === 'shop')!;
  const [cart, home] = shop.checks;
  const expected = Array.from({ length: 60 }, (_, m) =>
    m === 10 || m === 11 ? 'down' : m === 20 ? 'degraded' : 'up',
  );
  assert.deepEqual(home!.strip, expected);
  // 61 runs: 2 down; degraded counts as available.
  assert.equal(home!.uptime, 96.721);
  assert.equal(shop.uptime, 96.721, 'the service counts the runs of all its checks');
  assert.equal(home!.status, 'up');
  assert.ok(Math.abs(home!.latency.p50! - 100) < 10, `median ${home!.latency.p50}`);
  assert.equal(home!.latency.last, 120, 'the last run the check made');
  // A check without runs in the range: an empty strip, no uptime, no median.
  assert.deepEqual(cart!.strip, Array(60).fill(null));
  assert.equal(cart!.uptime, null);
  assert.equal(cart!.latency.p50, null);
  assert.equal(o.services[0]!.uptime, 100);

  // 24 hours (the default): 24 hours read from the hour rollups; the check's first run is in slot 22.
  const day = await overview();
  assert.equal(day.to - day.from, 24 * HOUR);
  assert.deepEqual(day.strip, { start: NOW - 24 * HOUR, stepMs: HOUR, slots: 24 });
  const homeDay = day.services[1]!.checks[1]!;
  assert.deepEqual(homeDay.strip, [...Array(22).fill(null), 'up', 'down']);
  assert.equal(homeDay.uptime, 96.774, '62 runs, 2 down');
});

test('open incidents come newest first with their services, hosts and alerts; resolved ones are left out', async (t) => {
  const { server, write, overview } = await overviewServer([['home', 'shop']]);
  t.after(() => server.dispose());
  await write((db) => {
    const incident = statement(
      db,
      `INSERT INTO incidents (id, title, service, started_at, acknowledged_at, acknowledged_by, resolved_at, in_maintenance)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    incident.run(
      'a000000000000001',
      'db is down',
      'db',
      NOW - 50 * MINUTE,
      NOW - 40 * MINUTE,
      'ann@example.com',
      null,
      0,
    );
    incident.run('a000000000000002', 'shop is down', 'shop', NOW - 10 * MINUTE, null, null, null, 1);
    incident.run(
      'a000000000000003',
      'shop was down',
      'shop',
      NOW - 90 * MINUTE,
      null,
      null,
      NOW - 80 * MINUTE,
      0,
    );
    const alert = statement(
      db,
      `INSERT INTO incident_alerts (incident, key, check_id, service, host, name, detail, impact, opened_at, recovered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    alert.run(
      'a000000000000001',
      'check:c1',
      'c1',
      'db',
      null,
      'primary',
      'connection refused',
      0,
      NOW - 50 * MINUTE,
      null,
    );
    alert.run(
      'a000000000000001',
      'check:c2',
      'c2',
      'api',
      null,
      'api',
      '502',
      1,
      NOW - 45 * MINUTE,
      NOW - 20 * MINUTE,
    );
    alert.run(
      'a000000000000001',
      'host:web-1:cpu',
      null,
      null,
      'web-1',
      'CPU',
      '97%',
      0,
      NOW - 44 * MINUTE,
      null,
    );
    alert.run('a000000000000002', 'check:c3', 'c3', 'shop', null, 'home', '500', 0, NOW - 10 * MINUTE, null);
    alert.run(
      'a000000000000003',
      'check:c3',
      'c3',
      'shop',
      null,
      'home',
      '500',
      0,
      NOW - 90 * MINUTE,
      NOW - 80 * MINUTE,
    );
  });

  const { incidents } = await overview();
  assert.deepEqual(
    incidents.map((i) => i.id),
    ['a000000000000002', 'a000000000000001'],
  );
  assert.deepEqual(incidents[1], {
    id: 'a000000000000001',
    title: 'db is down',
    state: 'open',
    startedAt: NOW - 50 * MINUTE,
    acknowledgedAt: NOW - 40 * MINUTE,
    acknowledgedBy: 'ann@example.com',
    resolvedAt: null,
    services: ['db', 'api'],
    hosts: ['web-1'],
    alertCount: 3,
    failingCount: 2,
    inMaintenance: false,
    topCause: null,
  });
  assert.equal(incidents[0]!.inMaintenance, true);
});

test('deploys and every change in range come newest first, whatever the change is bound to', async (t) => {
  const { server, write, overview } = await overviewServer([['home', 'shop']]);
  t.after(() => server.dispose());
  await write((db) => {
    const deploy = statement(
      db,
      `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
       VALUES (?, ?, ?, ?, ?, NULL, 'api', 'api', NULL)`,
    );
    deploy.run('shop', 'v1', NOW - 3 * HOUR, 'ci', null);
    deploy.run('shop', 'v2', NOW - 50 * MINUTE, 'ci', 'https://ci.example/2');
    deploy.run('db', '15.2', NOW - 20 * MINUTE, null, null);
    const change = statement(
      db,
      `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
       VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 'api')`,
    );
    change.run(NOW - 40 * MINUTE, 'change', 'migration 0042', 'shop', null, 'ann');
    change.run(NOW - 30 * MINUTE, 'change', 'kernel update', null, 'web-1', null);
    change.run(NOW - 25 * MINUTE, 'change', 'DNS moved', null, null, 'bob');
    change.run(NOW - 10 * MINUTE, 'push', 'push to main: fix', 'shop', null, 'carol');
    change.run(NOW - 2 * HOUR - MINUTE, 'change', 'too old', null, null, null);
  });

  const o = await overview('?range=1h');
  assert.deepEqual(
    o.deploys.map((d) => [d.service, d.version, d.by, d.url]),
    [
      ['db', '15.2', null, null],
      ['shop', 'v2', 'ci', 'https://ci.example/2'],
    ],
  );
  assert.deepEqual(
    o.changes.map((c) => [c.kind, c.what, c.service, c.host]),
    [
      ['push', 'push to main: fix', 'shop', null],
      ['change', 'DNS moved', null, null],
      ['change', 'kernel update', null, 'web-1'],
      ['change', 'migration 0042', 'shop', null],
    ],
  );
  const day = await overview();
  assert.equal(day.deploys.length, 3);
  assert.equal(day.changes.length, 5);
  const since = await overview(`?from=${NOW - 4 * HOUR}&to=${NOW - HOUR}`);
  assert.deepEqual(
    since.deploys.map((d) => d.version),
    ['v1'],
  );
  assert.deepEqual(
    since.changes.map((c) => c.what),
    ['too old'],
  );
});

test('the range is 1h, 24h, 7d, 30d or 1y, or from and to; anything else is 422 naming the field', async (t) => {
  const { server, inject } = await overviewServer([]);
  t.after(() => server.dispose());
  for (const [query, field] of [
    ['range=2d', 'range'],
    ['range=1h&from=1', 'range'],
    ['from=abc&to=5', 'from'],
    [`from=${NOW}&to=${NOW - 1}`, 'to'],
  ]) {
    const res = await inject('GET', `/api/v1/overview?${query}`);
    assert.equal(res.status, 422, query);
    assert.match((res.body as Any).detail, new RegExp(`^${field}: `), query);
  }
  for (const range of ['1h', '24h', '7d', '30d', '1y']) {
    const o = (await inject('GET', `/api/v1/overview?range=${range}`)).body as Overview;
    assert.ok(o.strip.slots >= 24 && o.strip.slots <= 90, `${range}: ${o.strip.slots} slots`);
    assert.equal(o.strip.start + o.strip.slots * o.strip.stepMs >= o.to, true, range);
    assert.ok(o.strip.start >= o.from && o.strip.start < o.from + o.strip.stepMs, range);
  }
});

/** Counts the statements run on any connection while `fn` runs. */
async function countStatements(fn: () => Promise<unknown>): Promise<number> {
  const proto = StatementSync.prototype;
  const methods = ['all', 'get', 'iterate', 'run'] as const;
  const originals = methods.map((m) => proto[m]);
  let count = 0;
  methods.forEach((m, i) => {
    const original = originals[i] as (...args: unknown[]) => unknown;
    (proto as unknown as Record<string, unknown>)[m] = function (this: StatementSync, ...args: unknown[]) {
      count++;
      return original.apply(this, args);
    };
  });
  try {
    await fn();
  } finally {
    methods.forEach((m, i) => {
      (proto as unknown as Record<string, unknown>)[m] = originals[i];
    });
  }
  return count;
}

test('the overview runs one query per kind of data, whatever the number of checks and incidents', async (t) => {
  const { server, inject, engine, write, overview } = await overviewServer([['home', 'shop']]);
  t.after(() => server.dispose());
  const seedIncident = (n: number) =>
    write((db) => {
      statement(
        db,
        `INSERT INTO incidents (id, title, service, started_at) VALUES (?, 'down', 'shop', ?)`,
      ).run(`b${String(n).padStart(15, '0')}`, NOW - n * MINUTE);
      statement(
        db,
        `INSERT INTO incident_alerts (incident, key, name, detail, opened_at) VALUES (?, 'check:x', 'x', '', ?)`,
      ).run(`b${String(n).padStart(15, '0')}`, NOW - n * MINUTE);
    });
  await seedIncident(1);
  const few = await countStatements(() => overview());

  for (let i = 0; i < 30; i++) {
    const res = await inject('POST', '/api/v1/checks', check(`check ${i}`, `service ${i % 7}`));
    assert.equal(res.status, 201);
  }
  await engine.flush();
  for (let n = 2; n <= 20; n++) await seedIncident(n);
  const many = await countStatements(() => overview());
  assert.equal((await overview()).services.length, 8);
  assert.equal((await overview()).incidents.length, 20);
  assert.equal(many, few, 'as many statements for 31 checks and 20 incidents as for 1 and 1');
  assert.ok(
    many <= 9,
    `services, strips, medians, maintenance windows, service links, incidents, alerts, deploys, changes: ${many}`,
  );
});
