import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostAlerts, HostRead, HostsList, ItemSeries } from '../../protocol/hosts.ts';
import type { Created } from '../../protocol/reads.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import { statement } from '../store/statements.ts';
import { defaultHostAlerts } from './config.ts';
import { container, hello, itemId, sample, storeHello, storeSample, unit } from './testkit.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const apiAlerts: HostAlerts = { ...defaultHostAlerts, ignoreMounts: ['/boot'] };

/**
 * web-1, added through the API, sent an hour of samples (the last 15 s ago) with four containers and
 * three units; db-1 is a `[[host]]` of mon.toml that never connected. Panel service shop has a check
 * that runs from web-1.
 */
async function seeded() {
  const config = liveConfig({ hosts: [{ name: 'db-1', alerts: { ...defaultHostAlerts, cpu: 95 } }] });
  const kit = await checkServer({ config: config.service });
  const { server, clock, inject } = kit;
  assert.equal((await inject('POST', '/api/v1/hosts', { name: 'web-1' })).status, 201);
  const check = await inject('POST', '/api/v1/checks', {
    name: 'home',
    service: 'shop',
    kind: 'http',
    target: 'http://127.0.0.1:9/',
    from: 'web-1',
    everyMs: 60_000,
  });
  assert.equal(check.status, 201, check.text);
  assert.equal((await inject('PUT', '/api/v1/hosts/web-1/alerts', apiAlerts)).status, 204);
  await storeHello(server, 'web-1', hello(T0, { hostname: 'web-1.internal' }));
  await clock.advance(60 * MINUTE);
  const containers = [
    container({ name: 'shop-web', labels: { 'mon.service': 'shop' } }),
    container({ name: 'worker', labels: { 'com.docker.compose.project': 'shop' } }),
    container({ name: 'redis', image: 'redis:1.0' }),
    container({ name: 'old-job', state: 'exited', exitCode: 1, cpu: null, memory: null }),
  ];
  const units = [
    unit({ name: 'shop.service' }),
    unit({ name: 'nginx.service' }),
    unit({ name: 'cron.service' }),
  ];
  // Two filesystems, /boot the fuller one (ignored by the thresholds set above).
  const disks = [
    { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 60, size: 100 },
    { mount: '/boot', device: '/dev/sda2', fstype: 'ext4', used: 97, size: 100 },
  ];
  const load: [number, number, number] = [0.5, 0.25, 0.125];
  const temperatures = [{ sensor: 'coretemp Core 0', celsius: 55 }];
  for (let i = 0; i < 60; i++) {
    const ts = T0 + i * MINUTE + 45_000;
    await storeSample(server, 'web-1', sample(ts, { cpu: i, disks, load, temperatures, containers, units }));
  }
  await server.deps.store.writer.run((db) => {
    const run = (sql: string, ...values: (string | number | null)[]) => statement(db, sql).run(...values);
    run(`UPDATE host_items SET gone_at = ? WHERE name = 'cron.service'`, T0 + 59 * MINUTE);
    run(
      'INSERT INTO discovered_dismissed (id, dismissed_at) VALUES (?, ?)',
      itemId('web-1', 'container', 'old-job'),
      T0,
    );
    run(
      `UPDATE hosts SET declared = ? WHERE name = 'web-1'`,
      JSON.stringify({ ts: T0, checks: [], problems: ['line 3: command is missing'] }),
    );
    const state =
      'INSERT INTO host_alert_states (host, key, above_since, failing_since, value, detail) VALUES (?, ?, ?, ?, ?, ?)';
    run(state, 'web-1', 'host:web-1:cpu', T0, T0 + 5 * MINUTE, 97, 'CPU above 90% for 5 minutes (97%)');
    run(
      state,
      'web-1',
      'container:web-1:shop-web',
      null,
      T0 + 10 * MINUTE,
      null,
      'restarted 4 times in 10 minutes',
    );
    run(state, 'web-1', 'host:web-1:memory', T0 + 50 * MINUTE, null, 93, null);
    run(
      `INSERT INTO incidents (id, title, service, started_at) VALUES ('1111111111111111', 'web-1: CPU above 90%', NULL, ?)`,
      T0 + 5 * MINUTE,
    );
    run(
      `INSERT INTO incidents (id, title, service, started_at, resolved_at) VALUES ('2222222222222222', 'shop', 'shop', ?, ?)`,
      T0,
      T0 + MINUTE,
    );
    const alert = `INSERT INTO incident_alerts (incident, key, host, name, detail, opened_at, recovered_at) VALUES (?, ?, 'web-1', ?, '', ?, ?)`;
    run(alert, '1111111111111111', 'host:web-1:cpu', 'web-1 CPU', T0 + 5 * MINUTE, null);
    run(alert, '2222222222222222', 'container:web-1:shop-web', 'shop-web on web-1', T0, T0 + MINUTE);
  });
  return { ...kit, checkId: (check.body as Created).id };
}

