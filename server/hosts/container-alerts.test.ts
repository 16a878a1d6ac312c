import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerSample } from '../../protocol/agent.ts';
import { MINUTE } from '../../protocol/durations.ts';
import {
  type ContainerState,
  type ContainerTransition,
  judgeContainer,
  judgeGone,
} from './container-alerts.ts';
import { container } from './testkit.ts';

/** docs/hosts.md "Alerts": a container of a service, sample by sample, through the pure rule. */

const t0 = Date.UTC(2026, 10, 23, 12);
const SAMPLE = 15_000;

/**
 * Samples `at` ms after t0, the host's previous sample 15 s before each (the samples between, not
 * shown, saw nothing new) unless `previousAt` says when; returns the transitions with their sample
 * index, and the last state.
 */
function feed(
  samples: [at: number, c: ContainerSample, previousAt?: number][],
  from: ContainerState | null = null,
) {
  let state = from;
  const transitions: [number, ContainerTransition][] = [];
  samples.forEach(([at, c, previousAt = at - SAMPLE], i) => {
    const judged = judgeContainer(state, c, t0 + at, t0 + previousAt);
    state = judged.state;
    if (judged.transition) transitions.push([i, judged.transition]);
  });
  return { state: state!, transitions };
}

test('three restarts within 10 minutes are a loop; fewer, or spread wider, are not', () => {
  const loop = feed([
    [0, container({ restarts: 5 })],
    [2 * MINUTE, container({ restarts: 6 })],
    [4 * MINUTE, container({ restarts: 7, state: 'restarting' })],
    [6 * MINUTE, container({ restarts: 8 })],
  ]);
  assert.deepEqual(loop.transitions, [
    [3, { to: 'failing', detail: 'restarted 3 times in 10 minutes', summary: 'restarting in a loop' }],
  ]);
  assert.equal(loop.state.failingSince, t0 + 6 * MINUTE);

  const slow = feed([
    [0, container({ restarts: 0 })],
    [1 * MINUTE, container({ restarts: 1 })],
    [6 * MINUTE, container({ restarts: 2 })],
    [12 * MINUTE, container({ restarts: 3 })],
  ]);
  assert.deepEqual(slow.transitions, [], 'the first restart was more than 10 minutes before the third');
  // Two restarts within one sample count as two.
  const burst = feed([
    [0, container({ restarts: 0 })],
    [SAMPLE, container({ restarts: 2 })],
    [2 * SAMPLE, container({ restarts: 3 })],
  ]);
  assert.equal(burst.transitions[0]?.[0], 2);
  // A new container of the same name (recreated) starts its count again: no restart from the drop.
  const recreated = feed([
    [0, container({ restarts: 9 })],
    [SAMPLE, container({ id: 'c'.repeat(64), restarts: 0 })],
  ]);
  assert.deepEqual(recreated.state.restartTimes, []);
});

test('a loop the restart count does not see is one: docker restart, autoheal, an outside supervisor', () => {
  // Restarted every 20 s by something else than the restart policy: RestartCount stays 0, StartedAt moves.
  const startedAt = (at: number) => t0 + Math.floor(at / 20_000) * 20_000;
  const samples: [number, ContainerSample][] = [];
  for (let at = 0; at <= 5 * MINUTE; at += SAMPLE)
    samples.push([at, container({ restarts: 0, startedAt: startedAt(at) })]);
  const loop = feed(samples);
  // Starts at 0 s, 20 s, 40 s, 60 s: the samples at 30 s, 45 s and 60 s see three of them again.
  assert.deepEqual(loop.transitions, [
    [4, { to: 'failing', detail: 'restarted 3 times in 10 minutes', summary: 'restarting in a loop' }],
  ]);
  assert.equal(loop.state.restarts, 0);
  assert.equal(loop.state.startedAt, startedAt(5 * MINUTE));
});

