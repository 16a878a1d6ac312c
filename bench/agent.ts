import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAgent } from '../agent/build.ts';
import { startFakeHost } from '../agent/fixtures/fake-host.ts';
import { AGENT_ENV, AGENT_NODE_FLAGS } from '../server/hosts/install.ts';
import { newHostToken, putHostToken } from '../server/hosts/store.ts';
import { int, mapper, one } from '../server/store/rows.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';
import { readerServer } from './reader-server.ts';

const DURATION_MS = Number(process.env.BENCH_AGENT_MS ?? 180_000);
/** The Node that runs the agent: this one (the pinned Node 24), or e.g. /usr/bin/node to compare. */
const NODE = process.env.BENCH_AGENT_NODE || process.execPath;
/**
 * The Node flags the install commands give the agent; BENCH_AGENT_FLAGS replaces them to measure others.
 * Its environment is the installs' too (AGENT_ENV).
 */
const FLAGS =
  process.env.BENCH_AGENT_FLAGS === undefined
    ? [...AGENT_NODE_FLAGS]
    : process.env.BENCH_AGENT_FLAGS.split(' ').filter(Boolean);
/** Two samples at 15 s: what follows is the steady part. */
const WARM_UP_MS = 30_000;
/** /proc/<pid>/stat counts CPU in clock ticks of USER_HZ, 100 a second on Linux. */
const TICKS_PER_SECOND = 100;

const storedRow = mapper({ samples: int, cpu: int, containers: int, units: int, logLines: int });

/**
 * The agent's footprint: the real agent process (the one-file bundle, built from the current code, run
 * with the flags the install commands use) sampling every 15 s for 3 minutes against a real server on
 * loopback, on a host of 50 containers (the Engine API double) and 200 systemd units (the fixture
 * systemctl). Its memory and CPU are read from /proc/<pid>/status and /proc/<pid>/stat once a second:
 * peak RSS (VmHWM), mean RSS after the warm-up with its anonymous and file parts (where the memory
 * is: the agent's own, or the node binary's pages), CPU of the steady part as percent of one core, and the
 * CPU the start took (to the first stored sample). What the server stored shows the agent worked.
 */
export const benchmark: Benchmark = {
  name: 'agent',
  async run() {
    const m = await measureAgent({ durationMs: DURATION_MS, node: NODE, flags: FLAGS });
    const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
    const expected = Math.floor(DURATION_MS / 15_000);
    const env = Object.entries(AGENT_ENV).map(([name, value]) => `${name}=${value} `);
    const node = `${env.join('')}Node ${nodeVersion(NODE)}${FLAGS.length > 0 ? ` ${FLAGS.join(' ')}` : ''}`;
    const { stored } = m;
    return [
      {
        name: `agent: 50 containers, 200 units, at 15 s for ${Math.round(DURATION_MS / 1000)} s (${node})`,
        value: `server stored ${stored.samples} samples (${stored.cpu} with CPU), ${stored.containers} containers, ${stored.units} units, ${stored.logLines} log lines; agent warnings ${m.warnings}`,
        goal: `~${expected} samples, 50, 198`,
        ok:
          stored.samples >= expected - 1 &&
          stored.containers === 50 &&
          stored.units === 198 &&
          m.warnings === 0,
      },
      {
        name: 'agent: RSS',
        value:
          `peak ${mb(m.peakRssKb)}, mean ${mb(m.meanRssKb)} after the first ${WARM_UP_MS / 1000} s: ` +
          `anonymous ${mb(m.meanAnonKb)} (peak ${mb(m.peakAnonKb)}), files ${mb(m.meanFileKb)} (peak ${mb(m.peakFileKb)})`,
        goal: '< 50 MB',
        ok: m.peakRssKb < 50 * 1024,
      },
      {
        name: 'agent: CPU',
        value: `${m.steadyCpuPercent.toFixed(3)}% of one core steady (${m.cpuMsPerSample.toFixed(1)} ms a sample); start ${m.startCpuMs ?? '?'} ms`,
        goal: '< 0.2%',
        ok: m.steadyCpuPercent < 0.2,
      },
    ];
  },
};

export type AgentFootprint = {
  stored: { samples: number; cpu: number; containers: number; units: number; logLines: number };
  /** VmHWM at the end. */
  peakRssKb: number;
  /** VmRSS read once a second after the warm-up, averaged. */
  meanRssKb: number;
  /**
   * RSS split as /proc/<pid>/status does: RssAnon is the process's own memory (V8's heap, malloc),
   * RssFile the pages of files it maps that it touched (mostly the node binary's code). Means after
   * the warm-up; peaks of the once-a-second readings, from the start.
   */
  meanAnonKb: number;
  peakAnonKb: number;
  meanFileKb: number;
  peakFileKb: number;
  /** CPU time over the steady part, as percent of one core. */
  steadyCpuPercent: number;
  cpuMsPerSample: number;
  /** CPU time from the start to the first stored sample. */
  startCpuMs: number | null;
  /** Lines the agent logged at warn or error. */
  warnings: number;
};