test('GET /hosts lists every known host by name with its numbers now', async (t) => {
  const { server, clock, inject } = await seeded();
  t.after(() => server.dispose());
  const res = await inject('GET', '/api/v1/hosts');
  assert.equal(res.status, 200, res.text);
  const [db1, web1] = (res.body as HostsList).hosts;
  assert.deepEqual(db1, {
    name: 'db-1',
    fromFile: true,
    services: [],
    agent: null,
    cpu: null,
    memory: null,
    disk: null,
    alerting: 0,
    containers: 0,
    units: 0,
    discovered: 0,
  });
  const lastSeen = T0 + 59 * MINUTE + 45_000;
  // Whether it runs the agent served depends on the project's agent file: agent-version.test.ts.
  assert.ok(web1?.agent && web1.agent.current !== true, 'a 0.1.0 agent is never the one served');
  const { current: _current, update: _update, ...agent } = web1.agent;
  assert.deepEqual(
    { ...web1, agent },
    {
      name: 'web-1',
      fromFile: false,
      services: [],
      agent: {
        version: '0.1.0',
        protocol: 1,
        capabilities: ['ping', 'headers'],
        hostname: 'web-1.internal',
        os: 'Debian GNU/Linux 12',
        kernel: '6.1.0-18-amd64',
        arch: 'x64',
        cores: 4,
        firstSeen: T0,
        lastSeen,
        connected: true,
      },
      cpu: 59,
      memory: 75,
      // /boot (97%) is ignored by the host's thresholds: the fullest left is / at 60%.
      disk: 60,
      alerting: 2,
      containers: 4,
      units: 2,
      discovered: 2,
    },
  );
  // Four samples missed: the agent is no longer connected.
  await clock.advance(lastSeen + 60_000 - clock.now());
  const later = (await inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.equal(later.hosts[1]?.agent?.connected, false);
});

test('GET /hosts/{name} reads the agent, alerts, numbers now, series, items, checks and problems', async (t) => {
  const { server, inject, checkId } = await seeded();
  t.after(() => server.dispose());
  const res = await inject('GET', '/api/v1/hosts/web-1');
  assert.equal(res.status, 200, res.text);
  const host = res.body as HostRead;
  assert.deepEqual([host.name, host.fromFile, host.services], ['web-1', false, []]);
  assert.equal(host.agent?.connected, true);
  assert.deepEqual([host.alerts, host.alertsFrom], [apiAlerts, 'api']);
  assert.deepEqual(host.alerting, [
    {
      key: 'host:web-1:cpu',
      metric: 'cpu',
      name: 'web-1 CPU',
      detail: 'CPU above 90% for 5 minutes (97%)',
      since: T0 + 5 * MINUTE,
      incident: '1111111111111111',
    },
    {
      key: 'container:web-1:shop-web',
      metric: 'container',
      name: 'shop-web on web-1',
      detail: 'restarted 4 times in 10 minutes',
      since: T0 + 10 * MINUTE,
      incident: null,
    },
  ]);
  const GiB = 1024 ** 3;
  assert.deepEqual(host.now, {
    ts: T0 + 59 * MINUTE + 45_000,
    cpu: 59,
    memory: { used: 3 * GiB, total: 4 * GiB, percent: 75 },
    swap: null,
    disks: [
      { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 60, size: 100, percent: 60, ignored: false },
      {
        mount: '/boot',
        device: '/dev/sda2',
        fstype: 'ext4',
        used: 97,
        size: 100,
        percent: 97,
        ignored: true,
      },
    ],
    diskIo: { readBps: 1000, writeBps: 2000 },
    net: { rxBps: 300, txBps: 400 },
    load: [0.5, 0.25, 0.125],
    temperatures: [{ sensor: 'coretemp Core 0', celsius: 55 }],
  });
  // 24 hours by default, in 10-minute steps: the hour of samples fills the last six.
  assert.equal(host.series.stepMs, 10 * MINUTE);
  assert.ok(host.series.x.length >= 144 && host.series.x.length <= 145);
  assert.deepEqual(
    host.series.cpu.filter((v) => v !== null),
    [4.5, 14.5, 24.5, 34.5, 44.5, 54.5],
  );
  assert.deepEqual(host.series.swap, [], 'no swap, no swap chart');
  assert.equal(host.series.temperature.filter((v) => v === 55).length, 6);

  assert.deepEqual(
    host.containers.map((c) => [c.name, c.service, c.state]),
    [
      ['old-job', null, 'exited'],
      ['redis', null, 'running'],
      ['shop-web', 'shop', 'running'],
      ['worker', 'shop', 'running'],
    ],
  );
  assert.deepEqual(host.containers[1], {
    name: 'redis',
    image: 'redis:1.0',
    state: 'running',
    health: null,
    restarts: 0,
    exitCode: null,
    startedAt: T0,
    cpu: 12.5,
    memory: 200 * 1024 ** 2,
    service: null,
    updatedAt: T0 + 59 * MINUTE + 45_000,
  });
  assert.deepEqual(
    host.units.map((u) => [u.name, u.service, u.subState]),
    [
      ['nginx.service', null, 'running'],
      ['shop.service', 'shop', 'running'],
    ],
  );
  // Of no service and not dismissed (old-job is dismissed; cron.service is gone).
  assert.deepEqual(host.discovered, [
    {
      id: itemId('web-1', 'container', 'redis'),
      host: 'web-1',
      kind: 'container',
      name: 'redis',
      image: 'redis:1.0',
      state: 'running',
      firstSeen: T0 + 45_000,
    },
    {
      id: itemId('web-1', 'unit', 'nginx.service'),
      host: 'web-1',
      kind: 'unit',
      name: 'nginx.service',
      image: null,
      state: 'active',
      firstSeen: T0 + 45_000,
    },
  ]);
  assert.deepEqual(host.checks, [
    { id: checkId, name: 'home', kind: 'http', status: 'unknown', hostDefined: false },
  ]);
  assert.deepEqual(host.checkConflicts, []);
  assert.deepEqual(host.checkProblems, ['line 3: command is missing']);

  const file = (await inject('GET', '/api/v1/hosts/db-1')).body as HostRead;
  assert.deepEqual(
    [file.fromFile, file.alertsFrom, file.alerts.cpu, file.agent, file.now, file.checks],
    [true, 'file', 95, null, null, []],
  );
  assert.deepEqual(file.alerting, []);
  assert.equal((await inject('GET', '/api/v1/hosts/nowhere')).status, 404);
});

test('the host read takes range, or from and to, and names the field it refuses', async (t) => {
  const { server, inject } = await seeded();
  t.after(() => server.dispose());
  const hour = ((await inject('GET', '/api/v1/hosts/web-1?range=1h')).body as HostRead).series;
  assert.deepEqual([hour.stepMs, hour.x.length, hour.x[0]], [MINUTE, 60, T0]);
  assert.deepEqual(hour.cpu.slice(0, 3), [0, 1, 2]);
  const span = await inject('GET', `/api/v1/hosts/web-1?from=${T0 + 10 * MINUTE}&to=${T0 + 40 * MINUTE}`);
  assert.equal(span.status, 200, span.text);
  const series = (span.body as HostRead).series;
  assert.deepEqual([series.stepMs, series.x.length, series.cpu[0]], [MINUTE, 30, 10]);
  const refused: [string, RegExp][] = [
    ['range=2h', /^range: must be one of 1h, 24h, 7d, 30d, 1y/],
    ['range=1h&from=1', /^range: give range or from and to/],
    ['from=5', /^to: /],
    [`from=${T0}&to=${T0 + 401 * 86_400_000}`, /^from: the span may be at most 400 days/],
  ];
  for (const [query, detail] of refused) {
    const res = await inject('GET', `/api/v1/hosts/web-1?${query}`);
    assert.equal(res.status, 422, `${query}: ${res.text}`);
    assert.match((res.body as Any).detail, detail);
  }
});

test('container and unit series: CPU and memory per step; 404 for a host or item never seen', async (t) => {
  const { server, inject } = await seeded();
  t.after(() => server.dispose());
  const res = await inject('GET', '/api/v1/hosts/web-1/containers/redis?range=1h');
  assert.equal(res.status, 200, res.text);
  const redis = res.body as ItemSeries;
  assert.deepEqual(Object.keys(redis).sort(), ['cpu', 'cpuMax', 'mem', 'memMax', 'stepMs', 'x']);
  assert.deepEqual(
    [redis.stepMs, redis.x.length, redis.cpu[0], redis.mem[59]],
    [MINUTE, 60, 12.5, 200 * 1024 ** 2],
  );
  // Not running: no CPU or memory, null steps.
  const exited = (await inject('GET', '/api/v1/hosts/web-1/containers/old-job')).body as ItemSeries;
  assert.ok(exited.cpu.every((v) => v === null));
  // By default 24 hours; a unit gone since is still read.
  const cron = await inject('GET', '/api/v1/hosts/web-1/units/cron.service');
  assert.equal(cron.status, 200, cron.text);
  assert.equal((cron.body as ItemSeries).stepMs, 10 * MINUTE);
  assert.equal((cron.body as ItemSeries).cpu.filter((v) => v === 1.5).length, 6);
  for (const url of [
    '/api/v1/hosts/web-1/containers/nope',
    '/api/v1/hosts/web-1/units/redis',
    '/api/v1/hosts/db-1/containers/redis',
    '/api/v1/hosts/nowhere/containers/redis',
  ]) {
    assert.equal((await inject('GET', url)).status, 404, url);
  }
  const bad = await inject('GET', '/api/v1/hosts/web-1/containers/redis?range=5m');
  assert.equal(bad.status, 422);
  assert.match((bad.body as Any).detail, /^range: /);
});

test('a container or unit of the longest name the agent may send has its series (past the router’s 100 characters)', async (t) => {
  const { server, clock, inject } = await checkServer({});
  t.after(() => server.dispose());
  assert.equal((await inject('POST', '/api/v1/hosts', { name: 'web-1' })).status, 201);
  await storeHello(server, 'web-1', hello(T0));
  await clock.advance(MINUTE);
  // 256 characters, each three bytes in UTF-8: nine characters each once percent-encoded.
  const unitName = `systemd-cryptsetup@${'€'.repeat(256 - 'systemd-cryptsetup@.service'.length)}.service`;
  const containerName = `k8s_${'€'.repeat(252)}`;
  assert.deepEqual([unitName.length, containerName.length], [256, 256]);
  await storeSample(
    server,
    'web-1',
    sample(T0 + 45_000, {
      units: [unit({ name: unitName })],
      containers: [container({ name: containerName })],
    }),
  );
  for (const path of [`units/${unitName}`, `containers/${containerName}`]) {
    const [kind, name] = path.split('/') as [string, string];
    const res = await inject('GET', `/api/v1/hosts/web-1/${kind}/${encodeURIComponent(name)}?range=1h`);
    assert.equal(res.status, 200, `${kind}: ${res.text.slice(0, 200)}`);
  }
});
