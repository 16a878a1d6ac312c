import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GIVE_UP_AFTER_MS, nextAttempt } from './backoff.ts';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const made = Date.UTC(2026, 0, 1);

test('retries wait 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, then every 4 h', () => {
  const transient = { permanent: false };
  const waits = [];
  let now = made;
  for (let attempt = 1; attempt <= 12; attempt++) {
    const next = nextAttempt(transient, attempt, made, now);
    assert.ok(next.retry, `attempt ${attempt} is retried`);
    waits.push(next.at - now);
    now = next.at;
  }
  assert.deepEqual(waits, [
    10 * S,
    30 * S,
    MIN,
    5 * MIN,
    15 * MIN,
    30 * MIN,
    H,
    2 * H,
    4 * H,
    4 * H,
    4 * H,
    4 * H,
  ]);
});

test('no attempt later than a day after the row was made: it gives up instead', () => {
  // Attempt 13 fails at 23 h 51 min 40 s; 4 h later would be past the day.
  const at13 = made + 10 * S + 30 * S + MIN + 5 * MIN + 15 * MIN + 30 * MIN + H + 2 * H + 4 * H * 5;
  assert.equal(at13 - made, 85_900 * S);
  assert.deepEqual(nextAttempt({ permanent: false }, 13, made, at13), { retry: false, why: 'expired' });
  assert.deepEqual(nextAttempt({ permanent: false }, 13, made, made + GIVE_UP_AFTER_MS - 4 * H), {
    retry: true,
    at: made + GIVE_UP_AFTER_MS,
  });
});

test('a permanent error is not retried', () => {
  assert.deepEqual(nextAttempt({ permanent: true }, 1, made, made), { retry: false, why: 'permanent' });
  assert.deepEqual(nextAttempt({ permanent: true, retryAfterMs: 5000 }, 1, made, made), {
    retry: false,
    why: 'permanent',
  });
});

test("a receiver's Retry-After is honoured, from 10 s up to 4 h", () => {
  const at = (retryAfterMs: number, attempt = 1) => {
    const next = nextAttempt({ permanent: false, retryAfterMs }, attempt, made, made);
    assert.ok(next.retry);
    return next.at - made;
  };
  assert.equal(at(120 * S), 120 * S, 'later than the backoff');
  assert.equal(at(30 * S, 6), 30 * S, 'sooner than the backoff');
  assert.equal(at(0), 10 * S, 'never sooner than 10 s');
  assert.equal(at(48 * H), 4 * H, 'never later than 4 h');
});
