import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiskSample } from '../../protocol/agent.ts';
import type { HostAlert } from '../events.ts';
import { applyHostAlerts } from '../hosts/alerting.ts';
import { defaultHostAlerts } from '../hosts/config.ts';
import { membership } from '../hosts/membership.ts';
import { HOST_METRICS, type HostMetrics } from '../hosts/rollups.ts';
import { container } from '../hosts/testkit.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import type { WebhookPayload } from '../notify/channels/webhook.ts';
import { webhookAlert } from '../notify/testkit.ts';
import { statement } from '../store/statements.ts';
import { within } from '../testing.ts';
import { fileService, incidentServer } from './testkit.ts';

/**
 * docs/incidents.md "Lifecycle", host alerts: samples go through `applyHostAlerts` and their alerts are
 * dispatched in the same writer job, as the agent's frames are stored; the agent's silence is the event
 * its watch dispatches.
 */

type Kit = Awaited<ReturnType<typeof incidentServer>>;
const SAMPLE = 15_000;
const MIN = 60_000;

/** Each kit's hosts' latest samples, as `hosts.latest` keeps them for the writer job. */
const latest = new WeakMap<Kit, Map<string, number>>();

/** One sample of a host, stored now: its alerts are dispatched in the writer job that judges it. */
function sample(
  kit: Kit,
  host: string,
  over: { cpu?: number; disks?: DiskSample[]; containers?: ReturnType<typeof container>[] } = {},
) {
  const { deps } = kit.server;
  const ts = kit.clock.now();
  const metrics = Object.fromEntries(HOST_METRICS.map((m) => [m, 20])) as HostMetrics;
  const hosts = latest.get(kit) ?? new Map<string, number>();
  latest.set(kit, hosts);
  const previous = hosts.get(host) ?? null;
  hosts.set(host, ts);
  return deps.store.writer.run((db, tx) => {
    const alerts = applyHostAlerts(db, {
      host,
      ts,
      previous,
      metrics: { ...metrics, cpu: over.cpu ?? 20 },
      disks: over.disks ?? [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 40, size: 100 }],
      containers: over.containers ?? [],
      alerts: defaultHostAlerts,
      membership: membership(db, deps.config.current()),
    });
    deps.events.dispatch(tx, alerts, ts);
  });
}

/** CPU at `cpu` for 5 minutes and one sample more. */
async function hot(kit: Kit, host: string, cpu = 97) {
  for (let i = 0; i <= 20; i++) {
    await sample(kit, host, { cpu });
    await kit.clock.advance(SAMPLE);
  }
}

/** Two samples at 30%: the CPU alert recovers. */
async function cool(kit: Kit, host: string, disks?: DiskSample[]) {
  await sample(kit, host, { cpu: 30, ...(disks && { disks }) });
  await kit.clock.advance(SAMPLE);
  await sample(kit, host, { cpu: 30, ...(disks && { disks }) });
}

/** The agent's silence, as its watch dispatches it (no summary: the incident says "agent silent"). */
function silence(kit: Kit, host: string, state: 'failing' | 'recovered') {
  const event: HostAlert = {
    type: 'host.alert',
    host,
    key: `agent:${host}`,
    metric: 'agent',
    name: `${host} agent`,
    service: null,
    state,
    ts: kit.clock.now(),
    detail: state === 'failing' ? 'no frame for 60 s' : 'a frame arrived',
  };
  const { deps } = kit.server;
  return deps.store.writer.run((_db, tx) => deps.events.dispatch(tx, [event], event.ts));
}

const fullDisk: DiskSample[] = [{ mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 97, size: 100 }];

