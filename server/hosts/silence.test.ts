import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { AGENT_SILENT_AFTER_MS } from '../../protocol/agent.ts';
import type { HostRead, HostsList } from '../../protocol/hosts.ts';
import { FakeClock } from '../clock.ts';
import type { HostAlert } from '../events.ts';
import { memoryLog, within } from '../testing.ts';
import { hostServer, runFrame, sample, T0 } from './testkit.ts';

const http = (name: string, from: string) => ({
  name,
  service: 'shop',
  kind: 'http',
  target: `https://${name}.example.com/`,
  from,
});
const run = (id: string, ts: number) => runFrame(id, ts);
const connected = async (kit: Awaited<ReturnType<typeof hostServer>>) =>
  Number(/^mon_agents_connected (\d+)$/m.exec(await kit.server.deps.metrics.text())?.[1]);

test('an agent without a frame for 60 s goes silent: its checks turn unknown and its alert fails; a frame ends it', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const alerts: HostAlert[] = [];
  kit.server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'host.alert') alerts.push(e);
  });
  const one = await kit.addHost('web-1');
  const two = await kit.addHost('web-2');
  await kit.addHost('never-seen');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  const other = (await kit.inject('POST', '/api/v1/checks', http('other', 'web-2'))).body.id as string;
  assert.deepEqual((await kit.send(one, [sample(T0), run(home, T0)])).body, { stored: 2, skipped: 0 });
  await kit.send(two, [sample(T0), run(other, T0)]);
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up');
  assert.equal(await connected(kit), 2);

  // web-2 keeps sending every 15 s; web-1 stops.
  for (let i = 1; i <= 3; i++) {
    await kit.clock.advance(15_000);
    await kit.send(two, [sample(T0 + i * 15_000)]);
  }
  await kit.clock.advance(AGENT_SILENT_AFTER_MS - 45_001);
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 0);
  await kit.clock.advance(1);
  await kit.engine.flush();
  const silentAt = T0 + AGENT_SILENT_AFTER_MS;
  assert.deepEqual(
    kit.db
      .prepare('SELECT name, silent_since FROM hosts WHERE silent_since IS NOT NULL')
      .all()
      .map((r) => ({ ...r })),
    [{ name: 'web-1', silent_since: silentAt }],
    'only the host that stopped; a host never seen is never silent',
  );
  assert.deepEqual(
    kit.db
      .prepare('SELECT host, ts, kind, subject, detail FROM host_events')
      .all()
      .map((r) => ({ ...r })),
    [{ host: 'web-1', ts: silentAt, kind: 'silent', subject: 'agent', detail: 'no frame for 60 s' }],
  );
  assert.deepEqual(alerts, [
    {
      type: 'host.alert',
      host: 'web-1',
      key: 'agent:web-1',
      metric: 'agent',
      name: 'web-1 agent',
      service: null,
      state: 'failing',
      ts: silentAt,
      detail: 'no frame for 60 s',
    },
  ]);
  assert.equal(kit.engine.get(home)!.rec.state.status, 'unknown');
  assert.equal(kit.engine.get(home)!.rec.lastDetail, 'the agent on web-1 is silent');
  assert.equal(kit.engine.get(other)!.rec.state.status, 'up');
  assert.equal(await connected(kit), 1);
  // The host's reads show the silence as its alert, with the incident that holds it.
  const read = (await kit.inject('GET', '/api/v1/hosts/web-1')).body as HostRead;
  assert.deepEqual(
    read.alerting.map(({ key, metric, name, detail, since }) => ({ key, metric, name, detail, since })),
    [
      {
        key: 'agent:web-1',
        metric: 'agent',
        name: 'web-1 agent',
        detail: 'no frame for 60 s',
        since: silentAt,
      },
    ],
  );
  assert.match(String(read.alerting[0]?.incident), /^[0-9a-f]{16}$/);
  const alerting = async () =>
    Object.fromEntries(
      ((await kit.inject('GET', '/api/v1/hosts')).body as HostsList).hosts.map((h) => [h.name, h.alerting]),
    );
  assert.deepEqual(await alerting(), { 'never-seen': 0, 'web-1': 1, 'web-2': 0 });

  // The next frame ends the silence; the check is known again at its next run.
  await kit.clock.advance(5 * 60_000);
  const back = T0 + AGENT_SILENT_AFTER_MS + 5 * 60_000;
  await kit.send(one, [sample(back), run(home, back)]);
  assert.deepEqual(
    kit.db
      .prepare('SELECT name FROM hosts WHERE silent_since IS NOT NULL')
      .all()
      .map((r) => r.name),
    ['web-2'],
    'web-1 is back; web-2 went silent meanwhile',
  );
  assert.deepEqual(
    alerts.slice(1).map((a) => [a.key, a.state, a.ts, a.detail]),
    [
      ['agent:web-2', 'failing', T0 + 45_000 + AGENT_SILENT_AFTER_MS, 'no frame for 60 s'],
      ['agent:web-1', 'recovered', back, 'a frame arrived after 6 min without one'],
    ],
  );
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up');
  assert.equal(await connected(kit), 1);
  assert.deepEqual(((await kit.inject('GET', '/api/v1/hosts/web-1')).body as HostRead).alerting, []);
  assert.deepEqual(await alerting(), { 'never-seen': 0, 'web-1': 0, 'web-2': 1 });
});