test('a restart is counted once, a drop of the restart count never, a start on a new image never', () => {
  const start = (n: number) => t0 + n * MINUTE;
  // The policy restarts it: the count rises and it starts again, one restart.
  const policy = feed([
    [0, container({ restarts: 4, startedAt: start(0) })],
    [MINUTE, container({ restarts: 5, startedAt: start(1) })],
  ]);
  assert.deepEqual(policy.state.restartTimes, [t0 + MINUTE]);
  // The daemon restarted: the count starts again at 0 and the container started again, one restart.
  const daemon = feed(
    [
      [2 * MINUTE, container({ restarts: 0, startedAt: start(1) })],
      [3 * MINUTE, container({ restarts: 0, startedAt: start(3) })],
    ],
    { ...policy.state, restartTimes: [] },
  );
  assert.deepEqual(daemon.state.restartTimes, [t0 + 3 * MINUTE], 'the drop itself counts nothing');
  // Deployed three times: each a new image, none a restart.
  const deploys = feed(
    [0, 1, 2, 3].map((n) => [
      n * MINUTE,
      container({ id: `${n}`.repeat(64), imageId: `sha256:${`${n}`.repeat(64)}`, startedAt: start(n) }),
    ]),
  );
  assert.deepEqual(deploys.transitions, []);
  assert.deepEqual(deploys.state.restartTimes, []);
  // A start at an earlier time than the last one seen is no restart either.
  assert.deepEqual(feed([[MINUTE, container({ startedAt: start(0) })]], policy.state).state.restartTimes, [
    t0 + MINUTE,
  ]);
});

test('a container created anew under its name at each turn carries on its count, also across a short absence', () => {
  // `docker run --rm` in a loop: a new id each time, RestartCount 0, sometimes gone from a sample.
  const turn = (n: number) => container({ id: `${n}`.padStart(64, 'c'), startedAt: t0 + n * 30_000 });
  let state: ContainerState | null = null;
  const transitions: [number, ContainerTransition][] = [];
  for (let n = 0; n < 4; n++) {
    const seen = judgeContainer(state, turn(n), t0 + n * 30_000, t0 + n * 30_000 - SAMPLE);
    if (seen.transition) transitions.push([n, seen.transition]);
    // Gone from the next sample, 15 s later: its state is kept.
    const gone = judgeGone(seen.state, t0 + n * 30_000 + SAMPLE);
    assert.equal(gone.transition, null);
    assert.equal(gone.state?.goneSince, t0 + n * 30_000 + SAMPLE);
    state = gone.state;
  }
  assert.deepEqual(transitions, [
    [3, { to: 'failing', detail: 'restarted 3 times in 10 minutes', summary: 'restarting in a loop' }],
  ]);
  assert.equal(
    judgeContainer(state, turn(4), t0 + 2 * MINUTE, t0 + 2 * MINUTE - SAMPLE).state.goneSince,
    null,
    'back: no longer gone',
  );
});

test('a container gone is kept 10 minutes from when it went missing, then forgotten; failing, it recovers as removed', () => {
  const failing = feed([
    [0, container({ restarts: 0 })],
    [SAMPLE, container({ restarts: 3 })],
  ]).state;
  assert.notEqual(failing.failingSince, null);
  const first = judgeGone(failing, t0 + MINUTE);
  const still = judgeGone(first.state!, t0 + 11 * MINUTE - 1);
  assert.deepEqual([still.state?.goneSince, still.transition], [t0 + MINUTE, null]);
  assert.deepEqual(judgeGone(still.state!, t0 + 11 * MINUTE), {
    state: null,
    transition: { to: 'recovered', detail: 'removed' },
  });
  const quiet = feed([[0, container()]]).state;
  assert.deepEqual(judgeGone({ ...quiet, goneSince: t0 }, t0 + 10 * MINUTE), {
    state: null,
    transition: null,
  });
});

test('a loop recovers once it ran 10 minutes without a restart, not before', () => {
  const { state } = feed([
    [0, container({ restarts: 0 })],
    [MINUTE, container({ restarts: 1 })],
    [2 * MINUTE, container({ restarts: 2 })],
    [3 * MINUTE, container({ restarts: 3 })],
  ]);
  const after = feed(
    [
      [5 * MINUTE, container({ restarts: 3 })],
      [12 * MINUTE, container({ restarts: 3 })],
      [13 * MINUTE - 1, container({ restarts: 3 })],
      [13 * MINUTE, container({ restarts: 3 })],
    ],
    state,
  );
  assert.deepEqual(after.transitions, [[3, { to: 'recovered', detail: 'running again' }]]);
  assert.equal(after.state.failingSince, null);
});

