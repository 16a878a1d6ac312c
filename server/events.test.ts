import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CheckTransition, type DomainEvent, DomainEvents, type IncidentChange } from './events.ts';
import { openStore } from './store/db.ts';
import { tempDir } from './testing.ts';

const transition: CheckTransition = {
  type: 'check.transition',
  checkId: 'c1',
  name: 'home',
  service: 'shop',
  kind: 'http',
  host: null,
  from: 'up',
  to: 'down',
  recovered: false,
  ts: 1000,
  detail: 'connection refused',
};

const opened: IncidentChange = {
  type: 'incident.change',
  incidentId: 'i1',
  change: 'opened',
  ts: 1000,
  title: 'shop: home down',
  service: 'shop',
  alert: null,
  by: null,
  inMaintenance: false,
};

test('events a subscriber dispatches reach every subscriber after the events that caused them, in the same job', async (t) => {
  const { dir, remove } = tempDir();
  const store = openStore(join(dir, 'mon.db'));
  t.after(async () => {
    await store.close();
    remove();
  });
  await store.writer.run((db) => db.exec('CREATE TABLE seen (who TEXT, type TEXT)'));
  const events = new DomainEvents();
  const order: string[] = [];
  let refuse = false;
  // The first subscriber reacts to a transition with an event of its own.
  events.subscribe((db, list, now, tx) => {
    for (const e of list) {
      order.push(`first:${e.type}`);
      db.prepare('INSERT INTO seen VALUES (?, ?)').run('first', e.type);
      if (e.type === 'check.transition') events.dispatch(tx, [opened], now);
    }
  });
  events.subscribe((db, list) => {
    for (const e of list) {
      order.push(`second:${e.type}`);
      db.prepare('INSERT INTO seen VALUES (?, ?)').run('second', e.type);
      if (refuse && e.type === 'incident.change') throw new Error('no outbox row');
    }
  });
  const seen = () => store.read.prepare('SELECT who, type FROM seen').all().length;

  await store.writer.run((_db, tx) => events.dispatch(tx, [transition], 2000));
  assert.deepEqual(order, [
    'first:check.transition',
    'second:check.transition',
    'first:incident.change',
    'second:incident.change',
  ]);
  assert.equal(seen(), 4);

  // A throw while handling the dispatched event rolls back the job, its cause included.
  refuse = true;
  order.length = 0;
  await assert.rejects(store.writer.run((_db, tx) => events.dispatch(tx, [transition], 3000)));
  assert.equal(seen(), 4, 'nothing of the failed job is stored');

  // Nothing of the failed job is left queued for the next one.
  refuse = false;
  order.length = 0;
  const removed: DomainEvent = {
    type: 'check.removed',
    checkId: 'c1',
    name: 'home',
    service: 'shop',
    ts: 4000,
  };
  await store.writer.run((_db, tx) => events.dispatch(tx, [removed], 4000));
  assert.deepEqual(order, ['first:check.removed', 'second:check.removed']);
});