test('after a restart silence counts from the start, not from the last frame: no host goes silent at once', async (t) => {
  const first = await hostServer();
  const one = await first.addHost('web-1');
  const two = await first.addHost('web-2');
  await first.send(one, [sample(T0)]);
  await first.send(two, [sample(T0)]);
  await first.server.close();

  // The server was down an hour.
  const clock = new FakeClock(T0 + 3_600_000);
  const kit = await hostServer({ dataDir: first.server.dataDir, clock });
  t.after(() => kit.server.dispose());
  const silent = () =>
    kit.db
      .prepare('SELECT name FROM hosts WHERE silent_since IS NOT NULL')
      .all()
      .map((r) => r.name);
  assert.equal(await connected(kit), 0, 'no frame within the timeout yet');
  await clock.advance(30_000);
  await kit.send(one, [sample(T0 + 3_630_000)]);
  assert.equal(await connected(kit), 1);
  await clock.advance(AGENT_SILENT_AFTER_MS - 30_001);
  assert.deepEqual(silent(), [], 'a minute of grace after the start');
  await clock.advance(1);
  assert.deepEqual(silent(), ['web-2']);
  assert.equal(
    (kit.db.prepare("SELECT detail FROM host_events WHERE kind = 'silent'").get() as { detail: string })
      .detail,
    'no frame for 1 h 1 min',
  );
  assert.equal(await connected(kit), 1);
});

test('a silence and the unknowns of its checks commit in one writer job', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await kit.send(token, [sample(T0), run(home, T0)]);
  const seen: { type: string; tx: unknown }[] = [];
  kit.server.deps.events.subscribe((_db, events, _now, tx) => {
    for (const e of events) seen.push({ type: e.type, tx });
  });
  await kit.clock.advance(AGENT_SILENT_AFTER_MS);
  const alert = seen.find((s) => s.type === 'host.alert');
  const transition = seen.find((s) => s.type === 'check.transition');
  assert.ok(alert && transition);
  assert.equal(transition.tx, alert.tx, 'the same transaction');
  assert.equal(
    (kit.db.prepare('SELECT status FROM checks WHERE id = ?').get(home) as { status: string }).status,
    'unknown',
  );
});

test('after a restart, checks of a host already silent are unknown even if the silence was all that was stored', async (t) => {
  const first = await hostServer();
  const token = await first.addHost('web-1');
  const home = (await first.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await first.send(token, [sample(T0), run(home, T0)]);
  await first.server.close();
  // As if the server stopped between the silence and its checks' unknowns.
  const db = new DatabaseSync(join(first.server.dataDir, 'mon.db'));
  db.prepare('UPDATE hosts SET silent_since = ?').run(T0 + AGENT_SILENT_AFTER_MS);
  db.close();

  const kit = await hostServer({ dataDir: first.server.dataDir, clock: new FakeClock(T0 + 120_000) });
  t.after(() => kit.server.dispose());
  await kit.engine.flush();
  assert.equal(kit.engine.get(home)!.rec.state.status, 'unknown');
  assert.equal(kit.engine.get(home)!.rec.lastDetail, 'the agent on web-1 is silent');
});

test('a check created for a host whose agent never connected, or moved to a silent one, says why it is unknown', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const one = await kit.addHost('web-1');
  await kit.addHost('web-2');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  const away = (await kit.inject('POST', '/api/v1/checks', http('away', 'web-2'))).body.id as string;
  await kit.engine.flush();
  assert.equal(kit.engine.get(away)!.rec.lastDetail, 'the agent on web-2 has not connected yet');
  assert.equal(kit.engine.get(home)!.rec.lastDetail, 'the agent on web-1 has not connected yet');

  await kit.send(one, [sample(T0), run(home, T0)]);
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up');
  await kit.clock.advance(AGENT_SILENT_AFTER_MS);
  // web-1 is silent; a check that ran elsewhere and moves to it keeps no state nobody updates.
  await kit.addHost('web-3');
  const elsewhere = (await kit.inject('POST', '/api/v1/checks', http('elsewhere', 'web-3'))).body
    .id as string;
  await kit.engine.flush();
  await kit.engine.recordRun(elsewhere, { status: 'up', latencyMs: 5, detail: '200 OK' }, kit.clock.now());
  assert.equal(kit.engine.get(elsewhere)!.rec.state.status, 'up');
  await kit.clock.advance(1_000);
  assert.equal(
    (await kit.inject('PUT', `/api/v1/checks/${elsewhere}`, http('elsewhere', 'web-1'))).status,
    200,
  );
  await kit.engine.flush();
  assert.equal(kit.engine.get(elsewhere)!.rec.state.status, 'unknown');
  assert.equal(kit.engine.get(elsewhere)!.rec.lastDetail, 'the agent on web-1 is silent');
});

test('a silence storage could not take is stored when tried again', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log, store: { maxWaitMs: 200 } });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.send(token, [sample(T0)]);
  const other = new DatabaseSync(join(kit.server.dataDir, 'mon.db'));
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  await kit.clock.advance(AGENT_SILENT_AFTER_MS);
  await within(3_000, 'the silence job fails', () =>
    memory.lines().some((l) => l.message === 'agent silence not stored; trying again'),
  );
  other.exec('ROLLBACK');
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 0);
  await kit.clock.advance(5_000);
  await kit.server.deps.store.writer.flush();
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 1);
});
