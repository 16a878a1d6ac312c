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

test('a full map frees a tenth at once, the least recently used, so that new keys do not each scan it', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ burst: 2, perSecond: 1, clock, maxKeys: 100 });
  limiter.take('k0');
  await clock.advance(1000);
  // k0 is full again; k1 to k99 have a token left.
  for (let i = 1; i < 100; i++) limiter.take(`k${i}`);
  assert.equal(limiter.size, 100);
  limiter.take('new');
  assert.equal(limiter.size, 91, 'a tenth freed, not only the one bucket full again');
  assert.deepEqual(limiter.take('k99'), { ok: true }, 'the most recent keep their buckets');
  assert.equal(limiter.take('k99').ok, false);
  assert.deepEqual(limiter.take('k1'), { ok: true }, 'the least recent start over');
  assert.deepEqual(limiter.take('k1'), { ok: true });
});

test('a key in use keeps its bucket when the map is full: it moves to the recent end, at most once a second', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ burst: 2, perSecond: 0.001, clock, maxKeys: 100 });
  limiter.take('busy');
  limiter.take('busy');
  for (let i = 1; i < 50; i++) limiter.take(`k${i}`);
  await clock.advance(1000);
  assert.equal(limiter.take('busy').ok, false);
  for (let i = 50; i < 100; i++) limiter.take(`k${i}`);
  // Full: a tenth goes, the least recently used (k1 to k10), not the busy key used a second later.
  limiter.take('new');
  assert.equal(limiter.size, 91);
  assert.equal(limiter.take('busy').ok, false, 'still empty: a new bucket would be full');
  assert.deepEqual(limiter.take('k1'), { ok: true });
  assert.deepEqual(limiter.take('k1'), { ok: true }, 'k1 started over with a full bucket');
});

test('check says whether a key has a token without taking it', async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ burst: 2, perSecond: 0.5, clock });
  assert.deepEqual(limiter.check('a'), { ok: true }, 'an unknown key has a full bucket');
  assert.equal(limiter.size, 0, 'and is not remembered');
  limiter.take('a');
  limiter.take('a');
  assert.deepEqual(limiter.check('a'), { ok: false, retryAfter: 2 });
  assert.deepEqual(limiter.check('a'), { ok: false, retryAfter: 2 }, 'checking takes nothing');
  await clock.advance(2000);
  assert.deepEqual(limiter.check('a'), { ok: true });
  assert.deepEqual(limiter.take('a'), { ok: true });
  assert.equal(limiter.check('a').ok, false);
});
