import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfigText } from '../config/load.ts';
import { statement } from '../store/statements.ts';
import { notifySection } from './notify-config.ts';
import { deliveryServer, webhookAlert } from './testkit.ts';

/** Reminders of open, unacknowledged incidents, driven by a fake clock. */

const MIN = 60_000;
const HOUR = 60 * MIN;
const pause = () => new Promise((resolve) => setTimeout(resolve, 150));
/**
 * `count` messages arrived and their rows are recorded sent: a row whose send is in flight is still due,
 * and a channel with a row due gets no reminder.
 */
const delivered =
  (kit: { receiver: { received: unknown[] }; outbox: () => { state: string }[] }, count: number) => () =>
    kit.receiver.received.length === count && kit.outbox().every((r) => r.state === 'sent');
const twoChannels = (url: string) => [
  webhookAlert(0, 'ops', `${url}/ops`),
  webhookAlert(1, 'dev', `${url}/dev`),
];

test('an hour after opening, each channel is reminded; acknowledging stops reminders', async (t) => {
  const kit = await deliveryServer(twoChannels);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  await kit.fail(await kit.check('home', 'shop'));
  const [incident] = await kit.list();
  const opened = incident!.startedAt;
  await kit.settled('the opening is sent', delivered(kit, 2));

  await clock.advance(opened + HOUR - 1 - clock.now());
  await pause();
  assert.equal(receiver.received.length, 2, 'not before the hour');
  await clock.advance(1);
  await kit.settled('each channel is reminded', delivered(kit, 4));
  assert.deepEqual(
    receiver.received.slice(2).map((r) => [r.path, r.json.type]),
    [
      ['/ops', 'incident.reminder'],
      ['/dev', 'incident.reminder'],
    ],
  );
  assert.equal(receiver.received[2]?.json.data.summary, 'Still open, not acknowledged: shop: home down');

  await clock.advance(HOUR);
  await kit.settled('and again an hour later', delivered(kit, 6));

  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
  await kit.settled('the acknowledgement is sent', () => receiver.received.length === 8);
  await clock.advance(3 * HOUR);
  await pause();
  assert.deepEqual(
    receiver.received.slice(6).map((r) => r.json.type),
    ['incident.acknowledged', 'incident.acknowledged'],
    'no reminder after the acknowledgement',
  );
  assert.deepEqual(
    (await kit.read(incident!.id)).deliveries.map((d) => d.change),
    ['opened', 'opened', 'reminder', 'reminder', 'reminder', 'reminder', 'acknowledged', 'acknowledged'],
  );
});

test('remind_every sets the interval; "off" sends none; an incident in maintenance gets none', async (t) => {
  const every = loadConfigText('[notify]\nremind_every = "30m"\n', { env: {} });
  assert.ok(every.ok);
  const kit = await deliveryServer(twoChannels, { config: { notify: every.config.notify } });
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the opening is sent', delivered(kit, 2));
  await clock.advance(30 * MIN);
  await kit.settled('reminded after 30 minutes', delivered(kit, 4));

  const off = loadConfigText('[notify]\nremind_every = "off"\n', { env: {} });
  assert.ok(off.ok);
  assert.equal(off.config.notify.remindEveryMs, null);
  kit.config.reload({ notify: off.config.notify });
  await clock.advance(2 * HOUR);
  await pause();
  assert.equal(receiver.received.length, 4, 'off: no reminder');

  kit.config.reload({ notify: every.config.notify });
  const [incident] = await kit.list();
  await kit.server.deps.store.writer.run((db) =>
    statement(db, 'UPDATE incidents SET in_maintenance = 1 WHERE id = ?').run(incident!.id),
  );
  await clock.advance(2 * HOUR);
  await pause();
  assert.equal(receiver.received.length, 4, 'in maintenance: no reminder');
});

test('a silence writes no reminder rows; after it, reminders come again', async (t) => {
  const kit = await deliveryServer(twoChannels);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the opening is sent', delivered(kit, 2));
  const now = clock.now();
  await addWindow(kit, 'silence', now, now + 90 * MIN);
  await clock.advance(HOUR);
  await pause();
  assert.equal(receiver.received.length, 2);
  assert.deepEqual(
    kit.outbox().map((r) => r.change),
    ['opened', 'opened'],
    'a muted reminder is not written',
  );
  await clock.advance(HOUR);
  await kit.settled(
    'reminded once the silence is over',
    () => kit.outbox().length === 4 && kit.outbox().every((r) => r.state === 'sent'),
  );
  assert.equal(receiver.received.length, 4);
  assert.deepEqual(
    kit.outbox().map((r) => [r.change, r.state]),
    [
      ['opened', 'sent'],
      ['opened', 'sent'],
      ['reminder', 'sent'],
      ['reminder', 'sent'],
    ],
  );
});

type Kit = Awaited<ReturnType<typeof deliveryServer>>;

/** A silence or maintenance window of the service shop from `starts` to `ends`. */
function addWindow(kit: Kit, kind: 'silence' | 'maintenance', starts: number, ends: number) {
  return kit.server.deps.store.writer.run((db) =>
    statement(
      db,
      `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
       VALUES ('d3d3d3d3d3d3d3d3', ?, 'service', 'shop', ?, ?, NULL, 'test', ?, ?)`,
    ).run(kind, starts, ends, starts, starts),
  );
}

