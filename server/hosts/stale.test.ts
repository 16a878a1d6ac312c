import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_SILENT_AFTER_MS } from '../../protocol/agent.ts';
import type { CheckTransition } from '../events.ts';
import { staleAfterMs } from './stale.ts';
import { hello, hostServer, runFrame, sample, T0 } from './testkit.ts';

const tcp = (name: string, from: string, everyMs = 10_000) => ({
  name,
  service: 'shop',
  kind: 'tcp',
  target: `${name}.example.com:5432`,
  everyMs,
  from,
});

/** A server with the host new1 whose agent said hello at T0, and the transitions of checks. */
async function world(t: { after(fn: () => unknown): void }) {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const transitions: CheckTransition[] = [];
  kit.server.deps.events.subscribe((_db, events) => {
    for (const e of events) if (e.type === 'check.transition') transitions.push(e);
  });
  const token = await kit.addHost('new1');
  const create = async (body: object) => (await kit.inject('POST', '/api/v1/checks', body)).body.id as string;
  /** Sends a sample every 15 s (with the runs `runs` gives for its time) until `ms` passed. */
  const samplesFor = async (ms: number, runs: (ts: number) => object[] = () => []) => {
    for (let left = ms; left > 0; left -= 15_000) {
      const step = Math.min(15_000, left);
      await kit.clock.advance(step);
      const now = kit.clock.now();
      await kit.send(token, [sample(now), ...runs(now)]);
    }
  };
  const state = (id: string) => {
    const { rec } = kit.engine.get(id)!;
    return { status: rec.state.status, detail: rec.lastDetail };
  };
  return { kit, token, transitions, create, samplesFor, state };
}

test('a check its connected agent stopped running turns unknown after 3 intervals and slack, and recovers at its next run', async (t) => {
  const { kit, token, transitions, create, samplesFor, state } = await world(t);
  const id = await create(tcp('db', 'new1'));
  assert.equal(
    staleAfterMs(kit.engine.get(id)!.def),
    AGENT_SILENT_AFTER_MS,
    'a 10 s check: the silent timeout',
  );
  await kit.send(token, [hello(T0), sample(T0), runFrame(id, T0, { detail: 'connected' })]);
  assert.deepEqual(state(id), { status: 'up', detail: 'connected' });

  // Samples keep coming, runs do not: the host stays connected, the check is judged on its own.
  await samplesFor(AGENT_SILENT_AFTER_MS - 1_000);
  assert.equal(state(id).status, 'up', 'within its grace');
  await samplesFor(90_000);
  await kit.engine.flush();
  assert.deepEqual(state(id), {
    status: 'unknown',
    detail: 'the agent on new1 has not run this check for 60 s',
  });
  assert.deepEqual(
    transitions.map((e) => [e.name, e.host, e.from, e.to, e.ts, e.detail]),
    [
      ['db', 'new1', 'unknown', 'up', T0, 'connected'],
      ['db', 'new1', 'up', 'unknown', T0 + 60_000, 'the agent on new1 has not run this check for 60 s'],
    ],
  );
  const read = (await kit.inject('GET', '/api/v1/hosts/new1')).body;
  assert.equal(read.agent.connected, true, 'the agent itself is connected');
  const detail = (await kit.inject('GET', `/api/v1/checks/${id}/detail`)).body;
  assert.equal(detail.check.status, 'unknown');
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE silent_since IS NOT NULL'), 0);

  // Its next run makes it known again; the runs that follow keep it so.
  await samplesFor(15_000, (now) => [runFrame(id, now)]);
  assert.equal(state(id).status, 'up');
  await samplesFor(5 * 60_000, (now) => [runFrame(id, now)]);
  assert.equal(state(id).status, 'up');
  assert.equal(transitions.length, 3);
});