test('exited or dead with a non-zero code is an error; code 0 is not; the OOM kill is named', () => {
  const exited = feed([
    [0, container()],
    [SAMPLE, container({ state: 'exited', exitCode: 137, oomKilled: true, cpu: null, memory: null })],
  ]);
  assert.deepEqual(exited.transitions, [
    [
      1,
      { to: 'failing', detail: 'exited with code 137 (killed for memory)', summary: 'exited with an error' },
    ],
  ]);
  assert.equal(feed([[0, container({ state: 'dead', exitCode: 1 })]]).transitions[0]?.[1].to, 'failing');
  assert.deepEqual(feed([[0, container({ state: 'exited', exitCode: 0 })]]).transitions, []);
  // Restarting (its policy brings it back) is no exit with an error.
  assert.deepEqual(feed([[0, container({ state: 'restarting', exitCode: 1 })]]).transitions, []);
  // Started again: it recovers at once without a health check, after its health check passes with one.
  const started = feed(
    [
      [2 * SAMPLE, container({ health: 'starting' })],
      [3 * SAMPLE, container({ health: 'healthy' })],
    ],
    exited.state,
  );
  assert.deepEqual(started.transitions, [[1, { to: 'recovered', detail: 'running and healthy again' }]]);
});

test('unhealthy for 2 minutes fails; a shorter spell does not; healthy again recovers', () => {
  const unhealthy = (at: number) => [at, container({ health: 'unhealthy' })] as [number, ContainerSample];
  const short = feed([
    unhealthy(0),
    unhealthy(MINUTE),
    [MINUTE + SAMPLE, container({ health: 'healthy' })],
    unhealthy(2 * MINUTE),
    unhealthy(3 * MINUTE),
  ]);
  assert.deepEqual(short.transitions, [], 'the healthy sample started the 2 minutes again');
  const long = feed([unhealthy(0), unhealthy(MINUTE), unhealthy(2 * MINUTE + SAMPLE)]);
  assert.deepEqual(long.transitions, [
    [2, { to: 'failing', detail: 'unhealthy for 2 minutes', summary: 'unhealthy' }],
  ]);
  const back = feed([[3 * MINUTE, container({ health: 'healthy' })]], long.state);
  assert.deepEqual(back.transitions, [[0, { to: 'recovered', detail: 'running and healthy again' }]]);
});

test('restarts or an OOM kill alone are no alert', () => {
  const { transitions } = feed([
    [0, container({ restarts: 0 })],
    [MINUTE, container({ restarts: 1, oomKilled: true })],
    [2 * MINUTE, container({ restarts: 2 })],
  ]);
  assert.deepEqual(transitions, []);
});

test('across samples stopped for longer than the silence timeout, unhealthy starts again and restarts count from its start', () => {
  const unhealthy = container({ health: 'unhealthy' });
  // Unhealthy, the agent stopped 20 minutes, unhealthy again: not 20 minutes unhealthy, 2 from the return.
  const back = feed([
    [0, unhealthy],
    [20 * MINUTE, unhealthy, 0],
    [21 * MINUTE, unhealthy],
  ]);
  assert.deepEqual(back.transitions, []);
  assert.equal(back.state.unhealthySince, t0 + 20 * MINUTE);
  const later = feed([[22 * MINUTE, unhealthy]], back.state);
  assert.deepEqual(later.transitions, [
    [0, { to: 'failing', detail: 'unhealthy for 2 minutes', summary: 'unhealthy' }],
  ]);
  // A gap of 60 s is no gap: the spell goes on.
  const minute = feed([
    [0, unhealthy],
    [MINUTE, unhealthy, 0],
    [2 * MINUTE, unhealthy, MINUTE],
  ]);
  assert.equal(minute.transitions[0]?.[0], 2);

  // Three restarts while the agent was away 20 minutes: when they happened is unknown, so they count
  // from the gap's start, more than 10 minutes back: no loop.
  const away = feed([
    [0, container({ restarts: 0 })],
    [20 * MINUTE, container({ restarts: 3 }), 0],
  ]);
  assert.deepEqual(away.transitions, []);
  assert.deepEqual(away.state.restartTimes, []);
  // Away 5 minutes: three restarts within those 5 minutes are a loop.
  const short = feed([
    [0, container({ restarts: 0 })],
    [5 * MINUTE, container({ restarts: 3 }), 0],
  ]);
  assert.deepEqual(short.transitions, [
    [1, { to: 'failing', detail: 'restarted 3 times in 10 minutes', summary: 'restarting in a loop' }],
  ]);
  assert.deepEqual(short.state.restartTimes, [t0, t0, t0], 'counted from the gap start');
  // A reboot: the daemon's count starts again at 0 and the container starts again: one restart.
  const reboot = feed([
    [0, container({ restarts: 4, startedAt: t0 - MINUTE })],
    [3 * MINUTE, container({ restarts: 0, startedAt: t0 + 2 * MINUTE }), 0],
  ]);
  assert.deepEqual(reboot.state.restartTimes, [t0]);
});
