import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { newHostToken, putHostToken } from '../server/hosts/store.ts';
import { statement } from '../server/store/statements.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';
import { readerServer } from './reader-server.ts';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 2000);
const DURATION_MS = Number(process.env.BENCH_HOSTS_MS ?? 75_000);
const READ_EVERY_MS = 100;
/** Hosts among them that are CI runners (agent-sim.ts), each holding a day of gone items. */
const CI_HOSTS = Number(process.env.BENCH_CI_HOSTS ?? 10);
/** A day of a CI runner's gone items: 2 containers and a transient unit each 15 s, kept a day once gone. */
const GONE_PER_CI_HOST = (86_400_000 / 15_000) * 3;

type Answers = { sent: number; stored: number; statuses: Record<string, number>; p50: number; p99: number };
type SimReport = Answers & { ci: Answers; seconds: number; polls: { answered: number; failed: number } };

/** The items a CI runner's day left gone (kept a day): what each of its samples must not read. */
function seedGoneItems(db: DatabaseSync, host: string, now: number): void {
  statement(
    db,
    `WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k + 1 < ?1)
     INSERT INTO host_items (host, kind, name, id, state, first_seen, updated_at, gone_at)
     SELECT ?2, iif(k % 3 = 2, 'unit', 'container'), iif(k % 3 = 2, 'run-r' || k || '.service', 'runner-' || k || '-build'),
       lower(hex(randomblob(8))), 'running', ?3 - k * 5000 - 300000, ?3 - k * 5000 - 300000, ?3 - k * 5000
     FROM n`,
  ).run(GONE_PER_CI_HOST, host, now);
}

/**
 * 2,000 agents at 15 s against one server on real loopback HTTP: each posts a gzipped sample (5
 * containers, 10 units, a log line) every 15 s and holds a long poll open, from a child process; 10
 * of them are CI runners, with new containers and units at each sample and a day of gone ones. While
 * they run, the API is read ten times a second (a host page over 24 h, alternating with the overview)
 * and its latency measured from the first full round on. The server's CPU and memory over the run.
 */
export const benchmark: Benchmark = {
  name: 'hosts',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const server = await readerServer(dir);
    const tokens: string[] = [];
    await server.deps.store.writer.run((db) => {
      for (let i = 0; i < AGENTS; i++) {
        const { token, hash } = newHostToken();
        tokens.push(token);
        putHostToken(db, `host-${i}`, hash, Date.now(), 'admin');
        if (i < CI_HOSTS) seedGoneItems(db, `host-${i}`, Date.now());
      }
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';

    const sim = fork(
      join(import.meta.dirname, 'agent-sim.ts'),
      [base, tokens.join(','), String(DURATION_MS), String(CI_HOSTS)],
      {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    const report = new Promise<SimReport>((resolve) => sim.once('message', (m) => resolve(m as SimReport)));

    const began = Date.now();
    const cpuBefore = process.cpuUsage();
    let peakRss = process.memoryUsage().rss;
    const reads: { host: number[]; overview: number[]; failed: number } = {
      host: [],
      overview: [],
      failed: 0,
    };
    let n = 0;
    const reading = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const measured = Date.now() - began > 15_000;
      const which = n++ % 2 === 0 ? 'host' : 'overview';
      const path = which === 'host' ? `/api/v1/hosts/host-${n % AGENTS}?range=24h` : '/api/v1/overview';
      const t0 = performance.now();
      fetch(`${base}${path}`)
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) reads.failed++;
          else if (measured) reads[which].push(performance.now() - t0);
        })
        .catch(() => reads.failed++);
    }, READ_EVERY_MS);
    const sims = await report;
    clearInterval(reading);
    const cpu = process.cpuUsage(cpuBefore);
    const wall = Date.now() - began;
    await server.close();
    sim.kill();
    remove();

    const p = (list: number[], q: number) => {
      const s = [...list].sort((a, b) => a - b);
      return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
    };
    const hostP99 = p(reads.host, 0.99);
    const overviewP99 = p(reads.overview, 0.99);
    const expected = Math.floor((AGENTS * DURATION_MS) / 15_000);
    const cpuPercent = ((cpu.user + cpu.system) / 1000 / wall) * 100;
    return [
      {
        name: `hosts: ${AGENTS.toLocaleString('en')} agents at 15 s for ${Math.round(DURATION_MS / 1000)} s`,
        value: `${sims.stored} of ${sims.sent} batches stored (${(sims.stored / sims.seconds).toFixed(0)}/s), answers ${JSON.stringify(sims.statuses)}`,
        goal: `all ~${expected}, all 200`,
        ok: sims.stored === sims.sent && sims.sent >= expected * 0.95,
      },
      {
        name: 'hosts: frame batch answered (stored)',
        value: `p50 ${sims.p50.toFixed(1)} ms, p99 ${sims.p99.toFixed(1)} ms`,
        goal: '-',
        ok: null,
      },
      {
        name: `hosts: ${CI_HOSTS} CI runners' batches answered (${GONE_PER_CI_HOST.toLocaleString('en')} items gone each)`,
        value: `p50 ${sims.ci.p50.toFixed(1)} ms, p99 ${sims.ci.p99.toFixed(1)} ms (${sims.ci.stored} of ${sims.ci.sent} stored)`,
        goal: 'p50 < 150 ms',
        ok: sims.ci.stored === sims.ci.sent && sims.ci.p50 < 150,
      },
      {
        name: 'hosts: API p99 read latency meanwhile',
        value: `host page 24h ${hostP99.toFixed(1)} ms, overview ${overviewP99.toFixed(1)} ms (${reads.host.length + reads.overview.length} reads, ${reads.failed} failed)`,
        goal: '< 100 ms',
        ok: hostP99 < 100 && overviewP99 < 100 && reads.failed === 0,
      },
      {
        name: 'hosts: server process over the run',
        value: `CPU ${cpuPercent.toFixed(0)}% of one core, peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MB, polls answered ${sims.polls.answered}, failed ${sims.polls.failed}`,
        goal: '-',
        ok: null,
      },
    ];
  },
};
