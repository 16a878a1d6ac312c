import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AGENT_SILENT_AFTER_MS } from '../../protocol/agent.ts';
import type { HostsList } from '../../protocol/hosts.ts';
import type { IncidentRead } from '../../protocol/incidents.ts';
import { fileCheck, liveConfig } from '../checks/testkit.ts';
import { fileService } from '../incidents/testkit.ts';
import { statement } from '../store/statements.ts';
import { memoryLog, within } from '../testing.ts';
import { defaultHostAlerts } from './config.ts';
import { pruneHosts } from './housekeeping.ts';
import { purgeRemovedHosts, removeHost } from './remove.ts';
import { container, hostServer, sample, storeSample, T0, unit } from './testkit.ts';

type Kit = Awaited<ReturnType<typeof hostServer>>;

/** The rows each table keyed by host holds for `host`. */
function rowsOf(kit: Kit, host: string): Record<string, number> {
  const tables = [
    'host_rollups',
    'item_rollups',
    'host_items',
    'host_events',
    'agent_logs',
    'host_alert_states',
    'host_item_counts',
    'agent_batches',
    'service_hosts',
  ];
  const rows: Record<string, number> = {};
  for (const t of tables) rows[t] = kit.count(`SELECT count(*) AS n FROM ${t} WHERE host = ?`, host);
  rows.hosts = kit.count('SELECT count(*) AS n FROM hosts WHERE name = ?', host);
  return rows;
}

const http = (name: string, from: string) => ({
  name,
  service: 'blog',
  kind: 'http',
  target: `https://${name}.example.com/`,
  from,
});

const connected = async (kit: Kit) =>
  Number(/^mon_agents_connected (\d+)$/m.exec(await kit.server.deps.metrics.text())?.[1]);

