import type { FastifyInstance } from 'fastify';

/** What `timedReads` measured: each figure's median and the worst, in ms, and the last body read. */
export type ReadTimes = { median: string; medianCpu: string; worst: number; last: unknown };

/**
 * Reads `url` through the app `n` times after one warm-up read, each checked by `check`, and times
 * each: wall clock and the process's CPU (reads are synchronous: their CPU is the event loop's).
 */
export async function timedReads(
  app: FastifyInstance,
  url: string,
  n: number,
  check: (body: unknown) => boolean,
): Promise<ReadTimes> {
  const times: number[] = [];
  const cpu: number[] = [];
  let last: unknown = null;
  for (let i = 0; i <= n; i++) {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const res = await app.inject({ url });
    const used = process.cpuUsage(cpu0);
    const ms = performance.now() - t0;
    last = res.json();
    if (res.statusCode !== 200 || !check(last))
      throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (i > 0) {
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const median = (values: number[]) => values[Math.floor(values.length / 2)]!.toFixed(1);
  return { median: median(times), medianCpu: median(cpu), worst: times.at(-1)!, last };
}