test("a host's CPU alert opens an incident of its own; its disk alert joins it; it resolves when both recover", async (t) => {
  const kit = await incidentServer([fileService('shop', [], ['web-1'])]);
  t.after(() => kit.server.dispose());
  await hot(kit, 'web-1');
  const [incident, ...others] = await kit.list();
  assert.deepEqual(others, []);
  assert.ok(incident);
  assert.deepEqual(
    [incident.title, incident.services, incident.hosts, incident.alertCount],
    ['web-1: CPU above 90%', [], ['web-1'], 1],
  );
  // Its own crossing, recorded as evidence for other incidents, is no cause of it.
  assert.equal(incident.topCause, null);
  assert.deepEqual((await kit.read(incident.id)).causes, []);
  await sample(kit, 'web-1', { cpu: 97, disks: fullDisk });
  await kit.clock.advance(SAMPLE);
  const read = await kit.read(incident.id);
  assert.deepEqual(
    read.alerts.map((a) => [a.key, a.name, a.service, a.host, a.detail, a.status, a.check]),
    [
      ['host:web-1:cpu', 'web-1 CPU', null, 'web-1', 'CPU above 90% for 5 minutes (97%)', null, null],
      ['host:web-1:disk', 'web-1 disk', null, 'web-1', 'disk / 97% full (limit 90%)', null, null],
    ],
  );
  // Another host's alert opens its own incident.
  await hot(kit, 'web-2');
  assert.deepEqual((await kit.list()).map((i) => i.title).sort(), [
    'web-1: CPU above 90%',
    'web-2: CPU above 90%',
  ]);

  await cool(kit, 'web-1', fullDisk);
  assert.equal((await kit.read(incident.id)).state, 'open', 'the disk is still full');
  await cool(kit, 'web-1');
  const resolved = await kit.read(incident.id);
  assert.equal(resolved.state, 'resolved');
  assert.deepEqual(
    resolved.timeline.map((r) => [r.kind, r.title, r.host]),
    [
      ['opened', 'web-1: CPU above 90%', 'web-1'],
      ['alert', 'web-1: disk / 97% full', 'web-1'],
      ['recovered', 'web-1 CPU recovered', 'web-1'],
      ['recovered', 'web-1 disk recovered', 'web-1'],
      ['resolved', 'resolved: every alert recovered', null],
    ],
  );
  // Failing again after the resolution opens a new incident.
  await hot(kit, 'web-1');
  assert.equal((await kit.list()).filter((i) => i.state === 'open' && i.hosts[0] === 'web-1').length, 1);
});

test('a silent agent opens "web-1: agent silent", which the host\'s other alerts join; its return recovers its alert', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  await silence(kit, 'web-1', 'failing');
  const [incident] = await kit.list();
  assert.deepEqual([incident?.title, incident?.hosts], ['web-1: agent silent', ['web-1']]);
  // A threshold of the same host while it is open joins it.
  await sample(kit, 'web-1', { disks: fullDisk });
  assert.equal((await kit.read(incident!.id)).alertCount, 2);
  await kit.clock.advance(MIN);
  await silence(kit, 'web-1', 'recovered');
  const read = await kit.read(incident!.id);
  assert.equal(read.state, 'open', 'the disk is still full');
  assert.deepEqual(read.alerts[0]!.recoveredAt, kit.clock.now());
});

test("a container alert joins its service's open incident, else opens one for the service", async (t) => {
  const kit = await incidentServer([fileService('api', [], ['web-1']), fileService('shop')]);
  t.after(() => kit.server.dispose());
  const health = await kit.check('api-health', 'api');
  await kit.fail(health);
  const [apiIncident] = await kit.list();
  const loop = async (name: string, service: string) => {
    for (let restarts = 0; restarts <= 3; restarts++) {
      const c = container({ name, restarts, labels: { 'mon.service': service } });
      await sample(kit, 'web-1', { containers: [c] });
      await kit.clock.advance(MIN);
    }
  };
  await loop('api-1', 'api');
  const joined = await kit.read(apiIncident!.id);
  assert.deepEqual(
    joined.alerts.map((a) => [a.key, a.name, a.service, a.host, a.impact]),
    [
      [`check:${health}`, 'api-health', 'api', 'agent1', false],
      ['container:web-1:api-1', 'api-1 on web-1', 'api', 'web-1', false],
    ],
  );
  assert.equal(joined.timeline.at(-1)?.title, 'api-1 on web-1 restarting in a loop');

  await loop('shop-1', 'shop');
  const shop = (await kit.list()).find((i) => i.id !== apiIncident!.id);
  assert.deepEqual(
    [shop?.title, shop?.services, shop?.hosts],
    ['shop: shop-1 on web-1 restarting in a loop', ['shop'], ['web-1']],
  );
  // The container removed: 10 minutes later (it could be a turn of a loop) its alert recovers and the
  // shop's incident resolves.
  await sample(kit, 'web-1', { containers: [] });
  await kit.clock.advance(10 * MIN - 1);
  await sample(kit, 'web-1', { containers: [] });
  assert.equal((await kit.read(shop!.id)).state, 'open');
  await kit.clock.advance(1);
  await sample(kit, 'web-1', { containers: [] });
  assert.equal((await kit.read(shop!.id)).state, 'resolved');
});

