import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureRoot } from './fixtures/tree.ts';
import { parseLoadavg, readLoad } from './load.ts';

test('load average over 1, 5 and 15 minutes from /proc/loadavg', async () => {
  assert.deepEqual(await readLoad(fixtureRoot('modern')), [0.52, 0.58, 0.59]);
  assert.deepEqual(await readLoad(fixtureRoot('old-kernel')), [0, 0.01, 0.05]);
});

test('an unreadable or malformed loadavg gives null', async () => {
  assert.equal(await readLoad('/nonexistent-host-root'), null);
  assert.equal(parseLoadavg('0.52 0.58\n'), null);
  assert.equal(parseLoadavg('a b c 1/2 3\n'), null);
});
