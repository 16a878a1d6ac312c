import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripBackground, stripData, stripText } from './strip.ts';

test('a strip is one band of colour per slot, in order, with the worst status of each', () => {
  const background = stripBackground(['up', null, 'down', 'degraded']);
  const bands = background.slice(background.indexOf('linear-gradient(to right, var'));
  assert.equal(
    bands,
    'linear-gradient(to right, var(--up) 0.000% 25.000%, var(--surface-2) 25.000% 50.000%, var(--down) 50.000% 75.000%, var(--degraded) 75.000% 100.000%)',
  );
  assert.match(background, /^repeating-linear-gradient\(.*calc\(100% \/ 4 - 1px\)/);
  assert.equal(stripBackground([]), 'var(--surface-2)');
});

test('a strip says what it shows in words and as data', () => {
  assert.equal(stripText(['up', 'up', null, 'down'], 3_600_000), '4 × 1 h: 2 up, 1 down, 1 without runs');
  assert.equal(stripText([null, 'degraded'], 60_000), '2 × 1 min: 1 degraded, 1 without runs');
  assert.equal(stripData(['up', null, 'degraded']), 'up - degraded');
});
