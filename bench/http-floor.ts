import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { processUsage } from './agent.ts';
import { runLoad } from './analytics.ts';
import type { Phase } from './analytics-load.ts';
import type { Benchmark, BenchRow } from './main.ts';

const RATE = Number(process.env.BENCH_ANALYTICS_RATE ?? 20_000);
const STEADY_MS = 15_000;

/**
 * What answering tracker events costs before mon does anything with them: the analytics benchmark's
 * load generator (bench/analytics-load.ts, 20,000 events a second, 2,000 keep-alive connections)
 * against a server that reads `POST /e` and answers 204, by Node's HTTP server alone and by Fastify
 * (bench/http-floor-server.ts). The server's CPU per event is the floor under mon's own (`npm run bench
 * -- analytics`), and the load generator's CPU is what the machine's other core gives to it.
 */
export const benchmark: Benchmark = {
  name: 'http-floor',
  async run() {
    const rows: BenchRow[] = [];
    for (const mode of ['node', 'fastify'] as const) rows.push(await floorOf(mode));
    return rows;
  },
};

async function floorOf(mode: 'node' | 'fastify'): Promise<BenchRow> {
  const server = fork(join(import.meta.dirname, 'http-floor-server.ts'), [mode], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const [{ port }] = (await once(server, 'message')) as [{ port: number }];
    const cpuMs = () => processUsage(server.pid!)?.cpuMs ?? Number.NaN;
    const marks: Partial<Record<Phase, { at: number; cpuMs: number }>> = {};
    const report = await runLoad(
      {
        host: '127.0.0.1',
        port,
        domain: 'shop.example',
        rate: RATE,
        rampMs: 5_000,
        steadyMs: STEADY_MS,
        floodMs: 1_000,
        connections: 2_000,
        floodConnections: 1,
        visitors: RATE * 2,
      },
      (phase) => {
        marks[phase] = { at: performance.now(), cpuMs: cpuMs() };
      },
    );
    const steady = report.phases.find((p) => p.phase === 'steady')!;
    const answered = steady.statuses['204'] ?? 0;
    const used = marks.flood!.cpuMs - marks.steady!.cpuMs;
    const percent = (used / (marks.flood!.at - marks.steady!.at)) * 100;
    return {
      name: `HTTP floor: ${mode === 'node' ? "Node's HTTP server" : 'Fastify'} answering POST /e 204, ${RATE.toLocaleString('en')}/s offered`,
      value: `${Math.round(answered / (steady.ms / 1000)).toLocaleString('en')}/s answered, ${((used * 1000) / answered).toFixed(1)} µs of server CPU an event (${percent.toFixed(0)}% of one core); load generator ${report.cpuPercent.toFixed(0)}% of one core`,
      goal: '-',
      ok: null,
    };
  } finally {
    server.kill();
  }
}
