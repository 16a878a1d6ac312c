import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { startReceiver } from '../server/http/fixtures/receiver.ts';
import type { WebhookPayload } from '../server/notify/channels/webhook.ts';
import { verifyWebhook } from '../server/notify/testkit.ts';
import { tempDir, within } from '../server/testing.ts';
import { startServerProcess } from './server-process.ts';

/**
 * A crash loses no alert (DESIGN rule 5): a heartbeat fails, the notification's outbox row commits and
 * its send is in flight when the server is killed with SIGKILL; started again on the same data
 * directory, the server sends it again, with the same webhook-id.
 */
test('a notification in flight at a SIGKILL is delivered after the restart, with the same webhook-id', async (t) => {
  const data = tempDir();
  const secret = `whsec_${Buffer.from('a signing key for the crash test').toString('base64')}`;
  const receiver = await startReceiver<WebhookPayload>();
  t.after(async () => {
    await receiver.close();
    data.remove();
  });
  // The first request is never answered: its send is in flight when the server dies.
  receiver.answer = (_r, n) => (n === 1 ? new Promise(() => {}) : { status: 200 });
  const token = `btp_${'c'.repeat(32)}`;
  writeFileSync(
    join(data.dir, 'mon.toml'),
    `[[check]]
name = "backup"
service = "db"
every = "1h"
ping_token = "${token}"

[[alert]]
name = "ops"
type = "webhook"
url = "${receiver.url}/hook"
secret = "${secret}"
allow_private = true
`,
  );
  const env = { MON_DATA_DIR: data.dir, MON_SETUP_TOKEN: 'setup-token-for-the-notify-crash-test' };
  const outbox = () => {
    const db = new DatabaseSync(join(data.dir, 'mon.db'), { readOnly: true });
    try {
      return db.prepare('SELECT message_id, change, state, attempts FROM outbox').all();
    } finally {
      db.close();
    }
  };

  const first = await startServerProcess(env);
  for (let i = 0; i < 2; i++) {
    const ping = await fetch(`${first.address}/ping/${token}/fail`, { method: 'POST' });
    assert.equal(ping.status, 200, await ping.text());
  }
  await within(10_000, 'the send is in flight', () => receiver.received.length === 1);
  const [row] = outbox();
  assert.equal(row?.change, 'opened');
  assert.equal(row?.state, 'due', 'committed and not yet sent');
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');

  const second = await startServerProcess(env);
  await within(10_000, 'the notification arrives after the restart', () => receiver.received.length === 2);
  const [lost, delivered] = receiver.received;
  assert.equal(delivered?.headers['webhook-id'], row?.message_id, 'the same webhook-id');
  assert.equal(delivered?.headers['webhook-id'], lost?.headers['webhook-id']);
  assert.equal(delivered?.body, lost?.body, 'the same message');
  assert.ok(delivered && verifyWebhook(secret, delivered), 'signed with the secret');
  assert.equal(delivered?.json.type, 'incident.opened');
  await within(10_000, 'and is recorded as sent', () => outbox()[0]?.state === 'sent');
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
  assert.equal(receiver.received.length, 2, 'sent once more, no more');
});
