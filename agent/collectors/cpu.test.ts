import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createCpuCollector, parseCpuTicks } from './cpu.ts';
import { copyOfFixture, fixtureRoot, scratchRoot } from './fixtures/tree.ts';

const copies: Array<{ remove: () => Promise<void> }> = [];
after(() => Promise.all(copies.map((c) => c.remove())));

/** A host root whose /proc/stat is written before each reading. */
async function host() {
  const copy = await scratchRoot();
  copies.push(copy);
  const cpu = createCpuCollector(copy.root);
  /** Writes the `cpu` line (user nice system idle iowait irq softirq steal guest guest_nice) and reads. */
  const readWith = async (line: string) => {
    await copy.write('/proc/stat', `cpu  ${line}\ncpu0 ${line}\nctxt 1\n`);
    return cpu.read();
  };
  return { cpu, readWith };
}

test('the first reading has nothing to compare with: null', async () => {
  assert.equal(await createCpuCollector(fixtureRoot('modern')).read(), null);
});

test('busy = total − idle − iowait − steal over the interval, guest not added', async () => {
  const copy = await copyOfFixture('modern');
  copies.push(copy);
  const cpu = createCpuCollector(copy.root);
  // The fixture's `cpu  10000 500 3000 80000 1000 100 200 300 4000 100`, then the next reading 2,000
  // ticks later: idle +1000, iowait +100, steal +50, so busy = 2000 − 1150 = 850 ticks (guest +500 and
  // guest_nice +10 are inside user and nice: adding them would give 1360 of 2510, 54.18%).
  assert.equal(await cpu.read(), null);
  await copy.write('/proc/stat', 'cpu  10600 520 3200 81000 1100 110 220 350 4500 110\nctxt 2\n');
  assert.equal(await cpu.read(), 42.5);
});

test('a host whose time goes to guests counts it once', async () => {
  const { readWith } = await host();
  await readWith('50000 0 5000 100000 0 0 0 0 45000 0');
  // user +8000 of which guest +8000, idle +2000: 80% busy (88.89% if guest were added on top of user).
  assert.equal(await readWith('58000 0 5000 102000 0 0 0 0 53000 0'), 80);
});

test('counters that went back give null for that interval, and the next one is measured from them', async () => {
  const { readWith } = await host();
  await readWith('10000 500 3000 80000 1000 100 200 300 0 0');
  assert.equal(await readWith('100 0 50 900 10 0 0 0 0 0'), null);
  // From the reset reading: total +1000, idle +750: 25% busy.
  assert.equal(await readWith('300 0 100 1650 10 0 0 0 0 0'), 25);
});

test('no tick between two readings gives null, never a division by zero', async () => {
  const { readWith } = await host();
  await readWith('100 0 50 900 10 0 0 0 0 0');
  assert.equal(await readWith('100 0 50 900 10 0 0 0 0 0'), null);
});

test('a column stepping back by a tick keeps the percent within 0 to 100', async () => {
  const { readWith } = await host();
  await readWith('100 0 0 900 50 0 0 0 0 0');
  // iowait −5 (tickless kernels do this), idle +100: busy cannot go below 0.
  assert.equal(await readWith('100 0 0 1000 45 0 0 0 0 0'), 0);
});

test('older kernels with fewer columns: the missing ones count as 0', async () => {
  // 2.6.32 (no guest_nice), as in the old-kernel fixture, and 2.6.10 (no steal, guest).
  assert.deepEqual(parseCpuTicks('cpu  400000 2000 100000 3000000 50000 1000 4000 0 0\n'), {
    total: 3557000,
    busy: 507000,
  });
  assert.deepEqual(parseCpuTicks('cpu  100 0 50 900 10 5 5\n'), { total: 1070, busy: 160 });
  assert.equal(parseCpuTicks('cpu0 1 2 3 4\n'), null);
  assert.equal(parseCpuTicks(''), null);
});

test('the old-kernel fixture reads through the same rule', async () => {
  const cpu = createCpuCollector(fixtureRoot('old-kernel'));
  assert.equal(await cpu.read(), null);
  assert.equal(await cpu.read(), null, 'the same counters again: no tick passed');
});

test('a missing /proc/stat gives null, never an error', async () => {
  const cpu = createCpuCollector('/nonexistent-host-root');
  assert.equal(await cpu.read(), null);
  assert.equal(await cpu.read(), null);
});
