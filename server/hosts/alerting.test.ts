import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { ContainerSample, DiskSample } from '../../protocol/agent.ts';
import { MINUTE } from '../../protocol/durations.ts';
import type { HostAlerts } from '../../protocol/hosts.ts';
import { type LiveConfig, staticConfig } from '../config/service.ts';
import type { HostAlert } from '../events.ts';
import { fileService } from '../incidents/testkit.ts';
import { migrate } from '../store/db.ts';
import { int, scalar } from '../store/rows.ts';
import { alertsInForce, applyHostAlerts } from './alerting.ts';
import { defaultHostAlerts } from './config.ts';
import { membership } from './membership.ts';
import { HOST_METRICS, type HostMetrics } from './rollups.ts';
import { container } from './testkit.ts';

/** `applyHostAlerts` on a migrated database, as the writer job that stores each sample calls it. */

const t0 = Date.UTC(2026, 10, 23, 12);
const SAMPLE = 15_000;

function world(config: Partial<LiveConfig> = {}) {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  const live = staticConfig({ services: [fileService('api')], ...config }).current();
  let ts = t0;
  /** Each host's latest sample: the gap to it decides whether a spell above a limit goes on. */
  const previous = new Map<string, number>();
  /** One sample 15 s after the previous one. */
  const sample = (
    over: {
      metrics?: Partial<HostMetrics>;
      disks?: DiskSample[];
      containers?: ContainerSample[] | null;
    } = {},
    alerts: HostAlerts = defaultHostAlerts,
    host = 'web-1',
  ): HostAlert[] => {
    ts += SAMPLE;
    const metrics = {
      ...(Object.fromEntries(HOST_METRICS.map((m) => [m, 20])) as HostMetrics),
      ...over.metrics,
    };
    const before = previous.get(host) ?? null;
    previous.set(host, ts);
    return applyHostAlerts(db, {
      host,
      ts,
      previous: before,
      metrics,
      disks: over.disks ?? [disk('/', 40)],
      containers: over.containers === undefined ? [] : over.containers,
      alerts,
      membership: membership(db, live),
    });
  };
  const count = (sql: string) => scalar(db, sql, int);
  const changes = () => count('SELECT total_changes()');
  return { db, live, sample, count, changes, now: () => ts };
}

const disk = (mount: string, percent: number): DiskSample => ({
  mount,
  device: `/dev/sd${mount.length}`,
  fstype: 'ext4',
  used: percent,
  size: 100,
});

test('CPU above its limit for 5 minutes fails once, records the crossing, and recovers with its margin', () => {
  const w = world();
  const first = w.now() + SAMPLE;
  const events: HostAlert[] = [];
  for (let i = 0; i < 21; i++) events.push(...w.sample({ metrics: { cpu: 97 } }));
  assert.deepEqual(events, [
    {
      type: 'host.alert',
      host: 'web-1',
      key: 'host:web-1:cpu',
      metric: 'cpu',
      name: 'web-1 CPU',
      service: null,
      state: 'failing',
      ts: first + 5 * MINUTE,
      detail: 'CPU above 90% for 5 minutes (97%)',
      summary: 'CPU above 90%',
    },
  ]);
  assert.deepEqual(
    { ...w.db.prepare('SELECT ts, kind, subject, service, detail FROM host_events').get() },
    {
      ts: first,
      kind: 'threshold',
      subject: 'cpu',
      service: null,
      detail: 'CPU above 90% for 5 minutes (97%)',
    },
    'the crossing counts from when the value went over',
  );
  assert.deepEqual(
    {
      ...w.db
        .prepare("SELECT failing_since, detail FROM host_alert_states WHERE key = 'host:web-1:cpu'")
        .get(),
    },
    { failing_since: first + 5 * MINUTE, detail: 'CPU above 90% for 5 minutes (97%)' },
  );
  assert.deepEqual(w.sample({ metrics: { cpu: 84 } }), []);
  const [back, ...more] = w.sample({ metrics: { cpu: 30 } });
  assert.deepEqual(more, []);
  assert.deepEqual([back?.state, back?.detail], ['recovered', 'CPU at 30% (limit 90%)']);
  assert.equal(w.count('SELECT count(*) FROM host_alert_states'), 0, 'nothing kept once it recovered');
  assert.equal(w.count('SELECT count(*) FROM host_events'), 1);
});

