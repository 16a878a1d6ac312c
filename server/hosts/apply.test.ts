import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SampleFrame } from '../../protocol/agent.ts';
import type { IncidentRead } from '../../protocol/incidents.ts';
import { staticConfig } from '../config/service.ts';
import { defaultHostAlerts } from './config.ts';
import { itemId } from './items.ts';
import { readHostSeries } from './rollups.ts';
import { container, hello, hostServer, IMAGE_A, IMAGE_B, sample, T0, unit } from './testkit.ts';

const shop = { name: 'shop', hosts: ['web-1'], sites: [], dependsOn: [], tier: 'standard' as const };

test('samples go to the rollups at their own time, late ones too; latest only moves forward', async (t) => {
  const kit = await hostServer({
    config: staticConfig({
      hosts: [{ name: 'web-1', alerts: { ...defaultHostAlerts, ignoreMounts: ['/boot'] } }],
    }),
  });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const disks = [
    { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 50, size: 100 },
    { mount: '/boot', device: '/dev/sda2', fstype: 'ext4', used: 99, size: 100 },
  ];
  const batch = [sample(T0 + 15_000, { cpu: 30, disks }), hello(T0), sample(T0, { cpu: 10, disks })];
  assert.deepEqual((await kit.send(token, batch)).body, { stored: 3, skipped: 0 });
  // A sample older than the latest (frames of an outage after newer ones): charted, not "now".
  assert.deepEqual((await kit.send(token, [sample(T0 + 5_000, { cpu: 20, disks })])).body, {
    stored: 1,
    skipped: 0,
  });

  const series = readHostSeries(kit.db, 'web-1', T0, T0 + 3_600_000, T0 + 3_600_000);
  assert.equal(series.cpu[0], 20, 'the mean of the three samples');
  assert.equal(series.cpuMax[0], 30);
  assert.equal(series.disk[0], 50, '/boot is ignored by the [[host]] table');
  const row = kit.db.prepare('SELECT * FROM hosts WHERE name = ?').get('web-1') as Record<
    string,
    string | number
  >;
  assert.equal(JSON.parse(String(row.latest)).ts, T0 + 15_000, 'the late sample is not the latest');
  assert.deepEqual(JSON.parse(String(row.agent)), {
    agentVersion: '0.1.0',
    protocol: 1,
    capabilities: ['ping', 'headers'],
    hostname: 'web-1.example.com',
    os: 'Debian GNU/Linux 12',
    kernel: '6.1.0-18-amd64',
    arch: 'x64',
    cores: 4,
  });
  assert.equal(row.first_seen, T0);
  await kit.clock.advance(15_000);
  await kit.send(token, [sample(T0 + 30_000)]);
  const later = kit.db.prepare('SELECT first_seen, last_seen FROM hosts').get() as Record<string, number>;
  assert.deepEqual([later.first_seen, later.last_seen], [T0, T0 + 15_000], 'seen when the frames arrived');
});

test('containers and units are kept as last seen, with their restarts, OOM kills and failures as host events', async (t) => {
  const kit = await hostServer({ config: staticConfig({ services: [shop] }) });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const api = (over: Parameters<typeof container>[0] = {}) =>
    container({ name: 'api', labels: { 'mon.service': 'shop' }, ...over });
  const units = (over: Parameters<typeof unit>[0] = {}) => [
    unit({ name: 'nginx.service' }),
    unit({ name: 'cron.service', ...over }),
  ];
  const at = (i: number) => T0 + i * 15_000;
  const frames: SampleFrame[] = [
    sample(at(0), { containers: [api()], units: units() }),
    sample(at(1), { containers: [api({ restarts: 1 })], units: units({ restarts: 2 }) }),
    sample(at(2), {
      containers: [api({ restarts: 1, oomKilled: true })],
      units: units({ state: 'failed', subState: 'failed' }),
    }),
    sample(at(3), { containers: [api({ restarts: 1, startedAt: at(3) })], units: null }),
    sample(at(4), { containers: [], units: null }),
  ];
  for (const frame of frames) assert.equal((await kit.send(token, [frame])).status, 200);
  const events = kit.db
    .prepare('SELECT ts, kind, subject, service, detail FROM host_events WHERE host = ? ORDER BY id')
    .all('web-1');
  assert.deepEqual(
    events.map((e) => [e.ts, e.kind, e.subject, e.service]),
    [
      [at(1), 'restart', 'api', 'shop'],
      [at(1), 'unit_restart', 'cron.service', 'shop'],
      [at(2), 'oom', 'api', 'shop'],
      [at(2), 'unit_failed', 'cron.service', 'shop'],
      [at(3), 'restart', 'api', 'shop'],
    ],
  );
  assert.equal(events[0]?.detail, 'container restarted (restart count 1)');

  const items = kit.db
    .prepare('SELECT kind, name, id, state, restarts, gone_at FROM host_items ORDER BY kind, name')
    .all();
  assert.deepEqual(
    items.map((i) => [i.kind, i.name, i.state, i.gone_at]),
    [
      ['container', 'api', 'running', at(4)],
      ['unit', 'cron.service', 'failed', null],
      ['unit', 'nginx.service', 'active', null],
    ],
    'gone from a list the sample gave; a sample without units says nothing of them',
  );
  assert.equal(items[0]?.id, itemId('web-1', 'container', 'api'));
  assert.match(String(items[0]?.id), /^[0-9a-f]{16}$/);
  assert.equal(
    kit.count("SELECT cpu_n AS n FROM item_rollups WHERE name = 'api' AND res = 'm' AND bucket = ?", T0),
    4,
  );
  await kit.send(token, [sample(at(5), { containers: [api({ restarts: 1, startedAt: at(3) })] })]);
  assert.equal(kit.count("SELECT count(*) AS n FROM host_items WHERE name = 'api' AND gone_at IS NULL"), 1);
  assert.equal(kit.count('SELECT count(*) AS n FROM host_events'), 5, 'coming back is no restart');
});