test('a channel still trying to deliver the opening gets no reminders: down for 5 hours and acknowledged meanwhile, it hears of the opening and the acknowledgement', async (t) => {
  const kit = await deliveryServer(twoChannels);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  const back = clock.now() + 5 * HOUR;
  receiver.answer = (r) => (r.path === '/ops' && clock.now() < back ? { status: 503 } : { status: 200 });
  await kit.fail(await kit.check('home', 'shop'));
  const [incident] = await kit.list();
  for (let step = 1; step <= 12; step++) {
    await clock.advance(30 * MIN);
    if (step === 5) {
      assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident!.id}/ack`)).status, 204);
    }
    await pause();
  }
  // Ops is up again; its next retry is some hours after the last.
  await clock.advance(kit.outbox()[0]!.dueAt! - clock.now());
  await kit.settled('ops has both', () => kit.outbox().every((r) => r.state === 'sent'));
  const ops = receiver.to('/ops').map((r) => r.json.type);
  assert.ok(ops.length > 2, 'the opening was retried while ops was down');
  assert.deepEqual(new Set(ops), new Set(['incident.opened', 'incident.acknowledged']));
  assert.equal(ops.at(-1), 'incident.acknowledged');
  assert.deepEqual(
    receiver.to('/dev').map((r) => r.json.type),
    ['incident.opened', 'incident.reminder', 'incident.reminder', 'incident.acknowledged'],
    'dev, which was up, was reminded',
  );
  assert.deepEqual(
    kit
      .outbox()
      .filter((r) => r.channel === 'ops')
      .map((r) => r.change),
    ['opened', 'acknowledged'],
  );
});

/** One channel, ops, reminded an hour after the opening while it answers 503: the reminder waits for a retry. */
async function reminderWaiting(t: { after: (fn: () => Promise<void>) => void }) {
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`)]);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  const state = { down: false };
  receiver.answer = () => (state.down ? { status: 503 } : { status: 200 });
  const check = await kit.check('home', 'shop');
  await kit.fail(check);
  const [incident] = await kit.list();
  await kit.settled('the opening is sent', () => kit.outbox()[0]?.state === 'sent');
  state.down = true;
  await clock.advance(incident!.startedAt + HOUR - clock.now());
  await kit.settled('the reminder failed once', () => kit.outbox()[1]?.attempts === 1);
  return { kit, check, incident: incident!, state };
}

test('a reminder waiting for a retry is not sent once the incident is acknowledged; the timeline says why', async (t) => {
  const { kit, incident, state } = await reminderWaiting(t);
  assert.equal((await kit.inject('POST', `/api/v1/incidents/${incident.id}/ack`)).status, 204);
  state.down = false;
  await kit.clock.advance(10_000);
  await kit.settled('the acknowledgement is sent', () => kit.outbox()[2]?.state === 'sent');
  assert.deepEqual(
    kit.receiver.received.map((r) => r.json.type),
    ['incident.opened', 'incident.reminder', 'incident.acknowledged'],
    'the reminder is not sent again',
  );
  const read = await kit.read(incident.id);
  assert.deepEqual(
    read.deliveries.map((d) => [d.change, d.state, d.lastError]),
    [
      ['opened', 'sent', null],
      ['reminder', 'dropped', 'acknowledged before it could be sent'],
      ['acknowledged', 'sent', null],
    ],
  );
  assert.deepEqual((await kit.notifications(incident.id)).map((r) => r.title).slice(-2), [
    'Not sent to ops (webhook): acknowledged before it could be sent',
    'Sent to ops (webhook)',
  ]);
});

test('a reminder waiting for a retry is not sent once the incident resolves, nor once maintenance holds it', async (t) => {
  const resolved = await reminderWaiting(t);
  await resolved.kit.recover(resolved.check);
  resolved.state.down = false;
  await resolved.kit.clock.advance(resolved.kit.outbox()[1]!.dueAt! - resolved.kit.clock.now());
  await resolved.kit.settled('the resolution is sent', () => resolved.kit.outbox()[2]?.state === 'sent');
  assert.deepEqual(
    resolved.kit.outbox().map((r) => [r.change, r.state]),
    [
      ['opened', 'sent'],
      ['reminder', 'dropped'],
      ['resolved', 'sent'],
    ],
  );
  assert.equal(
    (await resolved.kit.read(resolved.incident.id)).deliveries[1]?.lastError,
    'resolved before it could be sent',
  );

  const held = await reminderWaiting(t);
  const now = held.kit.clock.now();
  await addWindow(held.kit, 'maintenance', now, now + HOUR);
  held.state.down = false;
  await held.kit.clock.advance(10_000);
  await held.kit.settled('the reminder is dropped', () => held.kit.outbox()[1]?.state === 'dropped');
  assert.equal(
    (await held.kit.read(held.incident.id)).deliveries[1]?.lastError,
    'in maintenance before it could be sent',
  );
  assert.equal(held.kit.receiver.received.length, 2, 'the opening and the failed reminder');
});

test('[notify] remind_every: durations from 5 minutes to 7 days or "off", in the export when not 1 hour', () => {
  const bad = (text: string, message: RegExp) => {
    const result = loadConfigText(`[notify]\nremind_every = ${text}\n`, { env: {} });
    assert.ok(!result.ok);
    assert.match(result.error, message);
    assert.match(result.error, /notify\.remind_every/);
  };
  bad('"1m"', /at least 5m/);
  bad('"8d"', /at most 7d/);
  bad('"soon"', /duration such as 30m/);
  bad('60', /duration/);
  const empty = loadConfigText('', { env: {} });
  assert.ok(empty.ok);
  assert.equal(empty.config.notify.remindEveryMs, HOUR);
  const context = { stored: [], channels: [], hosts: [] };
  assert.deepEqual(notifySection.toToml({ remindEveryMs: HOUR }, context), {});
  assert.deepEqual(notifySection.toToml({ remindEveryMs: null }, context), {
    notify: { remind_every: 'off' },
  });
  assert.deepEqual(notifySection.toToml({ remindEveryMs: 90 * MIN }, context), {
    notify: { remind_every: '90m' },
  });
});
