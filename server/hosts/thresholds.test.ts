import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MINUTE } from '../../protocol/durations.ts';
import {
  idleThreshold,
  judgeThreshold,
  type Reading,
  recoveryLevel,
  type ThresholdMetric,
  type ThresholdState,
  type ThresholdTransition,
} from './thresholds.ts';

/** docs/hosts.md "Alerts": samples every 15 s through the pure threshold rule. */

const SAMPLE = 15_000;
const t0 = Date.UTC(2026, 10, 23, 12);

/** The agent stopped for `ms`: no sample meanwhile (an entry of `feed`'s values, not a sample). */
const stop = (ms: number) => ({ stop: ms });

/**
 * Feeds values 15 s apart from t0 (or `stop`s) and returns each sample's transition, with its index
 * among the entries, and the state after the last.
 */
function feed(
  metric: ThresholdMetric,
  values: (number | null | { stop: number })[],
  limits: number | null | (number | null)[] = 90,
  from: ThresholdState = idleThreshold,
) {
  let state = from;
  const transitions: { at: number; t: ThresholdTransition }[] = [];
  let ts = t0 - SAMPLE;
  // A state given comes from samples just before t0.
  let previous: number | null = from === idleThreshold ? null : ts;
  values.forEach((value, i) => {
    if (value !== null && typeof value === 'object') {
      ts += value.stop;
      return;
    }
    ts += SAMPLE;
    const limit = Array.isArray(limits) ? limits[i]! : limits;
    const reading: Reading = { value, mount: metric === 'disk' ? '/' : null };
    const judged = judgeThreshold(metric, state, reading, limit, ts, previous);
    previous = ts;
    state = judged.state;
    if (judged.transition) transitions.push({ at: i, t: judged.transition });
  });
  return { state, transitions };
}

const above = (n: number, value = 97) => new Array<number>(n).fill(value);

test('CPU fails once every sample for 5 minutes was above the limit, naming value, limit and time', () => {
  // 20 samples span 4 min 45 s; the 21st is 5 minutes after the first.
  const early = feed('cpu', above(20));
  assert.deepEqual(early.transitions, []);
  assert.equal(early.state.aboveSince, t0);
  const { state, transitions } = feed('cpu', above(21));
  assert.deepEqual(transitions, [
    {
      at: 20,
      t: {
        to: 'failing',
        detail: 'CPU above 90% for 5 minutes (97%)',
        summary: 'CPU above 90%',
        since: t0,
      },
    },
  ]);
  assert.deepEqual(state, {
    aboveSince: t0,
    failingSince: t0 + 5 * MINUTE,
    value: 97,
    detail: 'CPU above 90% for 5 minutes (97%)',
    absent: 0,
  });
  assert.equal(feed('cpu', above(40)).transitions.length, 1, 'it fails once');
});

test('a sample at or below the limit starts the 5 minutes again; a missing value neither counts nor resets', () => {
  const dip = feed('memory', [...above(10), 90, ...above(20)]);
  assert.deepEqual(dip.transitions, [], 'the dip to the limit itself reset the wait');
  const dipThenLong = feed('memory', [...above(10), 90, ...above(21)]);
  assert.equal(dipThenLong.transitions[0]?.at, 31);
  assert.equal(
    dipThenLong.transitions[0]?.t.to === 'failing' && dipThenLong.transitions[0].t.since,
    t0 + 11 * SAMPLE,
  );

  const gaps = feed('memory', [...above(10), null, null, ...above(9)]);
  assert.equal(gaps.transitions[0]?.at, 20, 'nulls keep the spell going: fails 5 minutes after the first');
  const nullsOnly = feed('memory', [null, null, null]);
  assert.deepEqual(nullsOnly.state, idleThreshold);
});

test('swap and temperature have their own words; temperature in degrees', () => {
  const swap = feed('swap', above(21, 85.4), 80);
  assert.equal(
    swap.transitions[0]?.t.to === 'failing' && swap.transitions[0].t.detail,
    'swap above 80% for 5 minutes (85%)',
  );
  const hot = feed('temperature', above(21, 91.2), 85);
  const t = hot.transitions[0]?.t;
  assert.ok(t?.to === 'failing');
  assert.equal(t.detail, 'temperature above 85 °C for 5 minutes (91 °C)');
  assert.equal(t.summary, 'temperature above 85 °C');
});

