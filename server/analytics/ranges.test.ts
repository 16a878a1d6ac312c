import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { previousSpan, readSpan } from './ranges.ts';
import { hourlyKeptFrom, RAW_RETENTION_MS } from './retention.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);

test('a span up to 48 hours reads the hours it touches, up to now', () => {
  const span = readSpan(NOW - DAY, NOW, NOW);
  assert.equal(span.res, 'h');
  assert.equal(span.stepMs, HOUR);
  assert.equal(span.from, Date.UTC(2026, 2, 9, 14));
  assert.equal(span.to, NOW);
  // 14:00 yesterday to 14:00 today: the first and last hours are partial.
  assert.equal(span.buckets.length, 25);
  assert.equal(span.buckets.at(-1), Date.UTC(2026, 2, 10, 14));

  assert.equal(readSpan(NOW - 48 * HOUR, NOW, NOW).res, 'h');
  assert.equal(readSpan(NOW - 48 * HOUR - 1, NOW, NOW).res, 'd');
});

test('a longer span reads UTC days', () => {
  const span = readSpan(NOW - 7 * DAY, NOW, NOW);
  assert.equal(span.res, 'd');
  assert.equal(span.stepMs, DAY);
  assert.equal(span.from, Date.UTC(2026, 2, 3));
  assert.deepEqual(
    span.buckets,
    Array.from({ length: 8 }, (_, i) => Date.UTC(2026, 2, 3 + i)),
  );
  assert.equal(readSpan(NOW - 365 * DAY, NOW, NOW).buckets.length, 366);
});

test('a short span whose hours are no longer kept reads its whole days, and says so in from and to', () => {
  const from = Date.UTC(2026, 0, 5, 10, 30);
  const span = readSpan(from, from + 4 * HOUR, NOW);
  assert.equal(span.res, 'd');
  assert.equal(span.from, Date.UTC(2026, 0, 5));
  assert.equal(span.to, Date.UTC(2026, 0, 6));
  assert.deepEqual(span.buckets, [Date.UTC(2026, 0, 5)]);

  // The first hour still surely kept reads hours; the one before it, days.
  const kept = hourlyKeptFrom(NOW);
  assert.ok(kept >= NOW - RAW_RETENTION_MS && kept - HOUR < NOW - RAW_RETENTION_MS);
  assert.equal(readSpan(kept, kept + HOUR, NOW).res, 'h');
  assert.equal(readSpan(kept - 1, kept + HOUR, NOW).res, 'd');
});

test('a span in the past ends with its last bucket; one reaching into the future keeps its end', () => {
  const from = Date.UTC(2026, 2, 9, 10, 30);
  assert.equal(readSpan(from, from + HOUR, NOW).to, Date.UTC(2026, 2, 9, 12));
  assert.equal(readSpan(NOW - HOUR, NOW + HOUR, NOW).to, NOW + HOUR);
});

test('the previous period has as many buckets just before the first one, at the same resolution', () => {
  const span = readSpan(NOW - DAY, NOW, NOW);
  const previous = previousSpan(span, NOW)!;
  assert.equal(previous.res, 'h');
  // 24 hours asked touch 25 buckets: the previous period has 25 too, not 24.
  assert.equal(previous.buckets.length, 25);
  assert.equal(previous.from, span.from - 25 * HOUR);
  assert.equal(previous.buckets[0], previous.from);
  assert.equal(previous.buckets.at(-1)! + HOUR, span.from);
  assert.equal(previous.to, span.from);

  // 48 hours touching 49 buckets still compare with 49 hours, not with days.
  const twoDays = readSpan(NOW - 48 * HOUR, NOW, NOW);
  const twoDaysBefore = previousSpan(twoDays, NOW)!;
  assert.equal(twoDaysBefore.res, 'h');
  assert.equal(twoDaysBefore.buckets.length, 49);

  const monthSpan = readSpan(NOW - 30 * DAY, NOW, NOW);
  const monthBefore = previousSpan(monthSpan, NOW)!;
  assert.equal(monthBefore.res, 'd');
  assert.equal(monthBefore.buckets.length, monthSpan.buckets.length);
  assert.equal(monthBefore.buckets.length, 31);
  assert.equal(monthBefore.buckets.at(-1)! + DAY, monthSpan.from);
});

test('the previous period of an hourly span is left out when its hours are no longer kept', () => {
  const kept = hourlyKeptFrom(NOW);
  const span = readSpan(kept + HOUR, kept + 25 * HOUR, NOW);
  assert.equal(span.res, 'h');
  assert.equal(previousSpan(span, NOW), null);

  // Starting at the first hour surely kept, it is read.
  const justKept = readSpan(kept + 24 * HOUR, kept + 48 * HOUR, NOW);
  assert.equal(previousSpan(justKept, NOW)?.from, kept);
});
