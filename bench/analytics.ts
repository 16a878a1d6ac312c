import { fork } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import type { AnalyticsRead } from '../protocol/analytics.ts';
import { trackerScript } from '../server/analytics/tracker.ts';
import { publicId, randomSecret, sha256 } from '../server/auth/secrets.ts';
import { tokenPrefix } from '../server/auth/tokens.ts';
import { openStore } from '../server/store/db.ts';
import { int, scalar } from '../server/store/rows.ts';
import { statement } from '../server/store/statements.ts';
import { tempDir } from '../server/testing.ts';
import { processUsage } from './agent.ts';
import type { LoadMessage, LoadPlan, LoadReport, Phase, PhaseReport } from './analytics-load.ts';
import { quantile } from './analytics-visitors.ts';
import { profileCosts } from './cpu-profile.ts';
import type { Benchmark, BenchRow } from './main.ts';
import { startServerProcess } from './server-process.ts';

const RATE = Number(process.env.BENCH_ANALYTICS_RATE ?? 20_000);
const RAMP_MS = Number(process.env.BENCH_ANALYTICS_RAMP_MS ?? 10_000);
/** Length of the steady phase, and of the flood phase after it. */
const PHASE_MS = Number(process.env.BENCH_ANALYTICS_MS ?? 20_000);
const CONNECTIONS = Number(process.env.BENCH_ANALYTICS_CONNECTIONS ?? 2000);
const FLOOD_CONNECTIONS = Number(process.env.BENCH_ANALYTICS_FLOOD_CONNECTIONS ?? 4);
/** `1`: the server runs with --cpu-prof; the top costs are printed and shown as a row. */
const PROFILE = process.env.BENCH_ANALYTICS_PROFILE === '1';
/** Node flags for the server after those of `npm start`, to measure others (e.g. `--optimize-for-size`). */
const SERVER_FLAGS = (process.env.BENCH_ANALYTICS_FLAGS ?? '').split(' ').filter(Boolean);
const READ_EVERY_MS = 250;
const DOMAIN = 'shop.example';
const GOAL_RATE = 20_000;

type Usage = { at: number; cpuMs: number };

/**
 * Web analytics under load, against mon as its own process (server/main.ts, as `npm start` runs it)
 * behind a simulated reverse proxy (`trusted_proxies = ["127.0.0.1"]`, each visitor's address in
 * `X-Forwarded-For`): the size of the tracking script; tracker events from a load generator in
 * another process (bench/analytics-load.ts: 2 visitors for each event a second, each about one event
 * every 2 s, under the 2/s limit per address), ramping to 20,000 a second over 10 s, 20 s steady,
 * then 20 s more with one address flooding; the API read a few times a second meanwhile; the server's
 * CPU and memory from /proc; what was stored, from `/metrics` and the database once the server stopped.
 */
export const benchmark: Benchmark = {
  name: 'analytics',
  async run() {
    const rows: BenchRow[] = [await trackerSize()];
    const { dir, remove } = tempDir('mon-bench-analytics-');
    try {
      rows.push(...(await underLoad(dir)));
    } finally {
      remove();
    }
    return rows;
  },
};

async function trackerSize(): Promise<BenchRow> {
  const name = 'analytics: tracker script, gzipped (level 9)';
  try {
    const bytes = gzipSync(await trackerScript(), { level: 9 }).length;
    return { name, value: `${bytes.toLocaleString('en')} bytes`, goal: '<= 2,048 bytes', ok: bytes <= 2048 };
  } catch (error) {
    return { name, value: `failed: ${(error as Error).message}`, goal: '<= 2,048 bytes', ok: false };
  }
}

