import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration as formatDurationText } from '../../../protocol/durations.ts';
import {
  formatBytes,
  formatCpu,
  formatDate,
  formatDuration,
  formatLatency,
  formatPercent,
  formatRate,
  formatRelative,
  formatTime,
  formatWhen,
  localTimes,
  parseDuration,
} from './format.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

test('durations read as 850 ms, 12 s, 5 min, 2 h 5 min, 3 d 4 h', () => {
  assert.equal(formatDuration(850), '850 ms');
  assert.equal(formatDuration(12_000), '12 s');
  assert.equal(formatDuration(5 * MIN), '5 min');
  assert.equal(formatDuration(90_000), '1 min 30 s');
  assert.equal(formatDuration(12 * MIN + 30_000), '12 min', 'seconds are dropped from 10 minutes up');
  assert.equal(formatDuration(2 * HOUR + 5 * MIN), '2 h 5 min');
  assert.equal(formatDuration(2 * HOUR), '2 h');
  assert.equal(formatDuration(3 * DAY + 4 * HOUR), '3 d 4 h');
  assert.equal(formatDuration(8 * DAY + 4 * HOUR), '8 d', 'hours are dropped from a week up');
  assert.equal(formatDuration(-12_000), '12 s');
});

test('relative times say in or ago', () => {
  const now = Date.UTC(2026, 0, 15, 12);
  assert.equal(formatRelative(now + 3 * DAY, now), 'in 3 d');
  assert.equal(formatRelative(now - 5 * MIN, now), '5 min ago');
  assert.equal(formatRelative(now, now), 'just now');
  assert.equal(formatRelative(now - 400, now), 'just now');
});

test('latency and uptime percentages', () => {
  assert.equal(formatLatency(null), '–');
  assert.equal(formatLatency(undefined), '–');
  assert.equal(formatLatency(182.4), '182 ms');
  assert.equal(formatLatency(1234), '1.23 s');
  assert.equal(formatLatency(12_345), '12.3 s');
  assert.equal(formatPercent(null), '–');
  assert.equal(formatPercent(100), '100%');
  assert.equal(formatPercent(99.95), '99.95%', 'never rounded up to 100%');
  assert.equal(formatPercent(99.999), '99.999%');
  assert.equal(formatPercent(99.5), '99.5%');
  assert.equal(formatPercent(98.123), '98.1%');
  assert.equal(formatPercent(50), '50%');
});

test('typed durations become milliseconds; unreadable ones NaN, empty ones null', () => {
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('5m'), 5 * MIN);
  assert.equal(parseDuration('5min'), 5 * MIN);
  assert.equal(parseDuration('1h 30m'), 90 * MIN);
  assert.equal(parseDuration('1.5h'), 90 * MIN);
  assert.equal(parseDuration('2d'), 2 * DAY);
  assert.equal(parseDuration('1500ms'), 1500);
  assert.equal(parseDuration(' 30 '), 30_000, 'a bare number is seconds');
  assert.equal(parseDuration('1H'), HOUR);
  assert.equal(parseDuration(''), null);
  assert.equal(parseDuration('   '), null);
  assert.ok(Number.isNaN(parseDuration('soon')));
  assert.ok(Number.isNaN(parseDuration('5 weeks')));
});

test("mon's duration text (the form's fields) reads back as the same milliseconds", () => {
  for (const ms of [
    1000,
    10_000,
    60_000,
    90_000,
    150_000,
    90 * MIN,
    HOUR,
    36 * HOUR,
    DAY,
    7 * DAY,
    1500,
    2500,
  ]) {
    assert.equal(parseDuration(formatDurationText(ms)), ms, String(ms));
  }
});

test("today's times show only the clock, older ones the date too", () => {
  const now = Date.now();
  assert.ok(!formatWhen(now, now).includes(formatDate(now)));
  const old = now - 3 * DAY;
  assert.ok(formatWhen(old, now).includes(formatDate(old)));
});

test('UTC times in a detail show in the local time zone; other text stays', () => {
  const at = Date.UTC(2026, 0, 1, 1);
  assert.equal(
    localTimes('never pinged; expected by 2026-01-01T01:00:00.000Z'),
    `never pinged; expected by ${formatTime(at)}`,
  );
  assert.equal(localTimes('started at 2026-01-01T01:00Z.'), `started at ${formatTime(at)}.`);
  assert.equal(localTimes('500 Internal Server Error'), '500 Internal Server Error');
  assert.equal(localTimes('build 2026-01-01T01:00:00'), 'build 2026-01-01T01:00:00', 'no zone: not UTC');
});

test('bytes in binary units, one decimal under 10; rates per second', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(1024), '1 KiB', 'no trailing .0');
  assert.equal(formatBytes(12.4 * 1024 * 1024), '12 MiB');
  assert.equal(formatBytes(3.84 * 1024 ** 3), '3.8 GiB');
  assert.equal(formatBytes(2 * 1024 ** 4), '2 TiB');
  assert.equal(formatBytes(null), '–');
  assert.equal(formatRate(1.5 * 1024 * 1024), '1.5 MiB/s');
  assert.equal(formatRate(undefined), '–');
});

test('CPU of one core passes 100% on a process using several', () => {
  assert.equal(formatCpu(0.42), '0.4%');
  assert.equal(formatCpu(3), '3%');
  assert.equal(formatCpu(37.4), '37%');
  assert.equal(formatCpu(250), '250%');
  assert.equal(formatCpu(null), '–');
});
