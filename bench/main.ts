/**
 * `npm run bench`: runs every benchmark and prints one table. A benchmark module exports
 * `name` and `run()` returning rows; `goal` says what the row should meet and `ok` whether it did.
 */
export type BenchRow = { name: string; value: string; goal: string; ok: boolean | null };
export type Benchmark = { name: string; run: () => Promise<BenchRow[]> };

const modules: (() => Promise<{ benchmark: Benchmark }>)[] = [
  () => import('./writer.ts'),
  () => import('./scheduler.ts'),
  () => import('./overview.ts'),
  () => import('./panel.ts'),
  () => import('./incidents.ts'),
  () => import('./notify.ts'),
  () => import('./hosts.ts'),
  () => import('./hosts-list.ts'),
  () => import('./agent.ts'),
  () => import('./analytics-reads.ts'),
  () => import('./analytics-flood.ts'),
  () => import('./analytics.ts'),
  () => import('./http-floor.ts'),
  () => import('./json-depth.ts'),
];

const only = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const load of modules) {
  const { benchmark } = await load();
  if (only.length > 0 && !only.includes(benchmark.name)) continue;
  process.stderr.write(`running ${benchmark.name}...\n`);
  rows.push(...(await benchmark.run()));
}

const header = ['benchmark', 'value', 'goal', 'met'];
const table = [
  header,
  ...rows.map((r) => [r.name, r.value, r.goal, r.ok === null ? '-' : r.ok ? 'yes' : 'NO']),
];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const [i, row] of table.entries()) {
  console.log(`| ${row.map((cell, j) => cell.padEnd(widths[j]!)).join(' | ')} |`);
  if (i === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
}
