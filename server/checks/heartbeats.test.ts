import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDefaults } from '../../protocol/check.ts';
import { nextCronTime } from './cron.ts';
import { afterMissed, expectedAfter, heartbeatDeadline, missedDetail, parseSuffix } from './heartbeats.ts';

const M = 60_000;
const every = withDefaults({ name: 'b', service: 's', kind: 'heartbeat', everyMs: 10 * M, graceMs: 2 * M });
const cron = withDefaults({
  name: 'n',
  service: 's',
  kind: 'heartbeat',
  cron: '30 2 * * *',
  timezone: 'Europe/Berlin',
  graceMs: M,
});

test('an interval heartbeat is late at the last ping plus every plus grace', () => {
  const times = { expectedAt: expectedAfter(every, 0), startedAt: null };
  assert.deepEqual(heartbeatDeadline(every, times), { at: 12 * M, reason: 'late' });
  const next = afterMissed(every, times, 'late', 12 * M);
  assert.equal(next.expectedAt, 20 * M);
  // After a long pause the next deadline is one period ahead, not a burst of missed ones.
  assert.equal(afterMissed(every, times, 'late', 1000 * M).expectedAt, 1000 * M - 2 * M + 10 * M);
});

test('a start must finish within grace', () => {
  const times = { expectedAt: 10 * M, startedAt: 3 * M };
  assert.deepEqual(heartbeatDeadline(every, times), { at: 5 * M, reason: 'unfinished' });
  assert.deepEqual(afterMissed(every, times, 'unfinished', 5 * M), { expectedAt: 10 * M, startedAt: null });
});

test('cron runs in the time zone, across the spring-forward and fall-back changes', () => {
  // 2026-03-29: Berlin skips 02:00-03:00; the 02:30 run happens at 03:00 local (01:00 UTC).
  const before = Date.UTC(2026, 2, 28, 12);
  assert.equal(new Date(expectedAfter(cron, before)).toISOString(), '2026-03-29T01:00:00.000Z');
  assert.equal(
    new Date(expectedAfter(cron, Date.UTC(2026, 2, 29, 2))).toISOString(),
    '2026-03-30T00:30:00.000Z',
  );
  assert.equal(
    new Date(nextCronTime('30 2 * * *', 'Europe/Berlin', Date.UTC(2026, 2, 27, 12))!).toISOString(),
    '2026-03-28T01:30:00.000Z',
  );
  // 2026-10-25: 02:30 happens twice in Berlin; the job runs once, at the first (00:30 UTC).
  const fall = nextCronTime('30 2 * * *', 'Europe/Berlin', Date.UTC(2026, 9, 24, 12))!;
  assert.equal(new Date(fall).toISOString(), '2026-10-25T00:30:00.000Z');
  assert.equal(
    new Date(nextCronTime('30 2 * * *', 'Europe/Berlin', fall)!).toISOString(),
    '2026-10-26T01:30:00.000Z',
  );
  assert.deepEqual(heartbeatDeadline(cron, { expectedAt: fall, startedAt: null }), {
    at: fall + M,
    reason: 'late',
  });
});

test('ping suffixes: start, fail, exit codes 0-255, nothing else', () => {
  assert.deepEqual(parseSuffix(undefined), { kind: 'success', exitCode: null });
  assert.deepEqual(parseSuffix('start'), { kind: 'start', exitCode: null });
  assert.deepEqual(parseSuffix('fail'), { kind: 'fail', exitCode: null });
  assert.deepEqual(parseSuffix('0'), { kind: 'success', exitCode: 0 });
  assert.deepEqual(parseSuffix('255'), { kind: 'fail', exitCode: 255 });
  for (const bad of ['256', '-1', '01', 'log', '1.5']) assert.equal(parseSuffix(bad), null, bad);
});

test('a missed heartbeat that was never pinged says so; times are ISO 8601 UTC', () => {
  const times = { expectedAt: Date.UTC(2026, 0, 1, 1), startedAt: null };
  assert.equal(
    missedDetail(every, times, 'late', null),
    'never pinged; expected by 2026-01-01T01:00:00.000Z',
  );
  assert.equal(
    missedDetail(every, times, 'late', Date.UTC(2026, 0, 1, 0, 50)),
    'no ping since 2026-01-01T00:50:00.000Z; expected by 2026-01-01T01:00:00.000Z',
  );
  const started = { expectedAt: times.expectedAt, startedAt: Date.UTC(2026, 0, 1, 0, 55) };
  assert.equal(
    missedDetail(every, started, 'unfinished', null),
    'started at 2026-01-01T00:55:00.000Z and did not finish within 120 s',
  );
});
