import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { MINUTE } from '../../protocol/durations.ts';
import type { HostAlert } from '../events.ts';
import { fileService, incidentServer } from '../incidents/testkit.ts';
import { queryPlan } from '../store/query-plan.ts';
import { all, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { pruneHosts } from './housekeeping.ts';
import { AROUND_START_MS, LARGEST_LISTED_SQL, LARGEST_ROLLUP_SQL, MAX_LOG_LINES } from './incident-view.ts';
import { addItemSamples, applyItems } from './items.ts';
import { membership } from './membership.ts';
import { addHostSample, HOST_METRICS, type HostMetrics } from './rollups.ts';
import { container, sample, unit } from './testkit.ts';

/**
 * An incident's read shows its hosts around the start (docs/incidents.md): CPU and memory, the
 * largest containers and units, the agent's log. Samples and log lines are seeded through the writer
 * as the agent's frames store them.
 */

type Kit = Awaited<ReturnType<typeof incidentServer>>;
const MB = 1_000_000;

const metrics = (cpu: number, memory: number): HostMetrics => ({
  ...(Object.fromEntries(HOST_METRICS.map((m) => [m, null])) as HostMetrics),
  cpu,
  memory,
});

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
    detail: 'no frame for 60 s',
  };
  const { deps } = kit.server;
  return deps.store.writer.run((_db, tx) => deps.events.dispatch(tx, [event], event.ts));
}

/** A sample's containers and units (name, CPU, memory MB) stored as ingest stores them: rows and rollups. */
function storeItems(
  kit: Kit,
  db: DatabaseSync,
  host: string,
  ts: number,
  containers: [string, number, number][],
  units: [string, number, number][] = [],
) {
  const frame = sample(ts, {
    containers: containers.map(([name, cpu, mem]) => container({ name, cpu, memory: mem * MB })),
    units: units.map(([name, cpu, mem]) => unit({ name, cpu, memory: mem * MB })),
  });
  applyItems(db, host, ts, frame.containers, frame.units, membership(db, kit.server.deps.config.current()));
  addItemSamples(db, host, frame);
}

test("an incident's host: CPU and memory 30 minutes around the start, its five largest containers and its units, its log lines nearest the start", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const start = kit.clock.now();
  const containers = ['db', 'api', 'web', 'cache', 'queue', 'cron'];
  await kit.server.deps.store.writer.run((db) => {
    // A container large only long before the start is not among the largest around it.
    storeItems(kit, db, 'web-1', start - 3 * 3_600_000, [['backup', 5, 9000]]);
    for (let m = -40; m < 40; m++) {
      const ts = start + m * MINUTE;
      addHostSample(db, 'web-1', ts, metrics(m < 0 ? 20 : 95, 50));
      // Memory in the order listed, largest first; cron the smallest, left out.
      const sizes = containers.map((name, i): [string, number, number] => [name, 1, 600 - i * 100]);
      storeItems(kit, db, 'web-1', ts, sizes, [['nginx.service', 2, 30]]);
    }
    const line = statement(db, 'INSERT INTO agent_logs (host, ts, level, text) VALUES (?, ?, ?, ?)');
    line.run('web-1', start - 20 * MINUTE, 'info', 'too early');
    for (let i = 0; i < 150; i++) line.run('web-1', start - 10 * MINUTE + i * 4000, 'warn', `line ${i}`);
    line.run('web-1', start + 6 * MINUTE, 'info', 'too late');
    line.run('web-2', start, 'error', 'another host');
  });
  await silence(kit, 'web-1', 'failing');
  await kit.clock.advance(45 * MINUTE);
  const [incident] = await kit.list();
  const read = await kit.read(incident!.id);
  assert.equal(read.hosts.length, 1);
  const [host] = read.hosts;
  assert.equal(host!.name, 'web-1');
  assert.equal(host!.stepMs, MINUTE);
  assert.equal(host!.x[0], start - AROUND_START_MS);
  assert.equal(host!.x.length, 61, '30 minutes before to 30 after');
  assert.equal(host!.cpu[0], 20);
  assert.equal(host!.cpu[30], 95);
  assert.equal(host!.memory[30], 50);
  assert.deepEqual(
    host!.containers.map((c) => c.name),
    ['db', 'api', 'web', 'cache', 'queue'],
  );
  assert.equal(host!.containers[0]!.mem[30], 600 * MB);
  assert.equal(host!.containers[0]!.x.length, 61);
  assert.deepEqual(
    host!.units.map((u) => [u.name, u.mem[0]]),
    [['nginx.service', 30 * MB]],
  );
  assert.equal(host!.logs.length, MAX_LOG_LINES);
  // 150 lines every 4 s from 10 minutes before: the 100 nearest the start, oldest first.
  assert.deepEqual(host!.logs[0], { ts: start - 10 * MINUTE + 50 * 4000, level: 'warn', text: 'line 50' });
  assert.equal(host!.logs.at(-1)!.text, 'line 149');
});

