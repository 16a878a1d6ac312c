import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileService } from '../incidents/testkit.ts';
import { statement } from '../store/statements.ts';
import { deliveryServer, webhookAlert } from './testkit.ts';

/**
 * Silences and maintenance windows hold notifications back: the rows are written `muted` with the
 * window's id and never sent. The windows are rows of their table here (the windows API is tested
 * with its own feature).
 */

type Kit = Awaited<ReturnType<typeof deliveryServer>>;
const MIN = 60_000;
const pause = () => new Promise((resolve) => setTimeout(resolve, 150));

function addWindow(
  kit: Kit,
  w: { id: string; kind: 'silence' | 'maintenance'; scope: 'all' | 'service' | 'host'; name: string | null },
  starts: number,
  ends: number,
) {
  return kit.server.deps.store.writer.run((db) =>
    statement(
      db,
      `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, NULL, 'test', ?, ?)`,
    ).run(w.id, w.kind, w.scope, w.name, starts, ends, starts, starts),
  );
}

test("a silence of an incident's host mutes what happens while it holds; the resolution after it is sent", async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)], {
    services: [fileService('shop', [], ['web-1'])],
  });
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  const now = clock.now();
  await addWindow(
    kit,
    { id: 'a0a0a0a0a0a0a0a0', kind: 'silence', scope: 'service', name: 'other' },
    now - MIN,
    now + 30 * MIN,
  );
  await addWindow(
    kit,
    { id: 'b1b1b1b1b1b1b1b1', kind: 'silence', scope: 'host', name: 'web-1' },
    now - MIN,
    now + 30 * MIN,
  );
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  const [incident] = await kit.list();
  await pause();
  assert.deepEqual(
    kit.outbox().map((r) => [r.change, r.state, r.heldBy, r.dueAt]),
    [['opened', 'muted', 'b1b1b1b1b1b1b1b1', null]],
    'held by the silence of its host, not by that of another service',
  );
  assert.equal(receiver.received.length, 0);
  assert.equal(await kit.outboxDue(), 0);

  await clock.advance(30 * MIN);
  await kit.recover(home);
  await kit.settled('the resolution is sent', () => kit.outbox()[1]?.state === 'sent');
  assert.deepEqual(
    receiver.received.map((r) => r.json.type),
    ['incident.resolved'],
  );
  const read = await kit.read(incident!.id);
  assert.deepEqual(
    read.deliveries.map((d) => [d.change, d.state, d.heldBy]),
    [
      ['opened', 'muted', 'b1b1b1b1b1b1b1b1'],
      ['resolved', 'sent', null],
    ],
  );
});

test('an incident opened in maintenance notifies nobody, even after the window ends or is deleted', async (t) => {
  const kit = await deliveryServer((url) => [
    webhookAlert(0, 'ops', `${url}/ops`),
    webhookAlert(1, 'dev', `${url}/dev`),
  ]);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  const now = clock.now();
  const maintenance = { id: 'c2c2c2c2c2c2c2c2', kind: 'maintenance', scope: 'all', name: null } as const;
  await addWindow(kit, maintenance, now - MIN, now + 10 * MIN);
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  const [incident] = await kit.list();
  // The incident lifecycle marks an incident opened in maintenance; here the mark is set by hand.
  await kit.server.deps.store.writer.run((db) =>
    statement(db, 'UPDATE incidents SET in_maintenance = 1 WHERE id = ?').run(incident!.id),
  );
  await clock.advance(15 * MIN);
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await kit.server.deps.store.writer.run((db) =>
    statement(db, 'DELETE FROM windows WHERE id = ?').run(maintenance.id),
  );
  await kit.recover(home);
  await pause();
  assert.equal(receiver.received.length, 0);
  assert.deepEqual(
    (await kit.read(incident!.id)).deliveries.map((d) => [d.channel, d.change, d.state, d.heldBy]),
    [
      ['ops', 'opened', 'muted', maintenance.id],
      ['dev', 'opened', 'muted', maintenance.id],
      ['ops', 'acknowledged', 'muted', maintenance.id],
      ['dev', 'acknowledged', 'muted', maintenance.id],
      ['ops', 'resolved', 'muted', null],
      ['dev', 'resolved', 'muted', null],
    ],
  );
  assert.equal((await kit.notifications(incident!.id)).length, 0, 'nothing was attempted');
});

test('what opened an incident decides its muting: a silence of a service that joined it mutes nothing, one of the opener does', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)], {
    services: [fileService('db'), fileService('shop', ['db'])],
  });
  t.after(() => kit.dispose());
  const { clock } = kit;
  const db = await kit.check('primary', 'db');
  const shop = await kit.check('home', 'shop');
  await kit.fail(db);
  await kit.fail(shop);
  const [incident] = await kit.list();
  assert.equal((await kit.read(incident!.id)).alerts.length, 2, 'shop joined the incident db opened');
  const now = clock.now();
  const downstream = { id: 'e4e4e4e4e4e4e4e4', kind: 'silence', scope: 'service', name: 'shop' } as const;
  await addWindow(kit, downstream, now, now + 60 * MIN);
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await kit.settled('the acknowledgement is sent', () => kit.outbox()[1]?.state === 'sent');

  const upstream = { id: 'f5f5f5f5f5f5f5f5', kind: 'silence', scope: 'service', name: 'db' } as const;
  await addWindow(kit, upstream, clock.now(), clock.now() + 60 * MIN);
  await kit.recover(db);
  await kit.recover(shop);
  await pause();
  assert.deepEqual(
    (await kit.read(incident!.id)).deliveries.map((d) => [d.change, d.state, d.heldBy]),
    [
      ['opened', 'sent', null],
      ['acknowledged', 'sent', null],
      ['resolved', 'muted', upstream.id],
    ],
  );
});
