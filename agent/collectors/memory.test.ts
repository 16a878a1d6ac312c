import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureRoot } from './fixtures/tree.ts';
import { parseMeminfo, readMemory } from './memory.ts';

const KB = 1024;

test('a modern kernel: used = MemTotal − MemAvailable, swap = SwapTotal − SwapFree', async () => {
  assert.deepEqual(await readMemory(fixtureRoot('modern')), {
    memory: { used: (16303480 - 9876540) * KB, total: 16303480 * KB },
    swap: { used: (2097148 - 1835004) * KB, total: 2097148 * KB },
  });
});

test('a kernel without MemAvailable: total − free − buffers − cached (SReclaimable not subtracted); no swap is null', async () => {
  assert.deepEqual(await readMemory(fixtureRoot('old-kernel')), {
    memory: { used: (2056668 - 123456 - 98765 - 876543) * KB, total: 2056668 * KB },
    swap: null,
  });
});

test('MemAvailable wins over the old formula when both could apply', () => {
  const text = 'MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\nBuffers: 100 kB\nCached: 300 kB\n';
  assert.deepEqual(parseMeminfo(text).memory, { used: 400 * KB, total: 1000 * KB });
});

test('a swap file of zero size is no swap; a missing or empty meminfo gives nulls', async () => {
  assert.equal(parseMeminfo('MemTotal: 1000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n').swap, null);
  assert.deepEqual(parseMeminfo(''), { memory: null, swap: null });
  assert.deepEqual(await readMemory('/nonexistent-host-root'), { memory: null, swap: null });
});