test('a limit with decimals is named as it was set, and the value with as many decimals', () => {
  const cpu = feed('cpu', above(21, 20), 12.5);
  const t = cpu.transitions[0]?.t;
  assert.ok(t?.to === 'failing');
  assert.equal(t.detail, 'CPU above 12.5% for 5 minutes (20.0%)');
  assert.equal(t.summary, 'CPU above 12.5%');
  const disk = feed('disk', [90.45], 90.4);
  assert.equal(disk.transitions[0]?.t.detail, 'disk / 90.5% full (limit 90.4%)');
});

test('a full disk fails at once, at the limit itself, naming the filesystem', () => {
  assert.deepEqual(feed('disk', [89.9]).transitions, []);
  const { transitions, state } = feed('disk', [96]);
  assert.deepEqual(transitions, [
    {
      at: 0,
      t: { to: 'failing', detail: 'disk / 96% full (limit 90%)', summary: 'disk / 96% full', since: t0 },
    },
  ]);
  assert.equal(state.failingSince, t0);
  assert.equal(feed('disk', [90]).transitions[0]?.t.to, 'failing', 'at the limit is full');
});

test('recovery needs two samples in a row 5 points below the limit: a value hovering at the limit does not flap', () => {
  assert.equal(recoveryLevel(90), 85);
  assert.equal(recoveryLevel(6), 3, 'half the limit for limits under 10');
  const failing = feed('cpu', above(21)).state;
  // Hovering around the limit, one sample below 85 at a time: still failing.
  const hover = feed('cpu', [91, 88, 89, 84, 92, 86, 83, 90], 90, failing);
  assert.deepEqual(hover.transitions, []);
  assert.equal(hover.state.failingSince, failing.failingSince);
  // Two in a row below 85 recover, naming the value and the limit.
  const back = feed('cpu', [84, 61], 90, failing);
  assert.deepEqual(back.transitions, [{ at: 1, t: { to: 'recovered', detail: 'CPU at 61% (limit 90%)' } }]);
  assert.deepEqual(back.state, idleThreshold);
  // A missing value between the two does not break the pair.
  assert.equal(feed('cpu', [84, null, 80], 90, failing).transitions[0]?.at, 2);

  const disk = feed('disk', [96, 88, 86, 84, 83]);
  assert.deepEqual(
    disk.transitions.map((x) => [x.at, x.t.to, x.t.detail]),
    [
      [0, 'failing', 'disk / 96% full (limit 90%)'],
      [4, 'recovered', 'disk / 83% full (limit 90%)'],
    ],
  );
});

test('a failing alert whose value is missing from two samples in a row recovers, saying what went', () => {
  const swapping = feed('swap', above(21, 95), 80).state;
  // swapoff -a: from now on the samples have no swap.
  const one = feed('swap', [null], 80, swapping);
  assert.deepEqual(one.transitions, [], 'one sample without the value is not enough');
  assert.equal(one.state.absent, 1);
  assert.equal(one.state.failingSince, swapping.failingSince);
  const off = feed('swap', [null, null, null], 80, swapping);
  assert.deepEqual(off.transitions, [{ at: 1, t: { to: 'recovered', detail: 'no swap any more' } }]);
  assert.deepEqual(off.state, idleThreshold);
  // A value between two missing ones starts the count again (and is judged as usual).
  const flicker = feed('swap', [null, 95, null, 96, null], 80, swapping);
  assert.deepEqual(flicker.transitions, []);
  assert.equal(flicker.state.absent, 1);

  const hot = feed('temperature', above(21, 95), 85).state;
  assert.deepEqual(feed('temperature', [null, null], 85, hot).transitions[0]?.t, {
    to: 'recovered',
    detail: 'no temperature sensor answers',
  });
  const full = feed('disk', [96]).state;
  assert.deepEqual(feed('disk', [null, null], 90, full).transitions[0]?.t, {
    to: 'recovered',
    detail: 'no filesystem left to watch',
  });
  assert.equal(
    feed('cpu', [null, null], 90, feed('cpu', above(21)).state).transitions[0]?.t.detail,
    'no CPU value any more',
  );
  // Swap on again and full: the 5 minutes start from its return.
  const back = feed('swap', [null, null, ...above(21, 95)], 80, swapping);
  assert.deepEqual(
    back.transitions.map((x) => [x.at, x.t.to]),
    [
      [1, 'recovered'],
      [22, 'failing'],
    ],
  );
});