async function underLoad(dir: string): Promise<BenchRow[]> {
  const dataDir = join(dir, 'data');
  const profileDir = join(dir, 'profile');
  const token = await prepare(dataDir);
  const server = await startServerProcess({
    dataDir,
    nodeFlags: [...SERVER_FLAGS, ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
  });
  const auth = { authorization: `Bearer ${token}` };
  let phase: Phase = 'ramp';
  const reads = startReads(server.base, auth, () => phase);
  const usage: Partial<Record<Phase | 'end', Usage>> = {};
  const sample = (): Usage => ({
    at: performance.now(),
    cpuMs: processUsage(server.pid)?.cpuMs ?? Number.NaN,
  });
  try {
    const report = await runLoad(
      {
        host: server.host,
        port: server.port,
        domain: DOMAIN,
        rate: RATE,
        rampMs: RAMP_MS,
        steadyMs: PHASE_MS,
        floodMs: PHASE_MS,
        connections: CONNECTIONS,
        floodConnections: FLOOD_CONNECTIONS,
        visitors: RATE * 2,
      },
      (next) => {
        phase = next;
        usage[next] = sample();
      },
    );
    usage.end = sample();
    reads.stop();
    const peakRssKb = processUsage(server.pid)?.hwmKb ?? Number.NaN;
    const metrics = await (await fetch(`${server.base}/metrics`, { headers: auth })).text();
    const finalRead = await fetch(`${server.base}/api/v1/analytics?site=${DOMAIN}&range=24h`, {
      headers: auth,
    });
    const viewsRead = finalRead.ok ? ((await finalRead.json()) as AnalyticsRead).totals.views : null;
    await server.stop();
    const rows = loadRows(report, reads, {
      accepted: counter(metrics, 'mon_ingest_accepted_total{endpoint="tracker"}'),
      rejected: rejectedByReason(metrics),
      viewsInDatabase: storedViews(dataDir),
      viewsRead,
    });
    const cpu = (from: Usage, to: Usage) => ((to.cpuMs - from.cpuMs) / (to.at - from.at)) * 100;
    const steady = report.phases.find((p) => p.phase === 'steady')!;
    // CPU time per stored event holds on a busy machine too, where the rate reached says little.
    const usPerEvent = ((usage.flood!.cpuMs - usage.steady!.cpuMs) * 1000) / (steady.statuses['204'] ?? 0);
    rows.push({
      name: 'analytics: server process (CPU % of one core)',
      value: `steady ${cpu(usage.steady!, usage.flood!).toFixed(0)}% (${Number.isFinite(usPerEvent) ? `${usPerEvent.toFixed(0)} µs a stored event: ${Math.floor(1e6 / usPerEvent).toLocaleString('en')}/s a core` : 'nothing stored'}), flood ${cpu(usage.flood!, usage.end).toFixed(0)}%, peak RSS ${(peakRssKb / 1024).toFixed(0)} MB; load generator ${report.cpuPercent.toFixed(0)}%; machine load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
      goal: '-',
      ok: null,
    });
    // Profiled from the steady part on: the start-up and the ramp are left out.
    if (PROFILE) rows.push(profileRow(profileDir, usage.steady!.at - server.startedAt));
    return rows;
  } finally {
    reads.stop();
    await server.stop();
  }
}

/** Runs the load generator in its own process; `onPhase` hears each phase as it begins. */
export function runLoad(plan: LoadPlan, onPhase: (phase: Phase) => void): Promise<LoadReport> {
  const load = fork(join(import.meta.dirname, 'analytics-load.ts'), [JSON.stringify(plan)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<LoadReport>((resolve, reject) => {
    load.on('message', (message: LoadMessage) => {
      if ('phase' in message) onPhase(message.phase);
      else resolve(message.report);
    });
    load.once('exit', (code) => reject(new Error(`the load generator exited (${code}) without a report`)));
  });
}

/** The two analytics reads in turn, every READ_EVERY_MS once the ramp is over. */
function startReads(base: string, headers: Record<string, string>, phase: () => Phase) {
  const reads = new ReadTimes();
  const timer = setInterval(() => {
    if (phase() === 'ramp') return;
    const which = reads.turn++ % 2 === 0 ? 'analytics' : 'pages';
    const path = which === 'analytics' ? `?site=${DOMAIN}&range=24h` : `/pages?site=${DOMAIN}&search=a`;
    const t0 = performance.now();
    fetch(`${base}/api/v1/analytics${path}`, { headers })
      .then(async (res) => {
        await res.arrayBuffer();
        reads.add(which, res.status, performance.now() - t0);
      })
      .catch(() => reads.add(which, 0, 0));
  }, READ_EVERY_MS);
  return Object.assign(reads, { stop: () => clearInterval(timer) });
}

/** The data directory: a mon.toml with the site behind a trusted proxy, and a read token (returned). */
async function prepare(dataDir: string): Promise<string> {
  const store = openStore(join(dataDir, 'mon.db'));
  const token = tokenPrefix + randomSecret();
  await store.writer.run((db) => {
    statement(db, 'INSERT INTO tokens (id, hash, scope, label, created_at) VALUES (?, ?, ?, ?, ?)').run(
      publicId(),
      sha256(token),
      'read',
      'bench',
      Date.now(),
    );
  });
  await store.close();
  writeFileSync(
    join(dataDir, 'mon.toml'),
    `trusted_proxies = ["127.0.0.1"]\n\n[[service]]\nname = "shop"\nsites = ["${DOMAIN}"]\n`,
  );
  return token;
}

/** Page views in the hourly rollups, read once the server has stopped. */
function storedViews(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, 'mon.db'), { readOnly: true });
  try {
    return scalar(
      db,
      "SELECT coalesce(sum(views), 0) FROM analytics_totals WHERE site = ? AND res = 'h'",
      int,
      DOMAIN,
    );
  } finally {
    db.close();
  }
}

/** A sample's value in Prometheus text, by its name and labels as written; NaN when absent. */
function counter(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : Number.NaN;
}

function rejectedByReason(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [, reason, n] of text.matchAll(/^mon_ingest_rejected_total\{reason="(\w+)"\} (\d+)/gm))
    if (Number(n) > 0) out[reason!] = Number(n);
  return out;
}

/** API answer times by read, from the end of the ramp on. */
class ReadTimes {
  turn = 0;
  readonly ms: Record<'analytics' | 'pages', number[]> = { analytics: [], pages: [] };
  failed = 0;
  add(which: 'analytics' | 'pages', status: number, ms: number): void {
    if (status === 200) this.ms[which].push(ms);
    else this.failed++;
  }
}

const ms = (n: number | null) => (n === null ? '-' : `${n.toFixed(1)} ms`);
const perSecond = (n: number, phaseMs: number) => Math.round(n / (phaseMs / 1000));

function loadRows(
  report: LoadReport,
  reads: ReadTimes,
  server: {
    accepted: number;
    rejected: Record<string, number>;
    viewsInDatabase: number;
    /** `totals.views` of the analytics read over 24 h once the load is over; null when it failed. */
    viewsRead: number | null;
  },
): BenchRow[] {
  const byPhase = Object.fromEntries(report.phases.map((p) => [p.phase, p])) as Record<Phase, PhaseReport>;
  const { steady, flood } = byPhase;
  const ok = (p: PhaseReport) => p.statuses['204'] ?? 0;
  const others = (p: PhaseReport) =>
    Object.entries(p.statuses)
      .filter(([status]) => status !== '204')
      .reduce((sum, [, n]) => sum + n, 0);
  const acknowledged = report.phases.reduce((sum, p) => sum + ok(p), 0) + (report.flood.statuses['204'] ?? 0);
  const steadyRate = perSecond(ok(steady), steady.ms);
  const floodRate = perSecond(ok(flood), flood.ms);
  const floodSeconds = flood.ms / 1000;
  const floodAccepted = report.flood.statuses['204'] ?? 0;
  const floodLimited = report.flood.statuses['429'] ?? 0;
  // The limit lets a new address send 30 at once, then 2 a second.
  const floodAllowed = 30 + 2 * Math.ceil(floodSeconds);
  const analytics = reads.ms.analytics.toSorted((a, b) => a - b);
  const pages = reads.ms.pages.toSorted((a, b) => a - b);
  const analyticsP99 = quantile(analytics, 0.99);
  const pagesP99 = quantile(pages, 0.99);
  const statuses = (p: PhaseReport) => JSON.stringify(p.statuses);
  return [
    {
      name: `analytics: tracker events, ${RATE.toLocaleString('en')}/s offered (${RAMP_MS / 1000} s ramp, ${PHASE_MS / 1000} s steady)`,
      value: `${steadyRate.toLocaleString('en')}/s stored in the steady part (answers ${statuses(steady)}, ${steady.dropped} not sent: every connection busy)`,
      goal: `${GOAL_RATE.toLocaleString('en')}/s, all 204`,
      ok: steadyRate >= GOAL_RATE * 0.97 && others(steady) === 0 && steady.dropped === 0,
    },
    {
      name: 'analytics: acknowledged events stored',
      value: `${acknowledged} answered 204, accepted metric ${server.accepted}; ${report.viewsStored} views answered 204, ${server.viewsInDatabase} in analytics_totals, ${server.viewsRead ?? 'no'} in the read; rejected ${JSON.stringify(server.rejected)}`,
      goal: 'equal',
      ok:
        acknowledged === server.accepted &&
        report.viewsStored === server.viewsInDatabase &&
        report.viewsStored === server.viewsRead,
    },
    {
      name: 'analytics: event answered (stored), steady',
      value: `p50 ${ms(steady.p50)}, p99 ${ms(steady.p99)}, max ${ms(steady.max)}`,
      goal: '-',
      ok: null,
    },
    {
      name: 'analytics: API read latency meanwhile',
      value: `analytics 24h p50 ${ms(quantile(analytics, 0.5))} p99 ${ms(analyticsP99)}; pages?search=a p50 ${ms(quantile(pages, 0.5))} p99 ${ms(pagesP99)} (${reads.ms.analytics.length + reads.ms.pages.length} reads, ${reads.failed} failed)`,
      goal: 'p99 < 100 ms',
      // No read answered is a failure too.
      ok:
        analyticsP99 !== null &&
        analyticsP99 < 100 &&
        pagesP99 !== null &&
        pagesP99 < 100 &&
        reads.failed === 0,
    },
    {
      name: `analytics: one address flooding (${FLOOD_CONNECTIONS} connections, ${floodSeconds} s)`,
      value: `${report.flood.sent.toLocaleString('en')} sent (${perSecond(report.flood.sent, flood.ms).toLocaleString('en')}/s): ${floodAccepted} stored, ${floodLimited} answered 429 (${report.flood.withoutRetryAfter} without Retry-After), others ${JSON.stringify(report.flood.statuses)}`,
      goal: `<= ${floodAllowed} stored, the rest 429`,
      ok:
        floodAccepted <= floodAllowed &&
        floodAccepted + floodLimited === report.flood.sent &&
        report.flood.withoutRetryAfter === 0,
    },
    {
      name: 'analytics: the other visitors during the flood',
      value: `${floodRate.toLocaleString('en')}/s stored (steady ${steadyRate.toLocaleString('en')}/s), answers ${statuses(flood)}; p50 ${ms(flood.p50)}, p99 ${ms(flood.p99)} (steady ${ms(steady.p99)})`,
      goal: 'as steady',
      ok:
        floodRate >= steadyRate * 0.97 &&
        others(flood) === 0 &&
        flood.p99 !== null &&
        steady.p99 !== null &&
        flood.p99 <= steady.p99 * 1.5 + 10,
    },
  ];
}

function profileRow(dir: string, fromMs: number): BenchRow {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file)
    return { name: 'analytics: server CPU profile', value: 'no profile written', goal: '-', ok: null };
  const costs = profileCosts(join(dir, file), join(import.meta.dirname, '..'), fromMs);
  const top = (list: { name: string; percent: number }[], n: number) =>
    list.slice(0, n).map((c) => `${c.name} ${c.percent.toFixed(1)}%`);
  process.stderr.write(
    `server CPU profile, self time of the busy time:\n  by area:\n    ${top(costs.areas, 15).join('\n    ')}\n  by function:\n    ${top(costs.functions, 25).join('\n    ')}\n`,
  );
  return {
    name: 'analytics: server CPU by area (self time)',
    value: top(costs.areas, 6).join(', '),
    goal: '-',
    ok: null,
  };
}