test("an incident's hosts: at most five, in its order, cut at its resolution; a host without an agent shows nothing", async (t) => {
  const hosts = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
  const kit = await incidentServer([fileService('shop', [], hosts)]);
  t.after(() => kit.server.dispose());
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  const start = kit.clock.now();
  await kit.recover(home);
  const resolvedAt = kit.clock.now();
  await kit.clock.advance(2 * 3_600_000);
  const [incident] = await kit.list();
  assert.equal(incident?.resolvedAt, resolvedAt);
  const read = await kit.read(incident!.id);
  assert.deepEqual(
    read.hosts.map((h) => h.name),
    // The host its check runs from (its alert's) first, then its service's.
    ['agent1', 'h1', 'h2', 'h3', 'h4'],
  );
  const h1 = read.hosts[1];
  assert.equal(h1!.x.at(-1), Math.floor(resolvedAt / MINUTE) * MINUTE, 'the charts end at the resolution');
  assert.ok(resolvedAt - start < AROUND_START_MS);
  assert.deepEqual(
    [h1!.cpu.every((v) => v === null), h1!.containers, h1!.units, h1!.logs],
    [true, [], [], []],
  );
});

test("an incident's largest items: memory, then CPU, then name; the same once the incident is days old and an item gone since is forgotten", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const start = kit.clock.now();
  // web and cache tie on memory (web has more CPU); queue and worker tie on both (queue first by name).
  const sizes: [string, number, number][] = [
    ['worker', 1, 300],
    ['cache', 2, 400],
    ['queue', 1, 300],
    ['api', 1, 500],
    ['web', 3, 400],
    ['db', 1, 600],
  ];
  await kit.server.deps.store.writer.run((db) => {
    for (let m = -40; m < 40; m++) storeItems(kit, db, 'web-1', start + m * MINUTE, sizes);
    // Another host's larger containers are not this host's.
    storeItems(kit, db, 'web-2', start, [['huge', 50, 9000]]);
    // queue is removed after the incident.
    storeItems(
      kit,
      db,
      'web-1',
      start + 40 * MINUTE,
      sizes.filter(([name]) => name !== 'queue'),
    );
  });
  await silence(kit, 'web-1', 'failing');
  await kit.clock.advance(45 * MINUTE);
  const [incident] = await kit.list();
  const largest = async () => (await kit.read(incident!.id)).hosts[0]!.containers.map((c) => c.name);
  const expected = ['db', 'api', 'web', 'cache', 'queue'];
  assert.deepEqual(await largest(), expected);
  // Two days on: the minute rollups are gone (10-minute steps now) and so is queue's row.
  await kit.clock.advance(2 * 86_400_000);
  await pruneHosts(kit.server.deps);
  const listed = await kit.server.deps.store.writer.run((db) =>
    all(db, "SELECT name FROM host_items WHERE host = 'web-1' ORDER BY name", mapper({ name: text })),
  );
  assert.deepEqual(
    listed.map((r) => r.name),
    ['api', 'cache', 'db', 'web', 'worker'],
    'queue was forgotten',
  );
  const read = await kit.read(incident!.id);
  assert.equal(read.hosts[0]!.stepMs, 10 * MINUTE);
  assert.deepEqual(await largest(), expected);
});

test("the largest items' reads start from the host's items: never every host's rollups in the span", async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  for (const sql of [LARGEST_LISTED_SQL, LARGEST_ROLLUP_SQL]) {
    const plan = await kit.server.deps.store.writer.run((db) => queryPlan(db, sql));
    const rollupSteps = plan.filter((line) => /\b(item_rollups|r)\b/.test(line));
    assert.ok(rollupSteps.length > 0, plan.join('\n'));
    for (const line of rollupSteps) {
      assert.match(line, /^SEARCH (item_rollups|r) USING PRIMARY KEY \(host=\? AND kind=\?/, plan.join('\n'));
    }
    assert.ok(!plan.some((line) => line.includes('item_rollups_by_age')), plan.join('\n'));
  }
});
