import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import {
  applyHeartbeat,
  applyRun,
  applyUnknown,
  type CheckState,
  initialState,
  type RunStatus,
  recovery,
} from './state.ts';

const S = 1000;
const M = 60 * S;

function play(runs: [RunStatus, number][], start: CheckState = initialState()) {
  let state = start;
  const statuses: string[] = [];
  for (const [run, ts] of runs) {
    state = applyRun(state, run, ts).state;
    statuses.push(state.status);
  }
  return { state, statuses };
}

test('a new check is unknown until its first run and up after a success', () => {
  assert.equal(initialState().status, 'unknown');
  assert.deepEqual(play([['up', 0]]).statuses, ['up']);
});

test('a brand-new check stays unknown after one failure and is down after the second', () => {
  assert.deepEqual(
    play([
      ['down', 0],
      ['down', 10 * S],
    ]).statuses,
    ['unknown', 'down'],
  );
});

test('up goes down only after two failed runs in a row', () => {
  const { statuses } = play([
    ['up', 0],
    ['down', 10 * S],
    ['up', 20 * S],
    ['down', 30 * S],
    ['down', 40 * S],
  ]);
  assert.deepEqual(statuses, ['up', 'up', 'up', 'up', 'down']);
});

test('recovery needs two successes and 3 minutes since the first of them', () => {
  const down = play([
    ['up', 0],
    ['down', 10 * S],
    ['down', 20 * S],
  ]).state;
  assert.equal(down.status, 'down');
  // Every 10 s: the 2nd success is not enough; the success 3 minutes after the first recovers.
  const runs: [RunStatus, number][] = [];
  for (let t = 30 * S; t <= 30 * S + 3 * M; t += 10 * S) runs.push(['up', t]);
  const { statuses } = play(runs, down);
  assert.equal(statuses.at(-2), 'down');
  assert.equal(statuses.at(-1), 'up');
  const first = applyRun(down, 'up', 0).state;
  assert.equal(applyRun(first, 'up', 3 * M - 1).state.status, 'down');
  const recovered = applyRun(first, 'up', 3 * M);
  assert.equal(recovered.state.status, 'up');
  assert.deepEqual(recovered.transition, { from: 'down', to: 'up' });
});

test('slow checks recover at their second success when it comes 3 minutes after the first', () => {
  const down = play([
    ['down', 0],
    ['down', 5 * M],
  ]).state;
  const { statuses } = play(
    [
      ['up', 10 * M],
      ['up', 15 * M],
    ],
    down,
  );
  assert.deepEqual(statuses, ['down', 'up']);
});

test('a failure during recovery starts it again', () => {
  const down = play([
    ['down', 0],
    ['down', 10 * S],
  ]).state;
  const { statuses } = play(
    [
      ['up', 20 * S],
      ['down', 2 * M],
      ['up', 3 * M],
      ['up', 4 * M],
      ['up', 6 * M],
    ],
    down,
  );
  assert.deepEqual(statuses, ['down', 'down', 'down', 'down', 'up']);
});

test('degraded moves at once, both ways, and degraded goes down after two failures', () => {
  const up = play([['up', 0]]).state;
  const degraded = applyRun(up, 'degraded', 10 * S);
  assert.deepEqual(degraded.transition, { from: 'up', to: 'degraded' });
  assert.equal(applyRun(degraded.state, 'up', 20 * S).state.status, 'up');
  const { statuses } = play(
    [
      ['down', 20 * S],
      ['down', 30 * S],
    ],
    degraded.state,
  );
  assert.deepEqual(statuses, ['degraded', 'down']);
});

test('a down check recovers to degraded when its recovering runs are degraded', () => {
  const down = play([
    ['down', 0],
    ['down', 10 * S],
  ]).state;
  assert.equal(
    play(
      [
        ['degraded', 1 * M],
        ['degraded', 4 * M],
      ],
      down,
    ).state.status,
    'degraded',
  );
});

