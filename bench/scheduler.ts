import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { CheckEngine } from '../server/checks/engine.ts';
import { newId, newRecord } from '../server/checks/manage.ts';
import { ensureService, insertCheck } from '../server/checks/store.ts';
import { systemClock } from '../server/clock.ts';
import { staticConfig } from '../server/config/service.ts';
import type { Deps } from '../server/deps.ts';
import { DomainEvents } from '../server/events.ts';
import { Bus } from '../server/live/bus.ts';
import { silentLog } from '../server/log.ts';
import { createMetrics } from '../server/metrics.ts';
import { openStore } from '../server/store/db.ts';
import type { Benchmark } from './main.ts';

const CHECKS = Number(process.env.BENCH_SCHEDULER_CHECKS ?? 30_000);
const EVERY_MS = 10_000;

/**
 * The scheduler under load: 30,000 HTTP checks every 10 s against a loopback server in a child process
 * (so this process's CPU is the engine's), real clock, real runner, real storage. `npm run bench` runs
 * with the server's V8 flags (see server/main.ts).
 */
export const benchmark: Benchmark = {
  name: 'scheduler',
  async run() {
    const seconds = Number(process.env.BENCH_SCHEDULER_SECONDS ?? 30);
    const target = fork(join(import.meta.dirname, 'loopback-target.ts'), [], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve) => target.once('message', (m) => resolve(m as number)));
    const dir = mkdtempSync(join(tmpdir(), 'mon-bench-'));
    const remove = () => rmSync(dir, { recursive: true, force: true });
    const metrics = createMetrics();
    const store = openStore(join(dir, 'mon.db'), { onCommit: () => metrics.writerCommits.inc() });
    const deps: Deps = {
      store,
      clock: systemClock,
      bus: new Bus(),
      events: new DomainEvents(),
      metrics,
      config: staticConfig(),
      log: silentLog,
      env: {},
      dataDir: dir,
    };
    const now = Date.now();
    await store.writer.run((db) => {
      ensureService(db, 'bench', now);
      for (let i = 0; i < CHECKS; i++) {
        const body = {
          name: `check ${i}`,
          service: 'bench',
          kind: 'http' as const,
          target: `http://127.0.0.1:${port}/${i}`,
          everyMs: EVERY_MS,
        };
        insertCheck(db, newRecord(newId(), body, now, false, null));
      }
    });

    let measuring = false;
    const lateness: number[] = [];
    const engine = new CheckEngine(deps, { onStart: (_id, ms) => measuring && lateness.push(ms) });
    const runsTotal = async () => (await metrics.checkRuns.get()).values.reduce((sum, v) => sum + v.value, 0);
    const rssBefore = process.memoryUsage().rss;
    if (process.env.BENCH_DEBUG) console.error('before start', process.memoryUsage());
    await engine.start();
    // Warm up one interval so every check is on its spread schedule, then measure.
    await sleep(EVERY_MS);
    measuring = true;
    if (process.env.BENCH_DEBUG) console.error('after warmup', process.memoryUsage());
    const runs0 = await runsTotal();
    const commits = async () => (await metrics.writerCommits.get()).values[0]?.value ?? 0;
    const commits0 = await commits();
    const cpu0 = process.cpuUsage();
    const loop0 = perf.eventLoopUtilization();
    const t0 = performance.now();
    let rss = 0;
    let heap = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      rss = Math.max(rss, m.rss);
      heap = Math.max(heap, m.heapUsed);
    }, 500);
    await sleep(seconds * 1000);
    clearInterval(sampler);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const loop = perf.eventLoopUtilization(loop0).utilization;
    const runs = (await runsTotal()) - runs0;
    const commitRate = ((await commits()) - commits0) / elapsed;
    const statuses = (await metrics.checkRuns.get()).values
      .map((v) => `${v.labels.status}=${v.value}`)
      .join(' ');
    await engine.stop();
    await store.close();
    target.kill();
    remove();

    lateness.sort((a, b) => a - b);
    const p99 = lateness[Math.floor(lateness.length * 0.99)] ?? 0;
    const rate = runs / elapsed;
    const cpuPercent = ((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100;
    const rssMb = rss / 1024 / 1024;
    return [
      {
        name: `scheduler runs/s (${CHECKS.toLocaleString('en')} http checks every 10 s)`,
        value: Math.round(rate).toLocaleString('en'),
        goal: `>= ${(CHECKS / 10).toLocaleString('en')} (held)`,
        ok: rate >= (CHECKS / 10) * 0.95,
      },
      {
        name: 'scheduler writer commits/s (group commit)',
        value: Math.round(commitRate).toLocaleString('en'),
        goal: '< runs/s / 10',
        ok: commitRate < rate / 10,
      },
      {
        name: 'scheduler p99 start lateness',
        value: `${p99.toFixed(0)} ms`,
        goal: '< 1000 ms',
        ok: p99 < 1000,
      },
      {
        name: 'scheduler server RSS (peak over the measured run)',
        value: `${rssMb.toFixed(0)} MB`,
        goal: '< 300 MB',
        ok: rssMb < 300,
      },
      {
        // How busy the one thread that runs checks, writes and requests is: near 100 % it falls behind.
        name: 'scheduler event loop busy',
        value: `${(loop * 100).toFixed(0)} %`,
        goal: '< 80 %',
        ok: loop < 0.8,
      },
      {
        // Process CPU, V8's garbage collection threads included.
        name: 'scheduler server CPU',
        value: `${cpuPercent.toFixed(0)} % of one core`,
        goal: `< ${Math.ceil(CHECKS / 10_000) * 40} % (40 % per 10,000 checks)`,
        ok: cpuPercent < Math.ceil(CHECKS / 10_000) * 40,
      },
      {
        name: 'scheduler server RSS before the engine starts',
        value: `${(rssBefore / 1024 / 1024).toFixed(0)} MB`,
        goal: '',
        ok: null,
      },
      {
        name: 'scheduler V8 flags (as npm start)',
        value:
          process.execArgv.filter((a) => a.startsWith('--') && !a.startsWith('--test')).join(' ') || 'none',
        goal: '',
        ok: null,
      },
      {
        name: 'scheduler JS heap used (peak)',
        value: `${(heap / 1024 / 1024).toFixed(0)} MB`,
        goal: '',
        ok: null,
      },
      { name: 'scheduler run results', value: statuses, goal: '', ok: null },
    ];
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