test('DELETE /hosts/{name} refuses an unknown host (404), a host of mon.toml and one checks run from (409, naming them)', async (t) => {
  const config = liveConfig({
    hosts: [{ name: 'db-1', alerts: defaultHostAlerts }],
    services: [fileService('shop', [], ['app-1'])],
  });
  const kit = await hostServer({ config: config.service });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.addHost('db-1');

  const unknown = await kit.inject('DELETE', '/api/v1/hosts/nope');
  assert.deepEqual([unknown.status, unknown.body.detail], [404, 'no host nope']);
  for (const name of ['db-1', 'app-1']) {
    const res = await kit.inject('DELETE', `/api/v1/hosts/${name}`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.match(
      res.body.detail,
      new RegExp(`^the host "${name}" is defined in mon.toml .*take it out of the file`),
    );
  }
  assert.equal(rowsOf(kit, 'db-1').hosts, 1, 'a refused removal keeps the host');

  const home = await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'));
  const api = await kit.inject('POST', '/api/v1/checks', http('api', 'web-1'));
  assert.deepEqual([home.status, api.status], [201, 201]);
  const busy = await kit.inject('DELETE', '/api/v1/hosts/web-1');
  assert.equal(busy.status, 409);
  assert.equal(
    busy.body.detail,
    'checks run from the host "web-1": "api" (panel), "home" (panel); change their from or delete them first',
  );
  assert.equal((await kit.send(token, [sample(T0)])).status, 200, 'its token still works');

  // Once nothing runs from it, it goes.
  await kit.inject('DELETE', `/api/v1/checks/${home.body.id}`);
  await kit.inject('PUT', `/api/v1/checks/${api.body.id}`, { ...http('api', 'web-1'), from: null });
  assert.equal((await kit.inject('DELETE', '/api/v1/hosts/web-1')).status, 204);
});

test('DELETE /hosts/{name} is refused while a mon.toml just swapped in has a check from it that is not stored yet', async (t) => {
  const config = liveConfig({});
  // The reload's window: the file in force names the check, the checks table does not hold it yet.
  let inForce = config.service.current;
  const kit = await hostServer({ config: { ...config.service, current: () => inForce() } });
  t.after(() => kit.server.dispose());
  await kit.addHost('web-1');
  const before = config.service.current();
  inForce = () => ({ ...before, checks: [fileCheck(0, { ...http('home', 'web-1'), kind: 'http' })] });
  const res = await kit.inject('DELETE', '/api/v1/hosts/web-1');
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(
    res.body.detail,
    'checks run from the host "web-1": "home" (mon.toml); change their from or delete them first',
  );
  assert.equal(rowsOf(kit, 'web-1').hosts, 1);
});

test('a removed host: token refused, its incident resolved as removed, its command checks, links and data gone; added again it starts afresh', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = await kit.addHost('web-2');
  const frames = (ts: number) => [
    {
      kind: 'declare',
      ts,
      checks: [
        { name: 'queue-depth', service: 'jobs', command: 'echo 1', everyMs: 60_000, timeoutMs: 5_000 },
      ],
      problems: [],
    },
    sample(ts, { containers: [container({ name: 'redis' })], units: [unit()] }),
    { kind: 'log', lines: [{ ts, level: 'warn', text: 'docker socket not found' }] },
  ];
  assert.equal((await kit.send(token, frames(T0), { batch: 'b1' })).status, 200);
  assert.equal((await kit.send(other, frames(T0), { batch: 'b1' })).status, 200);
  const linked = await kit.inject('POST', '/api/v1/discovered/monitor', {
    host: 'web-1',
    service: 'blog',
    check: null,
  });
  assert.equal(linked.status, 201);
  const commands = kit.count("SELECT count(*) AS n FROM checks WHERE name = 'queue-depth'");
  assert.equal(commands, 1);

  // web-1 goes quiet for good (its machine was replaced); web-2 keeps sending.
  for (let i = 1; i <= 4; i++) {
    await kit.clock.advance(15_000);
    await kit.send(other, [sample(T0 + i * 15_000)]);
  }
  await kit.clock.advance(AGENT_SILENT_AFTER_MS);
  await kit.send(other, [sample(kit.clock.now())]);
  await kit.engine.flush();
  const open = (await kit.inject('GET', '/api/v1/incidents')).body.incidents as {
    id: string;
    title: string;
  }[];
  const silent = open.find((i) => i.title === 'web-1: agent silent');
  assert.ok(silent, JSON.stringify(open));
  assert.equal(((await kit.inject('GET', '/api/v1/hosts')).body as HostsList).hosts.length, 2);
  assert.equal(await connected(kit), 1);
  const before = rowsOf(kit, 'web-1');
  for (const table of ['host_rollups', 'item_rollups', 'host_items', 'host_events', 'agent_logs']) {
    assert.ok(before[table]! > 0, `web-1 has ${table} rows to delete`);
  }
  const untouched = rowsOf(kit, 'web-2');

  // A poll of web-1 waiting for a change is answered 401 when the host goes.
  const tag = (await kit.poll(token)).body.assignment as string;
  const waiting = kit.poll(token, { assignment: tag });
  await within(2_000, 'the poll waits', () => kit.server.hosts.pollWaiting('web-1'));

  const removedAt = kit.clock.now();
  const res = await kit.inject('DELETE', '/api/v1/hosts/web-1');
  assert.equal(res.status, 204, JSON.stringify(res.body));
  assert.equal((await waiting).status, 401);

  // The token is revoked: frames and polls are refused.
  assert.equal((await kit.send(token, [sample(kit.clock.now())])).status, 401);
  assert.equal((await kit.poll(token)).status, 401);
  const logged = memory.lines().filter((l) => l.security === 'host.removed');
  assert.deepEqual(
    logged.map((l) => l.host),
    ['web-1'],
  );

  // Its incident resolved through the usual lifecycle, its alert closed as removed.
  const incident = (await kit.inject('GET', `/api/v1/incidents/${silent.id}`)).body as IncidentRead;
  assert.equal(incident.resolvedAt, removedAt);
  const rows = incident.timeline.filter((r) => r.ts === removedAt).map((r) => [r.kind, r.title, r.detail]);
  assert.deepEqual(rows, [
    ['recovered', 'web-1 agent removed', 'the host web-1 was removed'],
    ['resolved', 'resolved: every alert recovered', null],
  ]);

  // Gone from the reads at once; its data deleted by the jobs that follow; web-2's untouched.
  assert.equal((await kit.inject('GET', '/api/v1/hosts/web-1')).status, 404);
  await kit.server.hosts.pruned();
  const list = (await kit.inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.deepEqual(
    list.hosts.map((h) => h.name),
    ['web-2'],
  );
  assert.equal(await connected(kit), 1, 'web-2 only');
  assert.deepEqual(rowsOf(kit, 'web-1'), Object.fromEntries(Object.keys(before).map((k) => [k, 0])));
  assert.deepEqual(rowsOf(kit, 'web-2'), untouched);
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts_removed'), 0);
  assert.equal(
    kit.count("SELECT count(*) AS n FROM checks WHERE json_extract(body, '$.from') = 'web-1'"),
    0,
    'its command check went with it',
  );
  assert.equal(
    kit.count("SELECT count(*) AS n FROM services WHERE name = 'blog'"),
    0,
    'the empty linked service too',
  );
  assert.equal((await kit.inject('DELETE', '/api/v1/hosts/web-1')).status, 404);

  // Added again, it starts afresh.
  const again = await kit.inject('POST', '/api/v1/hosts', { name: 'web-1' });
  assert.deepEqual([again.status, again.body.replaced], [201, false]);
  const read = (await kit.inject('GET', '/api/v1/hosts/web-1')).body;
  assert.deepEqual([read.agent, read.containers.length, read.services], [null, 0, []]);
});

test('the data of a removed host goes in bounded jobs; the name cannot be added again until it is gone, and housekeeping finishes what a crash left', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  await kit.addHost('web-1');
  for (let i = 0; i < 30; i++) {
    await storeSample(
      kit.server,
      'web-1',
      sample(T0 + i * 60_000, { containers: [container({ name: 'redis' })] }),
    );
  }
  const rows = rowsOf(kit, 'web-1');
  const data = rows.host_rollups! + rows.item_rollups!;
  assert.ok(data > 60, `${data} rows of series`);

  await removeHost(kit.server.deps, kit.engine, 'web-1', () => {});
  const refused = await kit.inject('POST', '/api/v1/hosts', { name: 'web-1' });
  assert.equal(refused.status, 409);
  assert.match(refused.body.detail, /just removed and its data is being deleted; add it again in a moment/);

  const { deleted, jobs } = await purgeRemovedHosts(kit.server.deps, 10);
  assert.equal(deleted, data + 1, 'its series and its hosts_removed row');
  assert.ok(jobs >= Math.ceil(data / 10), `${jobs} jobs of at most 10 rows`);
  assert.equal((await kit.inject('POST', '/api/v1/hosts', { name: 'web-1' })).status, 201);

  // A removal whose deletion a crash cut short: the hourly pass deletes the rest.
  await kit.server.deps.store.writer.run((db) => {
    statement(db, 'INSERT INTO hosts_removed (name, removed_at) VALUES (?, ?)').run('old-1', T0);
    statement(db, "INSERT INTO agent_logs (host, ts, level, text) VALUES ('old-1', ?, 'info', 'x')").run(
      kit.clock.now(),
    );
  });
  await storeSample(kit.server, 'old-1', sample(kit.clock.now()));
  await kit.server.deps.store.writer.run((db) =>
    statement(db, "DELETE FROM hosts WHERE name = 'old-1'").run(),
  );
  await pruneHosts(kit.server.deps);
  assert.deepEqual(
    Object.values(rowsOf(kit, 'old-1')),
    Object.values(rowsOf(kit, 'old-1')).map(() => 0),
  );
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts_removed'), 0);
});

test('a removal a crash cut short is finished when the server starts again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mon-remove-'));
  const first = await hostServer({ dataDir: dir });
  await first.addHost('web-1');
  await storeSample(first.server, 'web-1', sample(T0, { containers: [container({ name: 'redis' })] }));
  await removeHost(first.server.deps, first.engine, 'web-1', () => {});
  assert.ok(rowsOf(first, 'web-1').host_rollups! > 0, 'stopped before its data went');
  await first.server.close();

  const again = await hostServer({ dataDir: dir });
  t.after(() => again.server.dispose());
  await again.server.hosts.pruned();
  assert.equal(again.count('SELECT count(*) AS n FROM hosts_removed'), 0);
  assert.ok(
    Object.values(rowsOf(again, 'web-1')).every((n) => n === 0),
    JSON.stringify(rowsOf(again, 'web-1')),
  );
});