test('heartbeats change at once; agent silence makes a check unknown', () => {
  const up = applyHeartbeat(initialState(), 'up', 0).state;
  assert.equal(up.status, 'up');
  assert.equal(applyHeartbeat(up, 'down', 1).state.status, 'down');
  const silent = applyUnknown(up, 5);
  assert.equal(silent.state.status, 'unknown');
  assert.deepEqual(silent.transition, { from: 'up', to: 'unknown' });
});

test('a check that was down, then unknown, recovers only after two successes and 3 minutes', async () => {
  const clock = new FakeClock();
  let state = initialState();
  const run = async (status: RunStatus, afterMs = 10 * S) => {
    await clock.advance(afterMs);
    const applied = applyRun(state, status, clock.now());
    state = applied.state;
    return applied.transition;
  };
  await run('down');
  assert.deepEqual(await run('down'), { from: 'unknown', to: 'down' });
  await clock.advance(M);
  const silent = applyUnknown(state, clock.now());
  state = silent.state;
  assert.deepEqual(silent.transition, { from: 'down', to: 'unknown' });

  // The agent is back: the check stays unknown while the recovery rule runs (no "down" again on a success).
  assert.equal(await run('up'), null);
  assert.equal(await run('up'), null, 'two successes are not enough within 3 minutes');
  for (let i = 0; i < 15; i++) assert.equal(await run('up'), null, `still recovering at ${i}`);
  assert.equal(state.status, 'unknown');
  assert.deepEqual(
    await run('up', 20 * S),
    { from: 'unknown', to: 'up', recovered: true },
    'recovered 3 minutes after the first',
  );

  // Silent again while down and recovering: the streak starts over; a failure is down at once.
  await run('down');
  await run('down');
  await run('up');
  state = applyUnknown(state, clock.now()).state;
  assert.deepEqual(await run('down'), { from: 'unknown', to: 'down' });
  // Silent again while already unknown: the recovery stays pending.
  state = applyUnknown(applyUnknown(state, clock.now()).state, clock.now()).state;
  assert.equal(await run('up'), null);
  assert.deepEqual(
    await run('up', 3 * M),
    { from: 'unknown', to: 'up', recovered: true },
    'second success, 3 minutes later',
  );
});

test('a new or up check that becomes unknown is up after one success, as before', () => {
  const fresh = applyUnknown(initialState(), 0).state;
  assert.deepEqual(applyRun(fresh, 'up', 1).transition, { from: 'unknown', to: 'up' });
  const up = applyRun(initialState(), 'up', 0).state;
  const silent = applyUnknown(applyRun(up, 'down', 1).state, 2).state;
  assert.deepEqual(applyRun(silent, 'up', 3).transition, { from: 'unknown', to: 'up' });
  assert.equal(applyRun(silent, 'down', 3).state.status, 'unknown', 'one failure is not down');
});

test('a recovering check says when it counts as up if its runs keep passing', () => {
  for (const every of [10 * S, 50 * S, M, 7 * M]) {
    const down = play([
      ['down', 0],
      ['down', every],
    ]).state;
    assert.equal(recovery(down, every), null, 'no success yet');
    const first = applyRun(down, 'up', 2 * every).state;
    const predicted = recovery(first, every);
    assert.equal(predicted?.since, 2 * every);
    let state = first;
    let t = 2 * every;
    while (state.status === 'down') {
      t += every;
      state = applyRun(state, 'up', t).state;
      if (state.status === 'down') assert.deepEqual(recovery(state, every), predicted, 'the same until up');
    }
    assert.equal(predicted?.upAt, t, `every ${every / S} s`);
    assert.equal(recovery(state, every), null, 'up: no longer recovering');
    assert.equal(recovery(applyRun(first, 'down', 3 * every).state, every), null, 'a failure ends it');
  }
  // Unknown after down (its agent went silent) recovers the same way.
  const down = play([
    ['down', 0],
    ['down', 10 * S],
  ]).state;
  const silent = applyUnknown(down, 20 * S).state;
  assert.equal(recovery(silent, 10 * S), null);
  assert.deepEqual(recovery(applyRun(silent, 'up', 30 * S).state, 10 * S), {
    since: 30 * S,
    upAt: 30 * S + 3 * M,
  });
  assert.equal(recovery(play([['up', 0]]).state, 10 * S), null, 'an up check is not recovering');
});
