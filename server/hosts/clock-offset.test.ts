import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_TIME_HEADER } from '../../protocol/agent.ts';
import { memoryLog } from '../testing.ts';
import { agentCheck, hello, hostServer, runFrame, sample } from './testkit.ts';

const MIN = 60_000;

/** web-1 with a check, whose agent's clock runs `offsetMs` from the server's (negative: behind). */
async function hostWithClock(offsetMs: number) {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  const token = await kit.addHost('web-1');
  const id = (await kit.inject('POST', '/api/v1/checks', agentCheck)).body.id as string;
  const agentNow = () => kit.clock.now() + offsetMs;
  /** A batch as the agent sends it every 15 s: its clock in the header (unless `clock` is false). */
  const send = (frames: unknown[], clock = true) =>
    kit.send(token, frames, { headers: clock ? { [AGENT_TIME_HEADER]: String(agentNow()) } : {} });
  const tick = async (clock = true) => {
    await kit.clock.advance(15_000);
    return send([sample(agentNow(), { cpu: 20 }), runFrame(id, agentNow())], clock);
  };
  const host = async () => (await kit.inject('GET', '/api/v1/hosts/web-1?range=1h')).body;
  const warnings = () => memory.lines().filter((l) => String(l.message).startsWith('the clock of web-1'));
  return { kit, token, id, agentNow, send, tick, host, warnings };
}

test('a host 10 min behind that sends its clock: shown, logged once a minute, its frames on the server clock', async (t) => {
  const h = await hostWithClock(-10 * MIN);
  t.after(() => h.kit.server.dispose());
  const status = () => h.kit.engine.get(h.id)!.rec.state.status;
  await h.send([hello(h.agentNow())]);

  // The check is known at its first run, not 10 minutes later.
  assert.deepEqual((await h.tick()).body, { stored: 2, skipped: 0 });
  assert.equal(status(), 'up');
  assert.equal(h.kit.engine.get(h.id)!.rec.lastRunAt, h.kit.clock.now(), 'the run on the server clock');
  for (let i = 0; i < 2; i++) await h.tick();
  let read = await h.host();
  assert.equal(read.agent.clockOffsetMs, -10 * MIN, 'negative: behind');
  assert.equal(read.agent.connected, true);
  assert.equal(read.now.ts, h.kit.clock.now(), 'the latest sample is now');
  const cpu = read.series.cpu as (number | null)[];
  assert.equal(cpu.at(-1), 20, 'the chart has no trailing gap');
  assert.equal(h.warnings().length, 1, 'once a minute');
  assert.match(String(h.warnings()[0]?.message), /is 10 min behind the server's/);
  assert.equal(h.warnings()[0]?.clockOffsetMs, -10 * MIN);
  assert.equal(
    (await h.kit.inject('GET', '/api/v1/hosts')).body.hosts[0].agent.clockOffsetMs,
    -10 * MIN,
    'the hosts list says it too',
  );

  // A silence turns the check unknown; it is known again at the next run.
  await h.kit.clock.advance(2 * MIN);
  assert.equal(status(), 'unknown');
  await h.tick();
  assert.equal(status(), 'up', 'known again at the next run');
  assert.equal(h.warnings().length, 2, 'a minute later, again');

  // NTP steps the clock right: the next poll measures it, and the host page no longer shows it.
  const polled = await h.kit.poll(h.token, {}, { [AGENT_TIME_HEADER]: String(h.kit.clock.now() - 800) });
  assert.equal(polled.status, 200);
  read = await h.host();
  assert.equal(read.agent.clockOffsetMs, undefined, 'within the tolerance');
});

test('a host 10 min ahead that sends its clock: its frames are applied; without its clock, skipped as today', async (t) => {
  const h = await hostWithClock(10 * MIN);
  t.after(() => h.kit.server.dispose());
  await h.send([hello(h.agentNow())]);
  assert.deepEqual((await h.tick()).body, { stored: 2, skipped: 0 }, 'moved back 10 min: not ahead');
  assert.equal(h.kit.engine.get(h.id)!.rec.state.status, 'up');
  assert.equal((await h.host()).agent.clockOffsetMs, 10 * MIN);

  // An older agent's frames, which carry no clock, are judged as dated: more than 5 min ahead.
  const older = await hostWithClock(10 * MIN);
  t.after(() => older.kit.server.dispose());
  await older.send([hello(older.kit.clock.now())], false);
  assert.deepEqual((await older.tick(false)).body, { stored: 0, skipped: 2 });
  assert.equal((await older.host()).agent.clockOffsetMs, 10 * MIN, 'how far ahead its newest frame was');
});

test('a host that does not send its clock and runs 10 min behind: as dated, and no offset shown', async (t) => {
  const h = await hostWithClock(-10 * MIN);
  t.after(() => h.kit.server.dispose());
  await h.send([hello(h.agentNow())], false);
  await h.tick(false);
  const read = await h.host();
  assert.equal(read.now.ts, h.kit.clock.now() - 10 * MIN);
  assert.equal(read.agent.clockOffsetMs, undefined, 'the server cannot tell a clock behind from a backlog');
  assert.equal(h.kit.engine.get(h.id)!.rec.lastRunAt, null, 'its run is older than the check');
});

test('spooled frames move by the offset measured as they are sent: a clock stepped during an outage', async (t) => {
  const h = await hostWithClock(-10 * MIN);
  t.after(() => h.kit.server.dispose());
  await h.send([hello(h.agentNow())]);
  await h.tick();
  // Taken 10 min behind while the server was unreachable; sent once the clock was stepped right.
  const taken = h.agentNow() + 15_000;
  await h.kit.clock.advance(5 * MIN);
  const res = await h.kit.send(h.token, [sample(taken, { cpu: 77 })], {
    headers: { [AGENT_TIME_HEADER]: String(h.kit.clock.now()) },
  });
  assert.deepEqual(res.body, { stored: 1, skipped: 0 });
  const read = await h.host();
  assert.equal(read.agent.clockOffsetMs, undefined, 'the clock is right now');
  const bucket = Math.floor(taken / MIN) * MIN;
  assert.equal(
    h.kit.count("SELECT cpu_n AS n FROM host_rollups WHERE res = 'm' AND bucket = ?", bucket),
    1,
    'charted where the stepped clock dated it, not moved: the offset as sent is 0',
  );
  assert.equal(read.now.ts, h.kit.clock.now() - 5 * MIN, 'the host stays at its newest sample');
});

test('an agent that stops sending a usable clock: the offset it had is no longer shown', async (t) => {
  const h = await hostWithClock(-10 * MIN);
  t.after(() => h.kit.server.dispose());
  await h.send([hello(h.agentNow())]);
  await h.tick();
  assert.equal((await h.host()).agent.clockOffsetMs, -10 * MIN);

  // Downgraded to an agent that sends no clock: its frames are taken as dated (the run, 10 min older
  // than the check's last result, is skipped), and no offset is shown.
  assert.deepEqual((await h.tick(false)).body, { stored: 1, skipped: 1 });
  assert.equal((await h.host()).agent.clockOffsetMs, undefined);

  // Measured again, then a clock that is not a time: dropped as well.
  await h.tick();
  assert.equal((await h.host()).agent.clockOffsetMs, -10 * MIN);
  await h.kit.clock.advance(15_000);
  const res = await h.kit.send(h.token, [sample(h.agentNow())], { headers: { [AGENT_TIME_HEADER]: 'soon' } });
  assert.deepEqual(res.body, { stored: 1, skipped: 0 });
  assert.equal((await h.host()).agent.clockOffsetMs, undefined);
});