test('a host under its limits with steady containers writes nothing per sample', () => {
  const w = world();
  const api = container({ labels: { 'mon.service': 'api' } });
  w.sample({ containers: [api] });
  assert.equal(w.count('SELECT count(*) FROM host_alert_states'), 1, "the container's restart count is kept");
  const before = w.changes();
  for (let i = 0; i < 10; i++) assert.deepEqual(w.sample({ containers: [api] }), []);
  assert.equal(w.changes(), before, 'no row written');
});

test('the disk alert follows the fullest filesystem not ignored, at once', () => {
  const w = world();
  const disks = [disk('/', 50), disk('/boot', 95)];
  assert.deepEqual(w.sample({ disks }, { ...defaultHostAlerts, ignoreMounts: ['/boot'] }), []);
  const [full] = w.sample({ disks });
  assert.equal(full?.key, 'host:web-1:disk');
  assert.equal(full?.detail, 'disk /boot 95% full (limit 90%)');
  assert.equal(full?.summary, 'disk /boot 95% full');
  // /boot ignored from now on: the fullest left is / at 50%, two samples below 85% recover.
  const ignoring = { ...defaultHostAlerts, ignoreMounts: ['/boot'] };
  assert.deepEqual(w.sample({ disks }, ignoring), []);
  assert.deepEqual(
    w.sample({ disks }, ignoring).map((e) => [e.state, e.detail]),
    [['recovered', 'disk / 50% full (limit 90%)']],
  );
});

test('turning a limit off recovers its failing alert; each host keeps its own states', () => {
  const w = world();
  const [failing] = w.sample({ disks: [disk('/', 99)] });
  assert.equal(failing?.state, 'failing');
  assert.deepEqual(w.sample({ disks: [disk('/', 99)] }, defaultHostAlerts, 'web-2').length, 1);
  const off = w.sample({ disks: [disk('/', 99)] }, { ...defaultHostAlerts, disk: null });
  assert.deepEqual(
    off.map((e) => [e.key, e.state, e.detail]),
    [['host:web-1:disk', 'recovered', 'the disk alert was turned off']],
  );
  assert.equal(w.count("SELECT count(*) FROM host_alert_states WHERE host = 'web-2'"), 1);
});

test('containers of a service raise alerts; containers of no service are ignored; a removed one recovers', () => {
  const w = world();
  const api = (over: Partial<ContainerSample>) => container({ labels: { 'mon.service': 'api' }, ...over });
  const stray = (restarts: number) => container({ id: 'f'.repeat(64), name: 'scratch', restarts });
  const events: HostAlert[] = [];
  for (let restarts = 0; restarts <= 3; restarts++)
    events.push(...w.sample({ containers: [api({ restarts }), stray(restarts)] }));
  assert.deepEqual(events, [
    {
      type: 'host.alert',
      host: 'web-1',
      key: 'container:web-1:api',
      metric: 'container',
      name: 'api on web-1',
      service: 'api',
      state: 'failing',
      ts: w.now(),
      detail: 'restarted 3 times in 10 minutes',
      summary: 'restarting in a loop',
    },
  ]);
  assert.equal(
    w.count("SELECT count(*) FROM host_alert_states WHERE key LIKE 'container:%scratch'"),
    0,
    'a container of no service is not judged',
  );
  // No runtime answered: nothing is known, nothing changes.
  assert.deepEqual(w.sample({ containers: null }), []);
  assert.equal(w.count('SELECT count(*) FROM host_alert_states WHERE failing_since IS NOT NULL'), 1);
  // Removed: it stays failing while its state is kept, 10 minutes from when it went missing.
  const goneAt = w.now() + SAMPLE;
  for (let at = goneAt; at < goneAt + 10 * MINUTE; at += SAMPLE)
    assert.deepEqual(w.sample({ containers: [stray(3)] }), []);
  assert.equal(w.count('SELECT count(*) FROM host_alert_states WHERE failing_since IS NOT NULL'), 1);
  const gone = w.sample({ containers: [stray(3)] });
  assert.equal(w.now(), goneAt + 10 * MINUTE);
  assert.deepEqual(
    gone.map((e) => [e.key, e.service, e.state, e.detail]),
    [['container:web-1:api', 'api', 'recovered', 'removed']],
  );
  assert.equal(w.count('SELECT count(*) FROM host_alert_states'), 0);
});

test('a container that leaves its service recovers at once', () => {
  const w = world();
  // Named apart from the service: a container named as a service belongs to it without a label.
  const inApi = (restarts: number) =>
    container({ name: 'api-1', labels: { 'mon.service': 'api' }, restarts });
  for (let restarts = 0; restarts <= 3; restarts++) w.sample({ containers: [inApi(restarts)] });
  const left = w.sample({ containers: [container({ name: 'api-1', restarts: 3 })] });
  assert.deepEqual(
    left.map((e) => [e.key, e.state, e.detail]),
    [['container:web-1:api-1', 'recovered', 'no longer part of a service']],
  );
  assert.equal(w.count('SELECT count(*) FROM host_alert_states'), 0);
});