test('a container alert of a service that depends on one with an open incident joins that incident as impact', async (t) => {
  const kit = await incidentServer([fileService('api'), fileService('shop', ['api'])]);
  t.after(() => kit.server.dispose());
  const health = await kit.check('api-health', 'api');
  await kit.fail(health);
  const [apiIncident] = await kit.list();
  const exited = container({
    name: 'shop-1',
    state: 'exited',
    exitCode: 1,
    labels: { 'mon.service': 'shop' },
  });
  await sample(kit, 'web-1', { containers: [exited] });
  const list = await kit.list();
  assert.deepEqual(
    list.map((i) => [i.id, i.services]),
    [[apiIncident!.id, ['api', 'shop']]],
  );
  const read = await kit.read(apiIncident!.id);
  assert.deepEqual(
    read.alerts.map((a) => [a.key, a.service, a.impact]),
    [
      [`check:${health}`, 'api', false],
      ['container:web-1:shop-1', 'shop', true],
    ],
  );
  assert.equal(read.timeline.at(-1)?.title, 'shop-1 on web-1 exited with an error: shop depends on api');
});

test("a maintenance window of the host marks the incident it opens; another host's is not", async (t) => {
  const kit = await incidentServer([fileService('shop')]);
  t.after(() => kit.server.dispose());
  const now = kit.clock.now();
  await kit.server.deps.store.writer.run((db) =>
    statement(
      db,
      `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
       VALUES ('a0a0a0a0a0a0a0a0', 'maintenance', 'host', 'web-1', ?, ?, NULL, 'test', ?, ?)`,
    ).run(now, now + 60 * MIN, now, now),
  );
  await sample(kit, 'web-1', { disks: fullDisk });
  await sample(kit, 'web-2', { disks: fullDisk });
  // A container of shop on web-1 opens shop's incident: the window of its host holds it too.
  await sample(kit, 'web-1', {
    containers: [
      container({ name: 'shop-1', state: 'exited', exitCode: 1, labels: { 'mon.service': 'shop' } }),
    ],
  });
  const marks = Object.fromEntries((await kit.list()).map((i) => [i.title, i.inMaintenance]));
  assert.deepEqual(marks, {
    'web-1: disk / 97% full': true,
    'web-2: disk / 97% full': false,
    'shop: shop-1 on web-1 exited with an error': true,
  });
});

test('a host incident writes its notifications like any other', async (t) => {
  const receiver = await startReceiver();
  const kit = await incidentServer([], { alerts: [webhookAlert(0, 'ops', `${receiver.url}/ops`)] });
  t.after(async () => {
    await kit.server.dispose();
    await receiver.close();
  });
  await silence(kit, 'web-1', 'failing');
  const [incident] = await kit.list();
  const rows = kit.server.deps.store.read
    .prepare('SELECT incident, channel, change FROM outbox ORDER BY id')
    .all()
    .map((r) => ({ ...r }));
  assert.deepEqual(rows, [{ incident: incident!.id, channel: 'ops', change: 'opened' }]);
  await within(5000, 'the message is sent', () => receiver.received.length === 1);
  const body = receiver.received[0]!.json as WebhookPayload;
  assert.equal(body.data.summary, 'Incident opened: web-1: agent silent');
  assert.deepEqual(
    body.data.failing.map((a) => [a.name, a.service, a.host, a.detail]),
    [['web-1 agent', null, 'web-1', 'no frame for 60 s']],
  );
});
