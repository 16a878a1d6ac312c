import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLiveKey, type LiveEvent, liveKeys } from './live.ts';

test('live keys are built as the stream sends them', () => {
  const event: LiveEvent = {
    invalidate: [liveKeys.service('web'), liveKeys.overview, liveKeys.incident('0123456789abcdef')],
  };
  assert.equal(
    JSON.stringify(event),
    '{"invalidate":["service:web","overview","incident:0123456789abcdef"]}',
  );
  assert.deepEqual(
    [liveKeys.all, liveKeys.incidents, liveKeys.drafts, liveKeys.analytics, liveKeys.service('a:b c')],
    ['*', 'incidents', 'drafts', 'analytics', 'service:a:b c'],
  );
});

test('only keys of this version are read from the stream', () => {
  for (const key of [
    '*',
    'overview',
    'incidents',
    'drafts',
    'analytics',
    'service:web',
    'incident:1',
    'service:a b',
  ]) {
    assert.equal(isLiveKey(key), true, key);
  }
  for (const value of ['', 'service:', 'incident:', 'services', 'host:web', 'Overview', 1, null, ['*']]) {
    assert.equal(isLiveKey(value), false, JSON.stringify(value));
  }
});