test('a --rm loop builds up: a container name keeps its state across new ids and short absences', () => {
  const w = world();
  // `docker run --rm --name api` run again by a supervisor: a new id at each turn, RestartCount 0,
  // and one sample in two without it.
  const turn = (n: number) =>
    container({
      id: `${n}`.padStart(64, 'd'),
      labels: { 'mon.service': 'api' },
      startedAt: w.now() + SAMPLE,
    });
  const events: HostAlert[] = [];
  for (let n = 0; n < 4; n++) {
    events.push(...w.sample({ containers: [turn(n)] }));
    events.push(...w.sample({ containers: [] }));
  }
  assert.deepEqual(
    events.map((e) => [e.key, e.state, e.detail]),
    [['container:web-1:api', 'failing', 'restarted 3 times in 10 minutes']],
  );
  assert.equal(events[0]?.ts, w.now() - SAMPLE, 'at its fourth start');
  // Gone for good: failing until 10 minutes after it went missing, then removed.
  const after: HostAlert[] = [];
  for (let i = 0; i < 40; i++) after.push(...w.sample({ containers: [] }));
  assert.deepEqual(
    after.map((e) => [e.state, e.detail, e.ts]),
    [['recovered', 'removed', w.now()]],
  );
});

test('a failing threshold whose value is gone from two samples recovers: swap turned off, every disk ignored', () => {
  const w = world();
  for (let i = 0; i < 21; i++) w.sample({ metrics: { swap: 95 } });
  assert.equal(w.count('SELECT count(*) FROM host_alert_states WHERE failing_since IS NOT NULL'), 1);
  // swapoff -a: the samples have no swap from now on.
  assert.deepEqual(w.sample({ metrics: { swap: null } }), []);
  assert.equal(w.count("SELECT absent FROM host_alert_states WHERE key = 'host:web-1:swap'"), 1);
  assert.deepEqual(
    w.sample({ metrics: { swap: null } }).map((e) => [e.key, e.state, e.detail]),
    [['host:web-1:swap', 'recovered', 'no swap any more']],
  );
  assert.equal(w.count('SELECT count(*) FROM host_alert_states'), 0);
  assert.deepEqual(w.sample({ metrics: { swap: null } }), [], 'without swap, nothing more');

  const disks = [disk('/', 97), disk('/boot', 40)];
  assert.equal(w.sample({ disks })[0]?.state, 'failing');
  const ignoring = { ...defaultHostAlerts, ignoreMounts: ['/', '/boot'] };
  assert.deepEqual(w.sample({ disks }, ignoring), []);
  assert.deepEqual(
    w.sample({ disks }, ignoring).map((e) => [e.key, e.state, e.detail]),
    [['host:web-1:disk', 'recovered', 'no filesystem left to watch']],
  );
});

test('thresholds in force: a host of mon.toml takes its [[host]] table, else the defaults; the API only for other hosts', () => {
  const fileAlerts = { ...defaultHostAlerts, cpu: 95 };
  const w = world({
    hosts: [{ name: 'web-1', alerts: fileAlerts }],
    services: [fileService('api', [], ['app-1'])],
  });
  const apiAlerts = { ...defaultHostAlerts, memory: 70, ignoreMounts: ['/boot'] };
  for (const host of ['web-1', 'web-2', 'app-1'])
    w.db
      .prepare('INSERT INTO hosts (name, created_at, alerts) VALUES (?, 0, ?)')
      .run(host, JSON.stringify(apiAlerts));
  assert.deepEqual(alertsInForce(w.db, w.live, 'web-1'), { alerts: fileAlerts, from: 'file' });
  assert.deepEqual(alertsInForce(w.db, w.live, 'web-2'), { alerts: apiAlerts, from: 'api' });
  assert.deepEqual(alertsInForce(w.db, w.live, 'web-3'), { alerts: defaultHostAlerts, from: 'default' });
  // Named only in a service's hosts: the API may not change its thresholds, so its stored ones rest.
  assert.deepEqual(alertsInForce(w.db, w.live, 'app-1'), { alerts: defaultHostAlerts, from: 'default' });
  const unnamed = { ...w.live, services: [fileService('api')] };
  assert.deepEqual(alertsInForce(w.db, unnamed, 'app-1'), { alerts: apiAlerts, from: 'api' });
});
