import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartKeyStep, chartReading, chartSummary } from './chart-words.ts';
import { formatTime } from './format.ts';

const MIN = 60_000;
const x = [0, MIN, 2 * MIN, 3 * MIN].map((m) => Date.UTC(2026, 0, 1, 9) + m);
const data = {
  x,
  lines: [
    { label: 'mean', values: [10, null, 30, 20] },
    { label: 'max', values: [null, null, null, null] },
  ],
  format: (v: number) => `${v}%`,
};

test('a chart summary tells each line lowest, average and highest, and when the highest was', () => {
  assert.equal(
    chartSummary(data),
    `From ${formatTime(x[0]!)} to ${formatTime(x[3]!)}. mean: lowest 10%, average 20%, highest 30% at ${formatTime(x[2]!)}. max: nothing measured.`,
  );
  assert.equal(chartSummary({ ...data, x: [] }), 'Nothing measured in this range.');
});

test('a reading tells the values of one step, a gap in words', () => {
  assert.equal(chartReading(data, 1), `${formatTime(x[1]!)}: mean not measured, max not measured`);
  assert.equal(chartReading(data, 2), `${formatTime(x[2]!)}: mean 30%, max not measured`);
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
