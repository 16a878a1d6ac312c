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
  await kit.settled('the opening is sent', () => receiver.received.length === 2);

  await clock.advance(opened + HOUR - 1 - clock.now());
  await pause();
  assert.equal(receiver.received.length, 2, 'not before the hour');
  await clock.advance(1);
  await kit.settled('each channel is reminded', () => receiver.received.length === 4);
  assert.deepEqual(
    receiver.received.slice(2).map((r) => [r.path, r.json.type]),
    [
      ['/ops', 'incident.reminder'],
      ['/dev', 'incident.reminder'],
    ],
  );
  assert.equal(receiver.received[2]?.json.data.summary, 'Still open, not acknowledged: shop: home down');

  await clock.advance(HOUR);
  await kit.settled('and again an hour later', () => receiver.received.length === 6);

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
  await kit.settled('the opening is sent', () => receiver.received.length === 2);
  await clock.advance(30 * MIN);
  await kit.settled('reminded after 30 minutes', () => receiver.received.length === 4);

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

test('a silence mutes reminders like any notification', async (t) => {
  const kit = await deliveryServer(twoChannels);
  t.after(() => kit.dispose());
  const { clock, receiver } = kit;
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the opening is sent', () => receiver.received.length === 2);
  const now = clock.now();
  await kit.server.deps.store.writer.run((db) =>
    statement(
      db,
      `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
       VALUES ('d3d3d3d3d3d3d3d3', 'silence', 'service', 'shop', ?, ?, NULL, 'test', ?, ?)`,
    ).run(now, now + 2 * HOUR, now, now),
  );
  await clock.advance(HOUR);
  await pause();
  assert.equal(receiver.received.length, 2);
  assert.deepEqual(
    kit
      .outbox()
      .filter((r) => r.change === 'reminder')
      .map((r) => [r.channel, r.state, r.heldBy]),
    [
      ['ops', 'muted', 'd3d3d3d3d3d3d3d3'],
      ['dev', 'muted', 'd3d3d3d3d3d3d3d3'],
    ],
  );
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
  const context = { stored: [], channels: [] };
  assert.deepEqual(notifySection.toToml({ remindEveryMs: HOUR }, context), {});
  assert.deepEqual(notifySection.toToml({ remindEveryMs: null }, context), {
    notify: { remind_every: 'off' },
  });
  assert.deepEqual(notifySection.toToml({ remindEveryMs: 90 * MIN }, context), {
    notify: { remind_every: '90m' },
  });
});
