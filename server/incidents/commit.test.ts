import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncidentChange } from '../events.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { webhookAlert } from '../notify/testkit.ts';
import { int, scalar } from '../store/rows.ts';
import { within } from '../testing.ts';
import { incidentServer } from './testkit.ts';

/**
 * DESIGN rules 2 and 5 for incidents: an incident change is an event that commits with the check result
 * that caused it, and so do the notifications it queues; its live keys go out only once it can be read.
 */

test('the outbox rows of an incident change commit with the check result, and roll back with it', async (t) => {
  const receiver = await startReceiver();
  const kit = await incidentServer([], {
    alerts: [webhookAlert(0, 'ops', `${receiver.url}/ops`), webhookAlert(1, 'dev', `${receiver.url}/dev`)],
  });
  t.after(async () => {
    await kit.server.dispose();
    await receiver.close();
  });
  const { deps } = kit.server;
  let refuse = false;
  const received: IncidentChange[] = [];
  // Subscribed after the notifications: a throw here rolls back the rows they wrote in the same job.
  deps.events.subscribe((_db, events) => {
    for (const e of events) {
      if (e.type !== 'incident.change') continue;
      if (refuse) throw new Error('a later subscriber failed');
      received.push(e);
    }
  });
  const count = (sql: string) => scalar(deps.store.read, sql, int);
  const home = await kit.check('home', 'shop');
  await kit.run(home, 'down');
  await kit.clock.advance(10_000);

  refuse = true;
  await assert.rejects(kit.run(home, 'down'), /a later subscriber failed/);
  assert.equal(count('SELECT count(*) AS n FROM incidents'), 0, 'the incident rolled back');
  assert.equal(count('SELECT count(*) AS n FROM incident_events'), 0);
  assert.equal(count('SELECT count(*) AS n FROM outbox'), 0, 'and its notifications');
  assert.equal(count('SELECT count(*) AS n FROM check_runs'), 1, 'and the run that caused it');
  assert.equal(kit.engine.get(home)!.rec.state.status, 'unknown', 'memory too');
  assert.equal(receiver.received.length, 0, 'nothing was sent');

  refuse = false;
  await kit.run(home, 'down');
  assert.equal(count('SELECT count(*) AS n FROM incidents'), 1);
  assert.equal(count('SELECT count(*) AS n FROM check_runs'), 2);
  const [incident] = await kit.list();
  assert.deepEqual(
    deps.store.read
      .prepare('SELECT incident, channel, change FROM outbox ORDER BY id')
      .all()
      .map((r) => ({ ...r })),
    [
      { incident: incident!.id, channel: 'ops', change: 'opened' },
      { incident: incident!.id, channel: 'dev', change: 'opened' },
    ],
  );
  await within(5000, 'both are sent', () => receiver.received.length === 2);
  assert.deepEqual(received[0], {
    type: 'incident.change',
    incidentId: incident!.id,
    change: 'opened',
    ts: incident!.startedAt,
    title: 'shop: home down',
    service: 'shop',
    alert: {
      key: `check:${home}`,
      checkId: home,
      name: 'home',
      service: 'shop',
      impact: false,
      detail: 'connection refused',
    },
    by: null,
    inMaintenance: false,
  });

  // Recovery, resolution and acknowledgement are events too.
  const cart = await kit.check('cart', 'shop');
  await kit.fail(cart);
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await kit.recover(home);
  await kit.recover(cart);
  assert.deepEqual(
    received.map((e) => [e.change, e.alert?.name ?? null, e.by]),
    [
      ['opened', 'home', null],
      ['joined', 'cart', null],
      ['acknowledged', null, 'test'],
      ['recovered', 'home', null],
      ['recovered', 'cart', null],
      ['resolved', null, null],
    ],
  );
  assert.equal(received[3]?.alert?.detail, 'connected', 'a recovery carries the run that recovered it');
});

test('incident keys go out after the commit: what they announce can be read', async (t) => {
  const kit = await incidentServer();
  t.after(() => kit.server.dispose());
  const { deps } = kit.server;
  const seen: { keys: string[]; incidents: number; acknowledged: number }[] = [];
  deps.bus.subscribe((keys) => {
    if (!keys.includes('incidents')) return;
    seen.push({
      keys: [...keys],
      incidents: scalar(deps.store.read, 'SELECT count(*) AS n FROM incidents', int),
      acknowledged: scalar(
        deps.store.read,
        'SELECT count(*) AS n FROM incidents WHERE acknowledged_at IS NOT NULL',
        int,
      ),
    });
  });
  const home = await kit.check('home', 'shop');
  await kit.fail(home);
  const [incident] = await kit.list();
  const id = incident!.id;
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.incidents, 1, 'the incident was readable when announced');
  for (const key of [`incident:${id}`, 'incidents', 'overview', 'service:shop']) {
    assert.ok(seen[0]?.keys.includes(key), key);
  }

  assert.equal((await kit.inject('POST', `/api/v1/incidents/${id}/ack`)).status, 204);
  assert.equal(seen.length, 2);
  assert.equal(seen[1]?.acknowledged, 1);
  assert.ok(seen[1]?.keys.includes(`incident:${id}`));

  await kit.recover(home);
  assert.ok(seen.length >= 3);
  assert.ok(seen.at(-1)?.keys.includes(`incident:${id}`));
  assert.equal((await kit.read(id)).state, 'resolved');
});
