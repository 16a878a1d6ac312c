import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgentLog } from './log.ts';

test('one line per event on the output, with time and level', () => {
  const written: string[] = [];
  const log = createAgentLog({ now: () => Date.UTC(2026, 0, 1, 12), write: (line) => written.push(line) });
  log.info('connected: the server knows this host as web-1');
  log.error('the server refused the token (401)');
  assert.deepEqual(written, [
    '2026-01-01T12:00:00.000Z info connected: the server knows this host as web-1\n',
    '2026-01-01T12:00:00.000Z error the server refused the token (401)\n',
  ]);
});

test('new lines go to the next log frame once; the last lines are kept', () => {
  let now = 1000;
  const log = createAgentLog({ now: () => now++, write: () => {}, keep: 3 });
  log.info('a');
  log.warn('b');
  assert.deepEqual(log.takeNew(), [
    { ts: 1000, level: 'info', text: 'a' },
    { ts: 1001, level: 'warn', text: 'b' },
  ]);
  assert.deepEqual(log.takeNew(), []);
  log.debug('c');
  log.info('d');
  log.info('e');
  log.info('f');
  // Only the last three are kept: of the four new lines, the oldest is gone.
  assert.deepEqual(
    log.takeNew().map((line) => line.text),
    ['d', 'e', 'f'],
  );
  assert.deepEqual(
    log.recent().map((line) => line.text),
    ['d', 'e', 'f'],
  );
});

test('a long line is cut to what a log frame carries', () => {
  const log = createAgentLog({ write: () => {} });
  log.info('x'.repeat(5000));
  const [line] = log.takeNew();
  assert.equal(line?.text.length, 2000);
  assert.ok(line?.text.endsWith('…'));
});
