import type { DatabaseSync } from 'node:sqlite';
import type { DiskSample, SampleFrame } from '../../protocol/agent.ts';
import type { HostSeries, ItemSeries } from '../../protocol/hosts.ts';
import { chooseStep, resolutions, round } from '../checks/rollups.ts';
import { all, int, mapper, nullable, real } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * Rollups of host samples (DESIGN rule 3): per host and minute, 10 minutes, hour and day, for each
 * metric the number of samples with a value, their sum and their maximum; the same for containers and
 * units (CPU and memory). Samples are not kept raw: a chart reads at most 400 steps of these, so a
 * year of a host reads about as many rows as an hour.
 */

/** The host metrics, in the order of `host_rollups`' columns. */
export const HOST_METRICS = [
  'cpu',
  'memory',
  'swap',
  'disk',
  'diskRead',
  'diskWrite',
  'netRx',
  'netTx',
  'load1',
  'load5',
  'load15',
  'temperature',
] as const;
export type HostMetric = (typeof HOST_METRICS)[number];
/** One sample's value of each metric; null where the sample had none (no swap, first rate sample). */
export type HostMetrics = Record<HostMetric, number | null>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** Percent of `total`; null when it is no number (no total, or values past what a double holds). */
const percentOf = (used: number, total: number) => {
  const percent = (used / total) * 100;
  return total > 0 && Number.isFinite(percent) ? round(percent, 2) : null;
};

/** Whether `mount` is ignored by `ignoreMounts` (the mount itself; a prefix does not ignore what lies below). */
export const isIgnoredMount = (mount: string, ignoreMounts: readonly string[]) =>
  ignoreMounts.includes(mount);

/** The fullest filesystem not ignored (percent used), the one the disk chart and alert follow; null without one. */
export function fullestDisk(
  disks: readonly DiskSample[],
  ignoreMounts: readonly string[],
): { mount: string; percent: number } | null {
  let fullest: { mount: string; percent: number } | null = null;
  for (const d of disks) {
    if (isIgnoredMount(d.mount, ignoreMounts)) continue;
    const percent = percentOf(d.used, d.size);
    if (percent !== null && (fullest === null || percent > fullest.percent))
      fullest = { mount: d.mount, percent };
  }
  return fullest;
}

/**
 * A sample's metrics: memory, swap and disk as percent (disk: the fullest filesystem not ignored),
 * temperature the hottest sensor, rates in bytes per second.
 */
export function hostMetricsOf(sample: SampleFrame, ignoreMounts: readonly string[]): HostMetrics {
  const disk = fullestDisk(sample.disks, ignoreMounts)?.percent ?? null;
  let temperature: number | null = null;
  for (const t of sample.temperatures)
    if (temperature === null || t.celsius > temperature) temperature = t.celsius;
  return {
    cpu: sample.cpu,
    memory: sample.memory ? percentOf(sample.memory.used, sample.memory.total) : null,
    swap: sample.swap ? percentOf(sample.swap.used, sample.swap.total) : null,
    disk,
    diskRead: sample.diskIo?.readBps ?? null,
    diskWrite: sample.diskIo?.writeBps ?? null,
    netRx: sample.net?.rxBps ?? null,
    netTx: sample.net?.txBps ?? null,
    load1: sample.load?.[0] ?? null,
    load5: sample.load?.[1] ?? null,
    load15: sample.load?.[2] ?? null,
    temperature,
  };
}

/** `n`, `sum`, `max` upsert terms of one metric: null values leave the bucket's numbers as they are. */
const upsertTerms = (column: string) =>
  `${column}_n = ${column}_n + excluded.${column}_n, ${column}_sum = ${column}_sum + excluded.${column}_sum,
   ${column}_max = CASE WHEN excluded.${column}_max IS NULL THEN ${column}_max
     WHEN ${column}_max IS NULL OR excluded.${column}_max > ${column}_max THEN excluded.${column}_max
     ELSE ${column}_max END`;

const hostColumns = HOST_METRICS.map(snake);
const hostUpsertSql = `INSERT INTO host_rollups (host, res, bucket, ${hostColumns
  .map((c) => `${c}_n, ${c}_sum, ${c}_max`)
  .join(', ')}) VALUES (?, ?, ?, ${hostColumns.map(() => '?, ?, ?').join(', ')})
  ON CONFLICT(host, res, bucket) DO UPDATE SET ${hostColumns.map(upsertTerms).join(',\n')}`;

const itemUpsertSql = `INSERT INTO item_rollups (host, kind, name, res, bucket, cpu_n, cpu_sum, cpu_max,
    mem_n, mem_sum, mem_max) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(host, kind, name, res, bucket) DO UPDATE SET ${upsertTerms('cpu')}, ${upsertTerms('mem')}`;

/**
 * n, sum, max parameters of one value. A value that is no finite number counts as none: the frames'
 * schemas bound every value, and this keeps an Infinity or NaN out of the sums whatever comes.
 */
const termsOf = (v: number | null) => (v === null || !Number.isFinite(v) ? [0, 0, null] : [1, v, v]);

/** Adds one host sample to its minute, 10-minute, hour and day rollups. Runs inside a writer job. */
export function addHostSample(db: DatabaseSync, host: string, ts: number, metrics: HostMetrics): void {
  const stmt = statement(db, hostUpsertSql);
  const values = HOST_METRICS.flatMap((m) => termsOf(metrics[m]));
  for (const { res, ms } of resolutions) stmt.run(host, res, Math.floor(ts / ms) * ms, ...values);
}

