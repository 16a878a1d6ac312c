import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliveryServer, verifyWebhook, webhookAlert } from './testkit.ts';
import { utc } from './text.ts';

/**
 * The path of a notification on a real server (fake clock) to a real loopback receiver: incident
 * changes reach every channel once, joins and recoveries send nothing, every attempt is on the
 * incident's timeline and in its deliveries.
 */

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const pause = () => new Promise((resolve) => setTimeout(resolve, 150));

test('three checks go down, are acknowledged and recover: each channel hears of the opening, the acknowledgement and the resolution', async (t) => {
  const kit = await deliveryServer((url) => [
    webhookAlert(0, 'ops', `${url}/ops`, SECRET),
    webhookAlert(1, 'dev', `${url}/dev`),
  ]);
  t.after(() => kit.dispose());
  const { receiver } = kit;
  const checks = [
    await kit.check('home', 'shop'),
    await kit.check('cart', 'shop'),
    await kit.check('search', 'shop'),
  ];
  for (const id of checks) await kit.run(id, 'down');
  await kit.clock.advance(10_000);
  for (const id of checks) await kit.run(id, 'down');
  const [incident] = await kit.list();
  assert.equal((await kit.read(incident!.id)).alerts.length, 3, 'one incident: two checks joined the first');
  await kit.settled('the opening reaches both channels', () => receiver.received.length === 2);
  await kit.settled('both rows are sent', () => kit.outbox().every((r) => r.state === 'sent'));
  await pause();
  assert.equal(receiver.received.length, 2, 'the joins sent nothing');

  const ack = await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`);
  assert.equal(ack.status, 204);
  await kit.settled('the acknowledgement arrives', () => receiver.received.length === 4);
  for (const id of checks) await kit.recover(id);
  await kit.settled('the resolution arrives', () => receiver.received.length === 6);
  await kit.settled('every row is sent', () => kit.outbox().every((r) => r.state === 'sent'));
  await pause();
  assert.equal(receiver.received.length, 6, 'recoveries before the last sent nothing');

  for (const path of ['/ops', '/dev']) {
    const got = receiver.to(path);
    assert.deepEqual(
      got.map((r) => r.json.type),
      ['incident.opened', 'incident.acknowledged', 'incident.resolved'],
      path,
    );
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 3, 'a message id per message');
    for (const r of got) assert.equal(r.json.data.incident.id, incident!.id);
  }
  assert.ok(
    receiver.to('/ops').every((r) => verifyWebhook(SECRET, r)),
    'signed with the secret of ops',
  );
  assert.ok(receiver.to('/dev').every((r) => r.headers['webhook-signature'] === undefined));
  const [opened, acknowledged, resolved] = receiver.to('/ops').map((r) => r.json.data);
  assert.deepEqual(
    opened?.failing.map((a) => a.name),
    ['home'],
    'the opening says what failed when it opened',
  );
  assert.equal(opened?.incident.url, `https://mon.example.com/incidents/${incident!.id}`);
  assert.equal(acknowledged?.incident.acknowledgedBy, 'test');
  assert.equal(acknowledged?.failingCount, 3, 'the acknowledgement shows the joins');
  assert.deepEqual(
    resolved?.failing.map((a) => a.name),
    ['home', 'cart', 'search'],
  );
  assert.ok(resolved?.failing.every((a) => a.recoveredAt !== null));

  const read = await kit.read(incident!.id);
  assert.deepEqual(
    read.deliveries.map((d) => [d.channel, d.kind, d.change, d.state, d.attempts, d.lastError]),
    [
      ['ops', 'webhook', 'opened', 'sent', 1, null],
      ['dev', 'webhook', 'opened', 'sent', 1, null],
      ['ops', 'webhook', 'acknowledged', 'sent', 1, null],
      ['dev', 'webhook', 'acknowledged', 'sent', 1, null],
      ['ops', 'webhook', 'resolved', 'sent', 1, null],
      ['dev', 'webhook', 'resolved', 'sent', 1, null],
    ],
  );
  assert.deepEqual(
    read.deliveries.map((d) => d.id).sort(),
    receiver.received.map((r) => String(r.headers['webhook-id'])).sort(),
    'the deliveries are the messages received',
  );
  const rows = await kit.notifications(incident!.id);
  assert.equal(rows.length, 6);
  assert.deepEqual(
    new Set(rows.map((r) => r.title)),
    new Set(['Sent to ops (webhook)', 'Sent to dev (webhook)']),
  );
  assert.deepEqual(
    rows.filter((r) => r.title.includes('ops')).map((r) => r.detail),
    ['Incident opened; attempt 1', 'Acknowledged; attempt 1', 'Resolved; attempt 1'],
  );
  assert.equal(await kit.outboxDue(), 0);
});

