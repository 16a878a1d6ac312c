import assert from 'node:assert/strict';
import { test } from 'node:test';
import { durationSchema, formatDuration, parseDuration } from './durations.ts';

test('parses duration strings', () => {
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('2d'), 172_800_000);
  assert.equal(parseDuration(' 1m30s '), 90_000);
  for (const bad of ['', '30', '1.5h', 'm', '5 m', '5x', '-5s', '1h 30m'])
    assert.equal(parseDuration(bad), null, bad);
});

test('formats in the largest exact unit', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(1500), '1500ms');
  assert.equal(formatDuration(90_000), '90s');
  assert.equal(formatDuration(5_400_000), '90m');
  assert.equal(formatDuration(7_200_000), '2h');
  assert.equal(formatDuration(90 * 86_400_000), '90d');
  for (const ms of [1, 999, 10_000, 61_000, 3_600_000, 86_400_000 + 1000]) {
    assert.equal(parseDuration(formatDuration(ms)), ms);
  }
});

test('the schema refuses integers and enforces bounds', () => {
  const schema = durationSchema({ min: 10_000, max: 60_000 });
  assert.equal(schema.parse('30s'), 30_000);
  assert.equal(schema.safeParse(30).error?.issues[0]?.message, 'use a duration such as 30s, 5m or 1h30m');
  assert.equal(schema.safeParse('5s').error?.issues[0]?.message, 'must be at least 10s');
  assert.equal(schema.safeParse('2m').error?.issues[0]?.message, 'must be at most 1m');
  assert.match(schema.safeParse('soon').error?.issues[0]?.message ?? '', /must be a duration/);
});