test('a limit turned off recovers a failing alert, and an alert that is off never fails', () => {
  const failing = feed('cpu', above(21)).state;
  const off = feed('cpu', [99], null, failing);
  assert.deepEqual(off.transitions, [
    { at: 0, t: { to: 'recovered', detail: 'the CPU alert was turned off' } },
  ]);
  assert.deepEqual(off.state, idleThreshold);
  assert.deepEqual(feed('cpu', above(40), null).transitions, []);
  // Turned on again: the 5 minutes start from then.
  const limits = [null, null, ...new Array<number>(21).fill(90)];
  assert.equal(feed('cpu', above(23), limits).transitions[0]?.at, 22);
});

test('the 5 minutes are of samples: samples stopping for longer than the silence timeout start them again', () => {
  for (const [metric, limit] of [
    ['cpu', 90],
    ['memory', 90],
    ['swap', 80],
    ['temperature', 85],
  ] as const) {
    // web-3: above, the agent stopped 20 minutes, its first sample back without the value, above again.
    const reboot = feed(metric, [97, stop(20 * MINUTE), null, 97], limit);
    assert.deepEqual(reboot.transitions, [], `${metric}: two samples far apart are no 5 minutes`);
    const back = t0 + 20 * MINUTE + 2 * SAMPLE;
    assert.equal(reboot.state.aboveSince, back, `${metric}: the spell starts from the first value back`);
    const after = feed(metric, [97, stop(20 * MINUTE), null, ...above(21)], limit);
    assert.deepEqual(
      after.transitions.map((x) => [x.at, x.t.to, x.t.to === 'failing' && x.t.since]),
      [[23, 'failing', back]],
      `${metric}: fails 5 minutes after its return`,
    );
  }
  // The gap is longer than the silence timeout (60 s): a sample 60 s after the last keeps the spell,
  // which fails 5 minutes after its first sample.
  assert.equal(feed('cpu', [...above(10), stop(45_000), ...above(10)]).transitions[0]?.at, 18);
  assert.deepEqual(feed('cpu', [...above(10), stop(45_001), ...above(10)]).transitions, []);
  assert.equal(feed('cpu', [...above(10), stop(45_001), ...above(21)]).transitions[0]?.at, 31);
  // A failing alert does not recover for want of samples; a full disk fails at once all the same.
  const failing = feed('cpu', above(21)).state;
  const later = feed('cpu', [stop(20 * MINUTE), 97], 90, failing);
  assert.deepEqual([later.transitions, later.state.failingSince], [[], failing.failingSince]);
  assert.equal(feed('disk', [40, stop(20 * MINUTE), 96]).transitions[0]?.t.to, 'failing');
});

test('a value missing for longer than the silence timeout ends the spell; missing briefly it does not', () => {
  // Three samples without the value: 60 s between two values, the spell goes on.
  const brief = feed('temperature', [...above(10, 91), null, null, null, ...above(8, 91)], 85);
  assert.equal(brief.transitions[0]?.at, 20);
  // Four: 75 s without a value; the 5 minutes start again from the next one.
  const long = [...above(10, 91), null, null, null, null];
  assert.deepEqual(feed('temperature', [...long, ...above(20, 91)], 85).transitions, []);
  assert.equal(feed('temperature', [...long, ...above(21, 91)], 85).transitions[0]?.at, 34);
  // A value between the missing ones starts their count again.
  const flicker = [...above(10), null, null, null, 97, null, null, null, ...above(4)];
  assert.equal(feed('cpu', flicker).transitions[0]?.at, 20);
});
