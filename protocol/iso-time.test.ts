import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoDate, isoTime } from './iso-time.ts';

const DAY = 86_400_000;

test('isoTime writes what toISOString writes: around the epoch, leap days, centuries and the ends of four-digit years', () => {
  const times = [
    0,
    -1,
    1,
    Date.UTC(2026, 0, 1, 12, 0, 0, 5),
    Date.UTC(2000, 1, 29, 23, 59, 59, 999),
    Date.UTC(1900, 1, 28),
    Date.UTC(1900, 2, 1),
    Date.UTC(2100, 2, 1) - 1,
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    -62_167_219_200_000, // 0000-01-01, and the last time before it
    -62_167_219_200_001,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10_000, 0, 1),
    8.64e15,
    -8.64e15,
    1.5,
  ];
  // Random times over 4000 years, each a different time of day.
  for (let i = 0; i < 20_000; i++) times.push(Math.floor((Math.random() - 0.2) * 4000 * 365.25 * DAY));
  for (const ms of times) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  assert.equal(isoDate(Date.UTC(2024, 1, 29, 23, 59)), '2024-02-29');
});

test('isoTime throws as toISOString does on a time that is not one', () => {
  for (const ms of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY])
    assert.throws(() => isoTime(ms), RangeError);
});
