import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { IncidentRead, IncidentsList } from '../../protocol/incidents.ts';
import { addHost, checkServer } from '../checks/testkit.ts';
import { FakeClock } from '../clock.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { all, int, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { tempDir, within } from '../testing.ts';
import type { WebhookPayload } from './channels/webhook.ts';
import { deliveryServer, fileAlert, webhookAlert } from './testkit.ts';

/**
 * A channel that is missing is not a channel that was removed: while mon.toml has an error, mon runs
 * on the last good file (its channels send), or, when none loads, without its `[[alert]]` channels,
 * and their notifications wait; a mon.toml that loads without the channel, or a channel deleted in
 * the panel, drops them.
 */

const MIN = 60_000;
const pause = () => new Promise((resolve) => setTimeout(resolve, 150));
const monToml = (url: string) => `[[alert]]
name = "ops"
type = "webhook"
url = "${url}/ops"
allow_private = true
`;
const outboxRow = mapper({ state: text, attempts: int, change: text });

/** A server on `dir` whose mon.toml is that directory's file, with an incident opened by a check of shop. */
async function serverOn(dir: string, clock: FakeClock) {
  const kit = await checkServer({ dataDir: dir, clock });
  const inject = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await kit.server.app.inject({ method, url, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: JSON.parse(res.body || 'null') as unknown };
  };
  return {
    ...kit,
    outbox: () => all(kit.server.deps.store.read, 'SELECT state, attempts, change FROM outbox', outboxRow),
    async openIncident() {
      await addHost(kit.server, 'agent1');
      const made = await inject('POST', '/api/v1/checks', {
        name: 'home',
        service: 'shop',
        kind: 'tcp',
        target: 'db.internal:5432',
        from: 'agent1',
        everyMs: 10_000,
      });
      assert.equal(made.status, 201);
      const id = (made.body as { id: string }).id;
      const down = { status: 'down', latencyMs: null, detail: 'connection refused' } as const;
      await kit.engine.recordRun(id, down, clock.now());
      await clock.advance(10_000);
      await kit.engine.recordRun(id, down, clock.now());
    },
    async incident(): Promise<IncidentRead> {
      const list = (await inject('GET', '/api/v1/incidents')).body as IncidentsList;
      return (await inject('GET', `/api/v1/incidents/${list.incidents[0]!.id}`)).body as IncidentRead;
    },
  };
}

/**
 * A receiver answering 503, and a server on a data directory of its own with a webhook channel to it
 * in mon.toml: an incident opens, its first attempt fails, and the server stops with the row due.
 */
async function waitingThenStopped(t: { after: (fn: () => unknown) => void }) {
  const receiver = await startReceiver<WebhookPayload>();
  t.after(() => receiver.close());
  receiver.answer = () => ({ status: 503 });
  const { dir, remove } = tempDir();
  t.after(remove);
  const file = join(dir, 'mon.toml');
  writeFileSync(file, monToml(receiver.url));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const first = await serverOn(dir, clock);
  await first.openIncident();
  await within(5000, 'the first attempt is recorded', () => first.outbox()[0]?.attempts === 1);
  await first.server.close();
  return { receiver, dir, file, clock };
}

test('restarted with a mon.toml that has an error, mon runs on the last good file: its channels keep sending', async (t) => {
  const { receiver, dir, file, clock } = await waitingThenStopped(t);

  writeFileSync(file, `${monToml(receiver.url)}[[alert]\n`);
  receiver.answer = () => ({ status: 200 });
  const second = await serverOn(dir, new FakeClock(clock.now()));
  t.after(() => second.server.dispose());
  assert.match(second.server.deps.config.error() ?? '', /./, 'the file has an error');
  assert.equal(second.server.deps.config.inForce(), 'lastGood');
  assert.equal(second.server.deps.config.current().alerts.length, 1, 'the last good channels are in force');
  await second.clock.advance(10 * MIN);
  await within(5000, 'sent at its next attempt', () => second.outbox()[0]?.state === 'sent');
  assert.equal(receiver.received.length, 2);
});