/** Runs the agent bundle on a fake host against a real server for `durationMs` and measures it. */
export async function measureAgent(options: {
  durationMs: number;
  node: string;
  flags: readonly string[];
  /** What the poll tells the agent (15 s unless given). */
  sampleEveryMs?: number;
}): Promise<AgentFootprint> {
  const sampleEveryMs = options.sampleEveryMs ?? 15_000;
  const work = tempDir('mon-bench-agent-');
  const bundle = join(work.dir, 'mon-agent.mjs');
  await buildAgent(bundle);
  const host = await startFakeHost({ containers: 50, units: 200 });
  const server = await readerServer(join(work.dir, 'data'), {
    ...(options.sampleEveryMs ? { hosts: { sampleEveryMs } } : {}),
  });
  const { token, hash } = newHostToken();
  await server.deps.store.writer.run((db) => putHostToken(db, 'bench-host', hash, Date.now(), 'admin'));
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stored = () =>
    one(
      server.deps.store.read,
      `SELECT
         (SELECT coalesce(sum(memory_n), 0) FROM host_rollups WHERE host = 'bench-host' AND res = 'm') AS samples,
         (SELECT coalesce(sum(cpu_n), 0) FROM host_rollups WHERE host = 'bench-host' AND res = 'm') AS cpu,
         (SELECT count(*) FROM host_items WHERE host = 'bench-host' AND kind = 'container') AS containers,
         (SELECT count(*) FROM host_items WHERE host = 'bench-host' AND kind = 'unit') AS units,
         (SELECT count(*) FROM agent_logs WHERE host = 'bench-host') AS log_lines`,
      storedRow,
    )!;

  const began = Date.now();
  const agent = spawn(options.node, [...options.flags, bundle], {
    env: {
      PATH: host.path,
      MON_SERVER: `http://127.0.0.1:${port}`,
      MON_TOKEN: token,
      MON_HOST_ROOT: host.root,
      MON_STATE_DIR: join(work.dir, 'state'),
      ...AGENT_ENV,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  agent.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
  });
  const exited = once(agent, 'exit');
  const pid = agent.pid!;

  let startCpuMs: number | null = null;
  let steady: { at: number; cpuMs: number } | null = null;
  const rss: number[] = [];
  const anon: number[] = [];
  const file: number[] = [];
  let peakAnonKb = 0;
  let peakFileKb = 0;
  let last = { at: began, cpuMs: 0, hwmKb: 0 };
  const warmUpMs = Math.min(WARM_UP_MS, 2 * sampleEveryMs);
  const reading = setInterval(() => {
    const now = Date.now();
    const usage = processUsage(pid);
    if (!usage) return;
    last = { at: now, cpuMs: usage.cpuMs, hwmKb: usage.hwmKb };
    peakAnonKb = Math.max(peakAnonKb, usage.anonKb);
    peakFileKb = Math.max(peakFileKb, usage.fileKb);
    if (startCpuMs === null && stored().samples > 0) startCpuMs = usage.cpuMs;
    if (now - began < warmUpMs) return;
    steady ??= { at: now, cpuMs: usage.cpuMs };
    rss.push(usage.rssKb);
    anon.push(usage.anonKb);
    file.push(usage.fileKb);
  }, 1000);
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  clearInterval(reading);
  agent.kill('SIGTERM');
  await exited;
  const result = stored();
  await server.close();
  await host.close();
  work.remove();

  const from = steady as { at: number; cpuMs: number } | null;
  const cpuMs = from ? last.cpuMs - from.cpuMs : Number.NaN;
  const wallMs = from ? last.at - from.at : Number.NaN;
  return {
    stored: result,
    peakRssKb: last.hwmKb,
    meanRssKb: mean(rss),
    meanAnonKb: mean(anon),
    peakAnonKb,
    meanFileKb: mean(file),
    peakFileKb,
    steadyCpuPercent: (cpuMs / wallMs) * 100,
    cpuMsPerSample: (cpuMs / wallMs) * sampleEveryMs,
    startCpuMs,
    warnings: log.split('\n').filter((line) => / (warn|error) /.test(line)).length,
  };
}

export type ProcessUsage = {
  rssKb: number;
  /** VmHWM: the peak RSS so far. */
  hwmKb: number;
  /** RssAnon and RssFile (RSS is these and RssShmem). */
  anonKb: number;
  fileKb: number;
  /** User and system CPU time so far. */
  cpuMs: number;
};

/** A running process's memory (kB) and CPU time (ms) from /proc, or null once it is gone. */
export function processUsage(pid: number): ProcessUsage | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from the state (field 3) on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime (14) + stime (15)
    const kb = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return {
      rssKb: kb('VmRSS'),
      hwmKb: kb('VmHWM'),
      anonKb: kb('RssAnon'),
      fileKb: kb('RssFile'),
      cpuMs: (ticks / TICKS_PER_SECOND) * 1000,
    };
  } catch {
    return null;
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function nodeVersion(node: string): string {
  if (node === process.execPath) return process.versions.node;
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
}
