import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncidentHost } from '../../../../protocol/hosts.ts';
import { hostNames, hostViews, logLine, peak } from './hosts.ts';

const view: IncidentHost = {
  name: 'web-1',
  x: [0, 60_000],
  stepMs: 60_000,
  cpu: [10, null],
  memory: [50, 55],
  containers: [],
  units: [],
  logs: [{ ts: 0, level: 'warn', text: '<b>disk</b> slow' }],
};

test("an incident's hosts read the same whether named (lists) or shown (one incident)", () => {
  assert.deepEqual(hostNames(['web-1', 'db-1']), ['web-1', 'db-1']);
  assert.deepEqual(hostViews(['web-1']), []);
  assert.deepEqual(hostNames([view]), ['web-1']);
  assert.deepEqual(hostViews([view]), [view]);
  assert.deepEqual(hostViews(undefined), []);
});

test('the peak of a series skips steps without a value; a log line is time, level and text as sent', () => {
  assert.equal(peak([null, 3, 7, null, 5]), 7);
  assert.equal(peak([null]), null);
  assert.equal(
    logLine(view.logs[0]!, () => '09:00'),
    '09:00  WARN   <b>disk</b> slow',
  );
});
