import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spanText } from './durations.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

test('a span in words: seconds up to 2 minutes, minutes, hours with minutes up to 2 days, then days with hours', () => {
  const cases: [number, string][] = [
    [-5000, '0 s'],
    [0, '0 s'],
    [999, '0 s'],
    [45_000, '45 s'],
    [60_000, '60 s'],
    [90_000, '90 s'],
    [119_999, '119 s'],
    [2 * MIN, '2 min'],
    [25 * MIN + 59_000, '25 min'],
    [HOUR, '1 h'],
    [HOUR + 3 * MIN, '1 h 3 min'],
    [DAY, '24 h'],
    [47 * HOUR + 59 * MIN, '47 h 59 min'],
    [2 * DAY, '2 d'],
    [3 * DAY + 5 * HOUR + 40 * MIN, '3 d 5 h'],
  ];
  for (const [ms, words] of cases) assert.equal(spanText(ms), words, String(ms));
});