test('a newly assigned check has its grace; an agent whose clock is behind runs it all the same', async (t) => {
  const { kit, token, create, samplesFor, state } = await world(t);
  await kit.send(token, [hello(T0), sample(T0)]);
  await samplesFor(30_000);
  // A minute's check: 3 intervals, its 10 s timeout and a batch's 15 s.
  const slow = await create(tcp('slow', 'new1', 60_000));
  assert.equal(staleAfterMs(kit.engine.get(slow)!.def), 205_000);
  // The agent's clock runs 10 min behind (an older agent, no clock header): its runs are older than
  // the check and do not count, but they arrive, so the check is run.
  const behind = await create(tcp('behind', 'new1'));
  await samplesFor(200_000, (now) => [runFrame(behind, now - 10 * 60_000)]);
  assert.deepEqual(state(slow), { status: 'unknown', detail: null }, 'never run, still in its grace');
  await samplesFor(15_000, (now) => [runFrame(behind, now - 10 * 60_000)]);
  await kit.engine.flush();
  assert.deepEqual(state(slow), {
    status: 'unknown',
    detail: 'the agent on new1 has not run this check since it was assigned 3 min ago',
  });
  assert.deepEqual(state(behind), { status: 'unknown', detail: null }, 'runs arrive: not stale');
});

test('a check unknown for another reason keeps it; one of an agent back from silence has a grace, then says it is not run', async (t) => {
  const { kit, token, create, samplesFor, state } = await world(t);
  const ping = await create({
    name: 'gw',
    service: 'shop',
    kind: 'ping',
    target: 'gw.example.com',
    from: 'new1',
  });
  const db = await create(tcp('db', 'new1'));
  await kit.send(token, [hello(T0), sample(T0), runFrame(db, T0)]);
  // An agent too old for ping checks: the check says so, and goes on saying so.
  await kit.poll(token, { capabilities: 'headers' });
  await kit.engine.flush();
  const tooOld = 'the agent on new1 (0.1.0) is too old for ping checks; update it';
  assert.deepEqual(state(ping), { status: 'unknown', detail: tooOld });
  await samplesFor(3 * 60_000, (now) => [runFrame(db, now)]);
  assert.deepEqual(state(ping), { status: 'unknown', detail: tooOld });
  assert.equal(state(db).status, 'up');

  // Silent for 2 minutes: the silence says why, not a stale run.
  await kit.clock.advance(2 * 60_000);
  await kit.engine.flush();
  assert.deepEqual(state(db), { status: 'unknown', detail: 'the agent on new1 is silent' });
  // Back, but not running the check: a grace from its return, then the reason that holds now. Its
  // poll says again what it is too old for.
  await samplesFor(15_000);
  await kit.poll(token, { capabilities: 'headers' });
  await samplesFor(30_000);
  assert.deepEqual(state(db), { status: 'unknown', detail: 'the agent on new1 is silent' });
  await samplesFor(30_000);
  await kit.engine.flush();
  assert.deepEqual(state(db), {
    status: 'unknown',
    detail: 'the agent on new1 has not run this check for 3 min',
  });
  assert.deepEqual(state(ping), { status: 'unknown', detail: tooOld });
});

test('runs skipped for a host clock ahead: the detail says so, not that the agent does not run the check', async (t) => {
  const { kit, token, create, state } = await world(t);
  const id = await create(tcp('db', 'new1'));
  // An older agent (no clock header) on a host 7 min ahead: a run every 10 s, each dated ahead and skipped.
  const ahead = 7 * 60_000;
  await kit.send(token, [hello(T0 + ahead)]);
  for (let left = 90_000; left > 0; left -= 10_000) {
    await kit.clock.advance(10_000);
    const now = kit.clock.now();
    await kit.send(token, [sample(now + ahead), runFrame(id, now + ahead)]);
  }
  await kit.engine.flush();
  assert.deepEqual(state(id), {
    status: 'unknown',
    detail: "runs from new1 are dated 7 min ahead of mon's clock and skipped: fix the host's clock",
  });
});
