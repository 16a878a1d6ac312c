import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { SampleFrame } from '../../protocol/agent.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { migrate } from '../store/db.ts';
import {
  addHostSample,
  addItemSample,
  HOST_METRICS,
  type HostMetrics,
  hostMetricsOf,
  pruneHostRollups,
  readHostSeries,
  readItemSeries,
} from './rollups.ts';

function db(): DatabaseSync {
  const d = new DatabaseSync(':memory:');
  migrate(d);
  return d;
}

const GiB = 1024 ** 3;
const sample = (over: Partial<SampleFrame> = {}): SampleFrame => ({
  kind: 'sample',
  ts: 0,
  cpu: 40,
  memory: { used: 3 * GiB, total: 4 * GiB },
  swap: null,
  disks: [
    { mount: '/', device: '/dev/sda1', fstype: 'ext4', used: 50, size: 100 },
    { mount: '/boot', device: '/dev/sda2', fstype: 'ext4', used: 95, size: 100 },
    { mount: '/data', device: '/dev/sdb1', fstype: 'xfs', used: 70, size: 100 },
  ],
  diskIo: { readBps: 1000, writeBps: 2000 },
  net: null,
  load: [1, 0.5, 0.25],
  temperatures: [
    { sensor: 'coretemp Core 0', celsius: 51 },
    { sensor: 'nvme Composite', celsius: 63 },
  ],
  containers: null,
  units: null,
  ...over,
});

const metrics = (over: Partial<HostMetrics>): HostMetrics => ({
  ...(Object.fromEntries(HOST_METRICS.map((m) => [m, null])) as HostMetrics),
  ...over,
});

test('a sample gives memory and disk as percent, the fullest filesystem not ignored and the hottest sensor', () => {
  const m = hostMetricsOf(sample(), []);
  assert.equal(m.memory, 75);
  assert.equal(m.disk, 95);
  assert.equal(m.temperature, 63);
  assert.equal(m.swap, null);
  assert.equal(m.netRx, null);
  assert.deepEqual([m.load1, m.load5, m.load15], [1, 0.5, 0.25]);
  assert.equal(hostMetricsOf(sample(), ['/boot']).disk, 70);
  assert.equal(hostMetricsOf(sample({ disks: [], temperatures: [] }), []).disk, null);
});

test('a chart step is the mean of its samples, with the CPU maximum; metrics never seen are empty', () => {
  const d = db();
  const t0 = Date.UTC(2026, 10, 23, 12);
  // Four samples in one minute, the last without a CPU value.
  addHostSample(d, 'web-1', t0, metrics({ cpu: 10, memory: 50 }));
  addHostSample(d, 'web-1', t0 + 15_000, metrics({ cpu: 30, memory: 52 }));
  addHostSample(d, 'web-1', t0 + 30_000, metrics({ cpu: 80, memory: 54 }));
  addHostSample(d, 'web-1', t0 + 45_000, metrics({ cpu: null, memory: 56 }));
  addHostSample(d, 'web-2', t0, metrics({ cpu: 99 }));
  const s = readHostSeries(d, 'web-1', t0, t0 + HOUR, t0 + HOUR);
  assert.equal(s.stepMs, MINUTE);
  assert.equal(s.x.length, 60);
  assert.equal(s.cpu[0], 40);
  assert.equal(s.cpuMax[0], 80);
  assert.equal(s.memory[0], 53);
  assert.equal(s.cpu[1], null);
  assert.deepEqual(s.swap, []);
  assert.deepEqual(s.temperature, []);
  assert.equal(s.disk.length, 60);
});

test('a year reads day rollups: at most 400 points', () => {
  const d = db();
  const now = Date.UTC(2026, 10, 23);
  for (let day = 0; day < 365; day += 30)
    addHostSample(d, 'h', now - day * DAY - HOUR, metrics({ cpu: day % 100 }));
  const s = readHostSeries(d, 'h', now - 365 * DAY, now, now);
  assert.ok(s.x.length <= 400);
  assert.equal(s.stepMs, DAY);
  assert.equal(s.cpu.filter((v) => v !== null).length, 13);
});

test('container series: CPU and memory mean and maximum; steps it did not run are null', () => {
  const d = db();
  const t0 = Date.UTC(2026, 10, 23, 12);
  addItemSample(d, 'web-1', 'container', 'api', t0, 20, 100);
  addItemSample(d, 'web-1', 'container', 'api', t0 + 15_000, 60, 300);
  addItemSample(d, 'web-1', 'unit', 'api', t0, 5, 5);
  const s = readItemSeries(d, 'web-1', 'container', 'api', t0, t0 + HOUR, t0 + HOUR);
  assert.deepEqual([s.cpu[0], s.cpuMax[0], s.mem[0], s.memMax[0]], [40, 60, 200, 300]);
  assert.equal(s.cpu[1], null);
});

test('pruning drops minute rollups after two days and keeps the day ones', () => {
  const d = db();
  const t0 = Date.UTC(2026, 10, 1);
  addHostSample(d, 'h', t0, metrics({ cpu: 1 }));
  addItemSample(d, 'h', 'unit', 'x', t0, 1, 1);
  pruneHostRollups(d, t0 + 3 * DAY);
  const left = d
    .prepare('SELECT res FROM host_rollups ORDER BY res')
    .all()
    .map((r) => r.res);
  assert.deepEqual(left, ['d', 'h', 't']);
  const items = d
    .prepare('SELECT res FROM item_rollups ORDER BY res')
    .all()
    .map((r) => r.res);
  assert.deepEqual(items, ['d', 'h', 't']);
});

test('a value that is no finite number never reaches the rollups, even past the schemas', () => {
  const d = db();
  const t0 = Date.UTC(2026, 10, 23, 12);
  // The schemas refuse these; the rollups keep them out all the same.
  const absurd = hostMetricsOf(sample({ memory: { used: 1e308, total: 1e-308 } }), []);
  assert.equal(absurd.memory, null, 'a percent past what a double holds is none');
  addHostSample(d, 'web-1', t0, { ...absurd, cpu: Number.POSITIVE_INFINITY, load1: Number.NaN });
  addHostSample(d, 'web-1', t0 + 15_000, metrics({ cpu: 20, memory: 50, load1: 1 }));
  addItemSample(d, 'web-1', 'container', 'api', t0, Number.POSITIVE_INFINITY, 100);
  const sums = d
    .prepare("SELECT memory_sum, cpu_sum, load1_sum FROM host_rollups WHERE res = 'd'")
    .get() as Record<string, number>;
  assert.deepEqual({ ...sums }, { memory_sum: 50, cpu_sum: 20, load1_sum: 1 });
  const s = readHostSeries(d, 'web-1', t0 - 29 * DAY, t0 + DAY, t0 + DAY);
  assert.equal(s.memory.filter((v) => v !== null).length, 1, 'the 30-day chart has its memory');
  assert.equal(readItemSeries(d, 'web-1', 'container', 'api', t0, t0 + HOUR, t0 + HOUR).cpu[0], null);
});
