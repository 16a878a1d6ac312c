import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock.ts';
import { RateLimiter } from './rate-limit.ts';

test('bursts of 10, then 1 per second, per key', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ burst: 10, perSecond: 1, clock });
  for (let i = 0; i < 10; i++) assert.deepEqual(limiter.take('a'), { ok: true });
  assert.deepEqual(limiter.take('a'), { ok: false, retryAfter: 1 });
  assert.deepEqual(limiter.take('b'), { ok: true }, 'another address has its own bucket');
  await clock.advance(1000);
  assert.deepEqual(limiter.take('a'), { ok: true });
  assert.equal(limiter.take('a').ok, false);
  await clock.advance(60_000);
  for (let i = 0; i < 10; i++) assert.equal(limiter.take('a').ok, true);
  assert.equal(limiter.take('a').ok, false);
});

test('the number of remembered keys is bounded', () => {
  const limiter = new RateLimiter({ burst: 2, perSecond: 1, clock: new FakeClock(), maxKeys: 100 });
  for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
  assert.ok(limiter.size <= 100);
});
