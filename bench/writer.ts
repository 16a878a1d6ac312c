import { openStore } from '../server/store/db.ts';
import { statement } from '../server/store/statements.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';

/** Writer throughput: concurrent producers each awaiting their own one-row writes, as request handlers do. */
export const benchmark: Benchmark = {
  name: 'writer',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    let commits = 0;
    const store = openStore(`${dir}/mon.db`, { onCommit: () => commits++ });
    await store.writer.run((db) =>
      db.exec('CREATE TABLE bench (id INTEGER PRIMARY KEY, ts INTEGER, v TEXT)'),
    );
    const producers = 200;
    const durationMs = 3000;
    const latencies: number[] = [];
    const deadline = performance.now() + durationMs;
    let rows = 0;
    const producer = async (p: number) => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await store.writer.run((db) =>
          statement(db, 'INSERT INTO bench (ts, v) VALUES (?, ?)').run(Date.now(), `producer ${p}`),
        );
        latencies.push(performance.now() - start);
        rows++;
      }
    };
    const began = performance.now();
    await Promise.all(Array.from({ length: producers }, (_, p) => producer(p)));
    const elapsed = (performance.now() - began) / 1000;
    await store.close();
    remove();
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
    const rate = rows / elapsed;
    return [
      {
        name: 'writer rows/s (200 producers)',
        value: Math.round(rate).toLocaleString('en'),
        goal: '> 50,000',
        ok: rate > 50_000,
      },
      { name: 'writer p99 enqueue→commit', value: `${p99.toFixed(1)} ms`, goal: '< 50 ms', ok: p99 < 50 },
      { name: 'writer rows per commit', value: (rows / commits).toFixed(0), goal: '', ok: null },
    ];
  },
};