test('a container that exits and is started again 3 times in 10 minutes fails, and its incident has the restarts as evidence', async (t) => {
  const kit = await hostServer({ config: staticConfig({ services: [shop] }) });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const at = (i: number) => T0 + i * 15_000;
  const api = (i: number, over: Parameters<typeof container>[0] = {}) =>
    container({ name: 'api', labels: { 'mon.service': 'shop' }, startedAt: at(i), ...over });
  // Seen exited (code 0, so no alert of its own) between starts: `docker start`, an outside supervisor.
  const exited = (i: number) => api(i, { state: 'exited', exitCode: 0 });
  const runs = [api(0), exited(0), api(2), exited(2), api(4), exited(4), api(6)];
  for (const [i, c] of runs.entries()) {
    assert.equal((await kit.send(token, [sample(at(i), { containers: [c] })])).status, 200);
  }
  const alerts = kit.db
    .prepare("SELECT detail, opened_at FROM incident_alerts WHERE key = 'container:web-1:api'")
    .all();
  assert.deepEqual(
    alerts.map((a) => [a.detail, a.opened_at]),
    [['restarted 3 times in 10 minutes', at(6)]],
  );
  const restarts = kit.db
    .prepare("SELECT ts, subject, service, detail FROM host_events WHERE kind = 'restart' ORDER BY id")
    .all();
  assert.deepEqual(
    restarts.map((e) => [e.ts, e.subject, e.service, e.detail]),
    [at(2), at(4), at(6)].map((ts) => [ts, 'api', 'shop', 'container restarted']),
    'the restarts the alert counted, as host events',
  );
  // They are what the incident is about, not its cause; an OOM kill of the container would be one.
  const { incident } = kit.db
    .prepare("SELECT incident FROM incident_alerts WHERE key = 'container:web-1:api'")
    .get() as {
    incident: string;
  };
  const read = (await kit.inject('GET', `/api/v1/incidents/${incident}`)).body as IncidentRead;
  assert.deepEqual(
    read.causes.map((c) => c.title),
    [],
    'a restart loop is not caused by its own restarts',
  );
});

test('a container started from a new image records an agent deploy, or a change of its host without a service', async (t) => {
  const kit = await hostServer({ config: staticConfig({ services: [{ ...shop, hosts: [] }] }) });
  t.after(() => kit.server.dispose());
  const one = await kit.addHost('web-1');
  const two = await kit.addHost('web-2');
  const api = (imageId: string, image: string) =>
    container({ name: 'api', image, imageId, labels: { 'com.docker.compose.project': 'shop' } });
  const redis = (imageId: string) => container({ name: 'redis', image: 'redis:7', imageId, labels: {} });
  for (const token of [one, two]) {
    await kit.send(token, [sample(T0, { containers: [api(IMAGE_A, 'shop/api:1.0'), redis(IMAGE_A)] })]);
  }
  await kit.send(one, [sample(T0 + 15_000, { containers: [api(IMAGE_B, 'shop/api:1.1'), redis(IMAGE_B)] })]);
  await kit.send(two, [sample(T0 + 30_000, { containers: [api(IMAGE_B, 'shop/api:1.1'), redis(IMAGE_A)] })]);

  const deploys = kit.db
    .prepare('SELECT service, version, ts, source, sources, host, description FROM deploys')
    .all();
  assert.deepEqual(
    deploys.map((d) => [d.service, d.version, d.ts, d.source, d.sources, d.host]),
    [['shop', 'shop/api:1.1 (bbbbbbbbbbbb)', T0 + 15_000, 'agent', 'agent', 'web-1']],
    'the same image on a second host within 2 minutes is the same deploy',
  );
  assert.equal(
    deploys[0]?.description,
    'container api on web-1: shop/api:1.0 (aaaaaaaaaaaa) → shop/api:1.1 (bbbbbbbbbbbb)',
  );
  // redis belongs to no service (no label, no name, and web-1 runs no service by mon.toml).
  const changes = kit.db
    .prepare('SELECT ts, kind, what, service, host, source, description FROM changes')
    .all();
  assert.deepEqual(
    changes.map((c) => ({ ...c })),
    [
      {
        ts: T0 + 15_000,
        kind: 'change',
        what: 'container redis started from a new image redis:7 (bbbbbbbbbbbb)',
        service: null,
        host: 'web-1',
        source: 'agent',
        description: 'container redis on web-1: redis:7 (aaaaaaaaaaaa) → redis:7 (bbbbbbbbbbbb)',
      },
    ],
  );
});

test("the agent's log lines are stored at their own times; a line dated ahead does not hold back later ones", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const log = (lines: [number, string][]) => ({
    kind: 'log',
    lines: lines.map(([ts, text]) => ({ ts, level: 'info', text })),
  });
  const first = log([
    [T0, 'agent started'],
    [T0, 'docker socket not found'],
    [T0 + 4 * 60_000, 'a line from a clock a little ahead'],
  ]);
  assert.deepEqual((await kit.send(token, [first])).body, { stored: 1, skipped: 0 });
  assert.deepEqual((await kit.send(token, [log([[T0 + 5, 'server answered 503']])])).body, {
    stored: 1,
    skipped: 0,
  });
  const lines = kit.db.prepare('SELECT ts, text FROM agent_logs WHERE host = ? ORDER BY ts').all('web-1');
  assert.deepEqual(
    lines.map((l) => l.text),
    ['agent started', 'docker socket not found', 'server answered 503', 'a line from a clock a little ahead'],
  );
});
