import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, systemClock } from './clock.ts';

test('a delay beyond 2^31-1 ms does not fire at once (Node would clamp it to 1 ms)', async () => {
  let fired = false;
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  const handle = systemClock.setTimeout(() => {
    fired = true;
  }, 40 * 86_400_000);
  await new Promise((r) => setTimeout(r, 50));
  systemClock.clearTimeout(handle);
  process.off('warning', onWarning);
  assert.equal(fired, false);
  assert.deepEqual(warnings, []);
});

test('system timers fire and can be cleared', async () => {
  let count = 0;
  systemClock.setTimeout(() => count++, 5);
  const cleared = systemClock.setTimeout(() => count++, 5);
  systemClock.clearTimeout(cleared);
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(count, 1);
});

test('the fake clock fires timers in time order as it advances', async () => {
  const clock = new FakeClock(0);
  const seen: number[] = [];
  clock.setTimeout(() => seen.push(clock.now()), 300);
  clock.setTimeout(() => seen.push(clock.now()), 100);
  await clock.advance(200);
  assert.deepEqual(seen, [100]);
  await clock.advance(200);
  assert.deepEqual(seen, [100, 300]);
  assert.equal(clock.now(), 400);
});

test('a jump of the fake clock fires each timer it passed once, in time order, at the new time', async () => {
  const clock = new FakeClock(0);
  const seen: number[] = [];
  const every = () => {
    seen.push(clock.now());
    clock.setTimeout(every, 60_000);
  };
  clock.setTimeout(every, 60_000);
  clock.setTimeout(() => seen.push(-clock.now()), 30_000);
  await clock.jump(30 * 86_400_000);
  assert.deepEqual(seen, [-30 * 86_400_000, 30 * 86_400_000], 'once each, not 43,200 times');
  assert.equal(clock.now(), 30 * 86_400_000);
  await clock.advance(60_000);
  assert.deepEqual(seen.at(-1), 30 * 86_400_000 + 60_000);
});