test('restarted with a mon.toml that has an error and no good file kept, mon keeps the notifications of its channels; fixed, it sends them', async (t) => {
  const { receiver, dir, file, clock } = await waitingThenStopped(t);
  // As in a database from before mon kept the text of the last good file.
  const db = new DatabaseSync(join(dir, 'mon.db'));
  db.exec("DELETE FROM meta WHERE key = 'config_last_good'");
  db.close();

  writeFileSync(file, `${monToml(receiver.url)}[[alert]\n`);
  receiver.answer = () => ({ status: 200 });
  const second = await serverOn(dir, new FakeClock(clock.now()));
  t.after(() => second.server.dispose());
  assert.match(second.server.deps.config.error() ?? '', /./, 'the file has an error');
  assert.equal(second.server.deps.config.inForce(), 'empty');
  assert.equal(second.server.deps.config.current().alerts.length, 0, 'mon runs without its channels');
  await second.clock.advance(10 * MIN);
  await pause();
  assert.deepEqual(second.outbox(), [{ state: 'due', attempts: 1, change: 'opened' }], 'still due');
  assert.equal(receiver.received.length, 1);
  const read = await second.incident();
  assert.equal(read.deliveries[0]?.state, 'due');
  assert.ok(!read.timeline.some((r) => r.title.startsWith('Not sent')));

  writeFileSync(file, monToml(receiver.url));
  second.server.deps.config.reload();
  assert.equal(second.server.deps.config.error(), null);
  await within(5000, 'sent once the file is fixed', () => second.outbox()[0]?.state === 'sent');
  assert.equal(receiver.received.length, 2);
  assert.equal(receiver.received[1]?.json.type, 'incident.opened');
});

test('restarted with a mon.toml that loads without the channel, mon drops what waited for it', async (t) => {
  const { receiver, dir, file, clock } = await waitingThenStopped(t);

  writeFileSync(file, '[server]\nurl = "https://mon.example.com"\n');
  const second = await serverOn(dir, new FakeClock(clock.now()));
  t.after(() => second.server.dispose());
  await within(5000, 'dropped at the start', () => second.outbox()[0]?.state === 'dropped');
  const read = await second.incident();
  assert.equal(read.deliveries[0]?.lastError, 'the channel was removed');
  assert.equal(
    read.timeline.filter((r) => r.kind === 'notification').at(-1)?.title,
    'Not sent to ops (webhook): the channel was removed',
  );
  assert.equal(receiver.received.length, 1);
});

const threadCount = (kit: Awaited<ReturnType<typeof deliveryServer>>, channel: string) =>
  all(
    kit.server.deps.store.read,
    'SELECT ref FROM notify_threads WHERE channel = ?',
    mapper({ ref: text }),
    channel,
  ).length;

test('deleting a panel channel drops its waiting notifications at once and forgets its threads', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  t.after(() => kit.dispose());
  const { receiver } = kit;
  receiver.answer = (r) => (r.path === '/hooks' ? { status: 503 } : { status: 200 });
  const made = await kit.inject('POST', '/api/v1/channels', {
    name: 'hooks',
    kind: 'webhook',
    url: `${receiver.url}/hooks`,
    allowPrivate: true,
  });
  assert.equal(made.status, 201, made.text);
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('both attempts are recorded', () => kit.outbox().every((r) => r.attempts === 1));
  const [incident] = await kit.list();
  // A thread the channel's first message left (a webhook answers none; a Discord channel would).
  await kit.server.deps.store.writer.run((db) =>
    statement(
      db,
      "INSERT INTO notify_threads (incident, channel, kind, ref) VALUES (?, 'hooks', 'webhook', 'x')",
    ).run(incident!.id),
  );

  assert.equal((await kit.inject('DELETE', '/api/v1/channels/hooks')).status, 204);
  assert.deepEqual(
    kit.outbox().map((r) => [r.channel, r.state]),
    [
      ['ops', 'sent'],
      ['hooks', 'dropped'],
    ],
    'dropped by the delete, not at the next attempt',
  );
  assert.equal(threadCount(kit, 'hooks'), 0);
  assert.equal(
    (await kit.notifications(incident!.id)).at(-1)?.title,
    'Not sent to hooks (webhook): the channel was removed',
  );
  await kit.clock.advance(MIN);
  await pause();
  assert.equal(receiver.to('/hooks').length, 1);
  assert.equal(await kit.outboxDue(), 0);
});

test('an [[alert]] whose type changes drops what waited for the old kind', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  t.after(() => kit.dispose());
  const { receiver } = kit;
  receiver.answer = () => ({ status: 503 });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the attempt is recorded', () => kit.outbox()[0]?.attempts === 1);
  kit.config.reload({
    alerts: [fileAlert(0, 'ops', 'ntfy', { url: `${receiver.url}/ntfy`, allowPrivate: true })],
  });
  await kit.settled('dropped by the reload', () => kit.outbox()[0]?.state === 'dropped');
  const [incident] = await kit.list();
  assert.equal(
    (await kit.notifications(incident!.id)).at(-1)?.title,
    'Not sent to ops (webhook): the channel was replaced by one of another kind',
  );
  await kit.clock.advance(MIN);
  await pause();
  assert.equal(receiver.received.length, 1, 'nothing went to the new kind either');
});