/** Adds one sample of a container or unit (CPU percent of one CPU, memory bytes) to its rollups. */
export function addItemSample(
  db: DatabaseSync,
  host: string,
  kind: 'container' | 'unit',
  name: string,
  ts: number,
  cpu: number | null,
  mem: number | null,
): void {
  if (cpu === null && mem === null) return;
  const stmt = statement(db, itemUpsertSql);
  for (const { res, ms } of resolutions) {
    stmt.run(host, kind, name, res, Math.floor(ts / ms) * ms, ...termsOf(cpu), ...termsOf(mem));
  }
}

/** Deletes host, container and unit rollups past their resolution's retention. */
export function pruneHostRollups(db: DatabaseSync, now: number): void {
  const hosts = statement(db, 'DELETE FROM host_rollups WHERE res = ? AND bucket < ?');
  const items = statement(db, 'DELETE FROM item_rollups WHERE res = ? AND bucket < ?');
  for (const { res, keepMs } of resolutions) {
    hosts.run(res, now - keepMs);
    items.run(res, now - keepMs);
  }
}

type Steps = { x: number[]; start: number; stepMs: number; res: string };

function stepsOf(from: number, to: number, now: number): Steps {
  const step = chooseStep(from, to, now);
  const start = Math.floor(from / step.ms) * step.ms;
  const x: number[] = [];
  for (let t = start; t < to; t += step.ms) x.push(t);
  return { x, start, stepMs: step.ms, res: step.res };
}

/** Per-step accumulators of one metric: mean of the buckets' samples, and the largest maximum. */
class Column {
  readonly n: number[];
  readonly sum: number[];
  readonly max: (number | null)[];
  constructor(points: number) {
    this.n = new Array(points).fill(0);
    this.sum = new Array(points).fill(0);
    this.max = new Array(points).fill(null);
  }
  add(i: number, n: number, sum: number, max: number | null): void {
    if (n === 0) return;
    this.n[i]! += n;
    this.sum[i]! += sum;
    if (max !== null && (this.max[i] === null || max > this.max[i]!)) this.max[i] = max;
  }
  means(digits = 2): (number | null)[] {
    return this.n.map((n, i) => (n > 0 ? round(this.sum[i]! / n, digits) : null));
  }
  any(): boolean {
    return this.n.some((n) => n > 0);
  }
}

const hostRowColumns = Object.fromEntries(
  HOST_METRICS.flatMap((m) => [
    [`${m}N`, int],
    [`${m}Sum`, real],
    [`${m}Max`, nullable(real)],
  ]),
);
const hostSeriesRow = mapper({ bucket: int, ...hostRowColumns });

/** A host's series over [from, to): per-step means, and the CPU maximum. Swap and temperature are empty when the host never had them. */
export function readHostSeries(
  db: DatabaseSync,
  host: string,
  from: number,
  to: number,
  now: number,
): HostSeries {
  const s = stepsOf(from, to, now);
  const columns = Object.fromEntries(HOST_METRICS.map((m) => [m, new Column(s.x.length)])) as Record<
    HostMetric,
    Column
  >;
  const rows = all(
    db,
    `SELECT bucket, ${hostColumns.map((c) => `${c}_n, ${c}_sum, ${c}_max`).join(', ')} FROM host_rollups
      WHERE host = ? AND res = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
    hostSeriesRow,
    host,
    s.res,
    s.start,
    to,
  );
  for (const row of rows) {
    const i = Math.floor((row.bucket - s.start) / s.stepMs);
    const r = row as Record<string, number | null>;
    for (const m of HOST_METRICS)
      columns[m].add(i, r[`${m}N`] as number, r[`${m}Sum`] as number, r[`${m}Max`] ?? null);
  }
  const optional = (m: HostMetric) => (columns[m].any() ? columns[m].means() : []);
  return {
    x: s.x,
    stepMs: s.stepMs,
    cpu: columns.cpu.means(),
    cpuMax: columns.cpu.max,
    memory: columns.memory.means(),
    swap: optional('swap'),
    disk: columns.disk.means(),
    diskRead: columns.diskRead.means(0),
    diskWrite: columns.diskWrite.means(0),
    netRx: columns.netRx.means(0),
    netTx: columns.netTx.means(0),
    load1: columns.load1.means(),
    load5: columns.load5.means(),
    load15: columns.load15.means(),
    temperature: optional('temperature'),
  };
}

const itemSeriesRow = mapper({
  bucket: int,
  cpuN: int,
  cpuSum: real,
  cpuMax: nullable(real),
  memN: int,
  memSum: real,
  memMax: nullable(real),
});

/** A container's or unit's series over [from, to): CPU percent of one CPU and memory bytes, mean and maximum; null where it did not run. */
export function readItemSeries(
  db: DatabaseSync,
  host: string,
  kind: 'container' | 'unit',
  name: string,
  from: number,
  to: number,
  now: number,
): ItemSeries {
  const s = stepsOf(from, to, now);
  const cpu = new Column(s.x.length);
  const mem = new Column(s.x.length);
  const rows = all(
    db,
    `SELECT bucket, cpu_n, cpu_sum, cpu_max, mem_n, mem_sum, mem_max FROM item_rollups
      WHERE host = ? AND kind = ? AND name = ? AND res = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
    itemSeriesRow,
    host,
    kind,
    name,
    s.res,
    s.start,
    to,
  );
  for (const row of rows) {
    const i = Math.floor((row.bucket - s.start) / s.stepMs);
    cpu.add(i, row.cpuN, row.cpuSum, row.cpuMax);
    mem.add(i, row.memN, row.memSum, row.memMax);
  }
  return { x: s.x, stepMs: s.stepMs, cpu: cpu.means(), cpuMax: cpu.max, mem: mem.means(0), memMax: mem.max };
}
