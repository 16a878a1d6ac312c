import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import { deliveryServer, webhookAlert } from './testkit.ts';

/**
 * The sender across a stop: a send in flight is aborted, its row stays due, and the next start sends it
 * again with the same id (at least once).
 */

test('a stop aborts the send in flight; the next start sends it again with the same webhook-id', async (t) => {
  const first = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  // The request is held open: it is in flight when the server stops.
  const release = first.receiver.hold();
  await first.fail(await first.check('home', 'shop'));
  await first.settled('the send is in flight', () => first.receiver.received.length === 1);
  await first.server.close();
  release();
  const db = new DatabaseSync(join(first.server.dataDir, 'mon.db'), { readOnly: true });
  const row = db.prepare('SELECT message_id, state, attempts FROM outbox').get();
  db.close();
  assert.equal(row?.state, 'due', 'the aborted send left its row due');
  assert.equal(row?.attempts, 0, 'and counted no attempt');
  await first.receiver.close();

  const second = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)], {
    dataDir: first.server.dataDir,
    clock: new FakeClock(first.clock.now()),
  });
  t.after(() => second.dispose());
  await second.settled('sent after the start', () => second.outbox()[0]?.state === 'sent');
  const [again] = second.receiver.received;
  assert.equal(again?.headers['webhook-id'], row?.message_id, 'the same webhook-id');
  assert.equal(again?.json.type, 'incident.opened');
  assert.equal(second.outbox()[0]?.attempts, 1);
});
