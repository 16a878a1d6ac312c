import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cause } from '../../../../protocol/incidents.ts';
import { durationText, scoreText, topCauseText } from './describe.ts';

test('an incident says how long it lasted or has lasted, and its first likely cause or none', () => {
  assert.equal(durationText({ startedAt: 0, resolvedAt: 5 * 60_000 }), '5 min');
  assert.equal(durationText({ startedAt: 0, resolvedAt: null }, 2 * 3_600_000), '2 h');
  const cause: Cause = {
    kind: 'deploy',
    title: 'deploy shop v2.4.0',
    score: 0.816,
    factors: [],
    evidence: [],
    counter: [],
    ref: { deploy: 1 },
  };
  assert.equal(topCauseText(cause), 'deploy shop v2.4.0 (82%)');
  assert.equal(topCauseText(null), 'No likely cause found');
  assert.equal(scoreText(0.1), '10%');
});
