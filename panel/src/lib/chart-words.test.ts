import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axisDay, browserTimeZone, dayTicks, timesNote } from './chart-time.ts';
import { chartKeyStep, chartReading, chartSummary } from './chart-words.ts';
import { formatTime } from './format.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const x = [0, MIN, 2 * MIN, 3 * MIN].map((m) => Date.UTC(2026, 0, 1, 9) + m);
const data = {
  x,
  stepMs: MIN,
  lines: [
    { label: 'mean', values: [10, null, 30, 20] },
    { label: 'max', values: [null, null, null, null] },
  ],
  format: (v: number) => `${v}%`,
};

test('a chart summary tells each line lowest, average and highest, and when the highest was', () => {
  assert.equal(
    chartSummary(data),
    `From ${formatTime(x[0]!)} to ${formatTime(x[3]!)}; times in your browser's time zone (${browserTimeZone()}). mean: lowest 10%, average 20%, highest 30% at ${formatTime(x[2]!)}. max: nothing measured.`,
  );
  assert.equal(chartSummary({ ...data, x: [] }), 'Nothing measured in this range.');
});

test('a reading tells the values of one step, a gap in words', () => {
  assert.equal(chartReading(data, 1), `${formatTime(x[1]!)}: mean not measured, max not measured`);
  assert.equal(chartReading(data, 2), `${formatTime(x[2]!)}: mean 30%, max not measured`);
});

test('a day step reads as the UTC date it sums, with no time of day, and the words say UTC days', () => {
  const DAY = 24 * HOUR;
  // 31 March and 1 April 2026, UTC: west of UTC their starts are the evenings before.
  const days = { ...data, x: [Date.UTC(2026, 2, 31), Date.UTC(2026, 3, 1)], stepMs: DAY };
  const lines = [{ label: 'visitors', values: [26, 30] }];
  const utc = new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  const [first, second] = days.x.map((d) => utc.format(d));
  assert.equal(chartReading({ ...days, lines }, 0), `${first}: visitors 26%`);
  assert.equal(
    chartSummary({ ...days, lines }),
    `From ${first} to ${second}; points are UTC days. visitors: lowest 26%, average 28%, highest 30% on ${second}.`,
  );
  // The axis: ticks at UTC midnights inside the plot's range, read as UTC dates.
  const ticks = dayTicks(days.x[0]! - 7 * HOUR, days.x[1]! + DAY, DAY);
  assert.deepEqual(ticks, [...days.x, days.x[1]! + DAY]);
  assert.equal(
    axisDay(ticks[0]!),
    new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(ticks[0]!),
  );
  assert.match(
    timesNote(DAY),
    /^Chart points are UTC days; other times are shown in your browser's time zone/,
  );
  assert.equal(timesNote(), `Times are shown in your browser's time zone (${browserTimeZone()})`);
});

test('arrow keys move a step, Page keys ten, Home and End to the ends; the first key starts at the end', () => {
  assert.equal(chartKeyStep('ArrowLeft', null, 4), 3);
  assert.equal(chartKeyStep('ArrowLeft', 3, 4), 2);
  assert.equal(chartKeyStep('ArrowLeft', 0, 4), 0);
  assert.equal(chartKeyStep('ArrowRight', 3, 4), 3);
  assert.equal(chartKeyStep('Home', 2, 4), 0);
  assert.equal(chartKeyStep('End', 0, 4), 3);
  assert.equal(chartKeyStep('PageUp', 3, 40), 0);
  assert.equal(chartKeyStep('PageDown', 3, 40), 13);
  assert.equal(chartKeyStep('Tab', 3, 4), null);
});