test('a 503 is retried after 10 s with the same webhook-id; mon_outbox_due counts the row until then', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`, SECRET)]);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = (_r, n) => (n === 1 ? { status: 503, body: 'restarting' } : { status: 200 });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the first attempt is recorded', () => kit.outbox()[0]?.attempts === 1);
  const failedAt = clock.now();
  const [incident] = await kit.list();
  const [delivery] = (await kit.read(incident!.id)).deliveries;
  assert.equal(delivery?.state, 'due');
  assert.equal(delivery?.lastError, 'webhook answered 503: restarting');
  assert.equal(delivery?.nextAttemptAt, failedAt + 10_000);
  assert.deepEqual(
    (await kit.notifications(incident!.id)).map((r) => [r.title, r.detail]),
    [
      [
        `ops (webhook) failed: webhook answered 503: restarting; next attempt ${utc(failedAt + 10_000)}`,
        'Incident opened; attempt 1',
      ],
    ],
  );
  assert.equal(await kit.outboxDue(), 1);

  await clock.advance(9_999);
  await pause();
  assert.equal(receiver.received.length, 1, 'not before 10 s');
  await clock.advance(1);
  await kit.settled('the retry arrives', () => receiver.received.length === 2);
  await kit.settled('and is recorded', () => kit.outbox()[0]?.state === 'sent');
  const [first, second] = receiver.received;
  assert.equal(second?.headers['webhook-id'], first?.headers['webhook-id'], 'the same webhook-id');
  assert.equal(second?.body, first?.body, 'the same message');
  assert.ok(first && second && verifyWebhook(SECRET, first) && verifyWebhook(SECRET, second));
  const read = await kit.read(incident!.id);
  assert.equal(read.deliveries[0]?.attempts, 2);
  assert.equal(read.deliveries[0]?.lastError, null);
  assert.equal(read.deliveries[0]?.sentAt, failedAt + 10_000);
  assert.deepEqual(
    (await kit.notifications(incident!.id)).map((r) => r.detail),
    ['Incident opened; attempt 1', 'Incident opened; attempt 2'],
  );
  assert.equal(await kit.outboxDue(), 0);
});

test("a receiver's Retry-After sets the next attempt", async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = (_r, n) =>
    n === 1 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 };
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the first attempt is recorded', () => kit.outbox()[0]?.attempts === 1);
  assert.equal(kit.outbox()[0]?.dueAt, clock.now() + 120_000);
  await clock.advance(119_000);
  await pause();
  assert.equal(receiver.received.length, 1, 'not before the receiver asked');
  await clock.advance(1_000);
  await kit.settled('sent when the receiver asked', () => kit.outbox()[0]?.state === 'sent');
  assert.equal(receiver.received.length, 2);
});

/** Reminders off: tests that move the clock by a day look at one message. */
const noReminders = { config: { notify: { remindEveryMs: null } } };

test('a permanent error stops at once, and the timeline says it will not be retried', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)], noReminders);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = () => ({ status: 404, body: 'no such hook' });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the attempt is recorded', () => kit.outbox()[0]?.state === 'failed');
  const [incident] = await kit.list();
  const [row] = await kit.notifications(incident!.id);
  assert.equal(row?.title, 'ops (webhook) failed: webhook answered 404: no such hook; not retried');
  assert.match(row?.detail ?? '', /permanent error/);
  const [delivery] = (await kit.read(incident!.id)).deliveries;
  assert.equal(delivery?.state, 'failed');
  assert.equal(delivery?.nextAttemptAt, null);
  assert.equal(delivery?.lastError, 'webhook answered 404: no such hook');
  // A retry would come after 10 s: none comes.
  await clock.advance(10 * 60_000);
  await pause();
  assert.equal(receiver.received.length, 1, 'never again');
  assert.equal(await kit.outboxDue(), 0);
});

test('a receiver that keeps failing is tried 14 times over a day, then given up', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)], noReminders);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = () => ({ status: 502 });
  await kit.fail(await kit.check('home', 'shop'));
  const made = clock.now();
  for (let attempt = 1; ; attempt++) {
    await kit.settled(`attempt ${attempt} is recorded`, () => kit.outbox()[0]?.attempts === attempt);
    const row = kit.outbox()[0]!;
    if (row.state !== 'due') break;
    await clock.advance(row.dueAt! - clock.now());
  }
  const [row] = kit.outbox();
  assert.equal(row?.state, 'failed');
  assert.equal(row?.attempts, 14);
  assert.equal(receiver.received.length, 14);
  assert.ok(clock.now() - made < 86_400_000);
  const [incident] = await kit.list();
  const rows = await kit.notifications(incident!.id);
  assert.equal(rows.length, 14, 'every attempt is on the timeline');
  assert.equal(rows.at(-1)?.title, 'Gave up on ops (webhook) after a day: webhook answered 502');
  assert.equal(await kit.outboxDue(), 0);
});

test('a channel removed from the file before its message could go: the row is dropped', async (t) => {
  const kit = await deliveryServer((url) => [
    webhookAlert(0, 'ops', `${url}/ops`),
    webhookAlert(1, 'dev', `${url}/dev`),
  ]);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = (r) => (r.path === '/dev' ? { status: 503 } : { status: 200 });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('both attempts are recorded', () => kit.outbox().every((r) => r.attempts === 1));
  kit.config.reload({ alerts: [webhookAlert(0, 'ops', `${receiver.url}/ops`)] });
  await clock.advance(10_000);
  await kit.settled('the row of dev is dropped', () => kit.outbox()[1]?.state === 'dropped');
  assert.equal(receiver.to('/dev').length, 1);
  const [incident] = await kit.list();
  const read = await kit.read(incident!.id);
  assert.deepEqual(
    read.deliveries.map((d) => [d.channel, d.state, d.lastError]),
    [
      ['ops', 'sent', null],
      ['dev', 'dropped', 'the channel was removed'],
    ],
  );
  assert.equal(
    (await kit.notifications(incident!.id)).at(-1)?.title,
    'Not sent to dev (webhook): the channel was removed',
  );
  assert.equal(await kit.outboxDue(), 0);
});

test('messages of one incident and channel go in order: the acknowledgement waits for the opening', async (t) => {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  t.after(() => kit.dispose());
  const { receiver, clock } = kit;
  receiver.answer = (_r, n) => (n === 1 ? { status: 503 } : { status: 200 });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the opening failed once', () => kit.outbox()[0]?.attempts === 1);
  const [incident] = await kit.list();
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await pause();
  assert.equal(receiver.received.length, 1, 'the acknowledgement waits');
  assert.equal(await kit.outboxDue(), 2);
  await clock.advance(10_000);
  await kit.settled('both are sent', () => kit.outbox().every((r) => r.state === 'sent'));
  assert.deepEqual(
    receiver.received.map((r) => r.json.type),
    ['incident.opened', 'incident.opened', 'incident.acknowledged'],
  );
});
