import { MAX_INFLATED_FRAMES_BYTES } from '../protocol/agent.ts';
import { bodyLimits } from '../server/app.ts';
import { refuseDeepJson } from '../server/http/json-depth.ts';
import type { Benchmark, BenchRow } from './main.ts';

const MiB = 1024 * 1024;

/** The least CPU time of `runs` calls of `f`, in ms (the machine's other work left out). */
function cpuMs(f: () => void, runs: number): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    try {
      f();
    } catch {
      // A refusal is what is measured.
    }
    const used = process.cpuUsage(start);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

/** `bytes` of brackets in an object: the deepest body a route takes. */
const nested = (bytes: number) => {
  const n = Math.floor((bytes - 8) / 2);
  return `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
};

/** Agent frames as they are sent, repeated to `bytes`. */
function frames(bytes: number): string {
  const sample = JSON.stringify({
    kind: 'sample',
    ts: 1_767_225_600_000,
    cpu: 12.5,
    memory: { used: 1e9, total: 4e9 },
    containers: Array.from({ length: 20 }, (_, i) => ({
      name: `shop-web-${i}`,
      image: 'ghcr.io/acme/shop:1.2.3',
      state: 'running',
      cpu: 1.5,
      memory: 2e8,
      labels: { 'com.docker.compose.service': `web${i}` },
    })),
  });
  const parts = [`{"frames":[${sample}`];
  let size = parts[0]!.length;
  while (size + sample.length + 3 < bytes) {
    parts.push(`,${sample}`);
    size += sample.length + 1;
  }
  parts.push(']}');
  // Flat, as a body decoded from bytes is.
  return Buffer.from(parts.join('')).toString('utf8');
}

/**
 * JSON.parse of the deepest body each route takes, and `refuseDeepJson` (http/json-depth.ts) on the
 * largest bodies it guards. CPU time, the least of several runs: `npm run bench -- json-depth`.
 */
export const benchmark: Benchmark = {
  name: 'json-depth',
  async run() {
    const routes: [string, number][] = [
      ['POST /e', bodyLimits['POST /e']!],
      ['POST /api/deploys, /api/changes', bodyLimits['POST /api/deploys']!],
      ['the JSON API (Fastify, 1 MiB)', MiB],
      ['POST /hooks/codehost', bodyLimits['POST /hooks/codehost']!],
      ['POST /agent/v1/frames, inflated', MAX_INFLATED_FRAMES_BYTES],
    ];
    const rows = routes.map(([route, bytes]): BenchRow => {
      const text = Buffer.from(nested(bytes)).toString('utf8');
      const ms = cpuMs(() => JSON.parse(text), bytes > 4 * MiB ? 1 : 3);
      return {
        name: `JSON.parse, ${route}: ${bytes / 1024} KiB nested`,
        value: `${ms.toFixed(1)} ms`,
        goal: 'guarded past 50 ms',
        ok: null,
      };
    });
    const real = frames(MAX_INFLATED_FRAMES_BYTES);
    const deep = nested(MAX_INFLATED_FRAMES_BYTES);
    const scan = cpuMs(() => refuseDeepJson(real), 5);
    const refused = cpuMs(() => refuseDeepJson(deep), 5);
    rows.push(
      {
        name: 'refuseDeepJson, 32 MiB of agent frames',
        value: `${scan.toFixed(1)} ms`,
        goal: 'below JSON.parse of the same',
        ok: scan < cpuMs(() => JSON.parse(real), 3),
      },
      {
        name: 'refuseDeepJson, 32 MiB nested',
        value: `${refused.toFixed(2)} ms`,
        goal: '< 1 ms',
        ok: refused < 1,
      },
    );
    return rows;
  },
};
