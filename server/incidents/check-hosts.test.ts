import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncidentRead, IncidentsList } from '../../protocol/incidents.ts';
import { container, hostServer, runFrame, sample, T0 } from '../hosts/testkit.ts';

/**
 * docs/incidents.md: the alert of a check an agent runs (`from`, or a command check its host declared)
 * names that host, so the incident's hosts, likely causes and maintenance windows take it in even when
 * the check's service lists no hosts. Everything goes through the agent's frames and the API.
 */

type Kit = Awaited<ReturnType<typeof hostServer>>;
const SAMPLE = 15_000;
const MINUTE = 60_000;

async function incidents(kit: Kit) {
  return ((await kit.inject('GET', '/api/v1/incidents')).body as IncidentsList).incidents;
}

/** Two failed runs 10 s apart, sent by the host's agent: the check goes down. */
async function fail(kit: Kit, token: string, id: string) {
  const at = kit.clock.now();
  const down = { status: 'down', latencyMs: null, detail: 'connection refused' };
  await kit.clock.advance(10_000);
  const res = await kit.send(token, [runFrame(id, at, down), runFrame(id, at + 10_000, down)]);
  assert.deepEqual(res.body, { stored: 2, skipped: 0 });
}

test('a check run from a host of a service without hosts: its incident has the host and ranks an OOM kill there', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-3');
  const body = { name: 'home', service: 'shop', kind: 'tcp', target: 'shop.internal:443', from: 'web-3' };
  const created = await kit.inject('POST', '/api/v1/checks', body);
  assert.equal(created.status, 201);
  const home = created.body.id as string;

  // A container of no service on web-3, killed for lack of memory 2 minutes before the check fails.
  const worker = (over: Parameters<typeof container>[0] = {}) => container({ name: 'worker', ...over });
  await kit.send(token, [sample(kit.clock.now(), { containers: [worker()] })]);
  await kit.clock.advance(SAMPLE);
  await kit.send(token, [
    sample(kit.clock.now(), { containers: [worker({ restarts: 1, oomKilled: true })] }),
  ]);
  // Samples go on meanwhile: the agent is not silent.
  for (let i = 0; i < 8; i++) {
    await kit.clock.advance(SAMPLE);
    await kit.send(token, [sample(kit.clock.now(), { containers: [worker({ restarts: 1 })] })]);
  }
  await fail(kit, token, home);

  const [incident, ...others] = await incidents(kit);
  assert.deepEqual(others, []);
  assert.deepEqual(
    [incident?.title, incident?.services, incident?.hosts],
    ['shop: home down', ['shop'], ['web-3']],
  );
  const read = (await kit.inject('GET', `/api/v1/incidents/${incident!.id}`)).body as IncidentRead;
  assert.deepEqual(
    read.alerts.map((a) => [a.key, a.host]),
    [[`check:${home}`, 'web-3']],
  );
  assert.deepEqual(
    read.hosts.map((h) => h.name),
    ['web-3'],
  );
  const [top] = read.causes;
  assert.deepEqual(
    [top?.kind, top?.title, top?.ref],
    ['container', 'worker on web-3 killed for memory', { host: 'web-3' }],
  );
  assert.equal(read.timeline[0]?.host, 'web-3');
});

test("a maintenance window of the host a check runs from holds the incident it opens, a command check's too", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-3');
  const window = { scope: 'host', name: 'web-3', starts: T0, ends: T0 + 60 * MINUTE, reason: 'kernel' };
  assert.equal((await kit.inject('POST', '/api/v1/maintenance', window)).status, 201);
  const disk = { name: 'disk', service: 'storage', command: 'df -P /', everyMs: 60_000, timeoutMs: 5_000 };
  const declared = await kit.send(token, [{ kind: 'declare', ts: T0, checks: [disk], problems: [] }]);
  assert.equal(declared.status, 200);
  const tcp = { name: 'home', service: 'shop', kind: 'tcp', target: 'shop.internal:443', from: 'web-3' };
  const home = (await kit.inject('POST', '/api/v1/checks', tcp)).body.id as string;
  const command = kit.engine.all().find((e) => e.rec.name === 'disk')!.rec.id;
  await fail(kit, token, home);
  await fail(kit, token, command);
  const marks = (await incidents(kit)).map((i) => [i.title, i.hosts, i.inMaintenance]);
  assert.deepEqual(marks.sort(), [
    ['shop: home down', ['web-3'], true],
    ['storage: disk down', ['web-3'], true],
  ]);
});
