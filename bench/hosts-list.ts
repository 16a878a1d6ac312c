import type { ContainerSample, UnitSample } from '../protocol/agent.ts';
import { applyItems } from '../server/hosts/items.ts';
import { membership } from '../server/hosts/membership.ts';
import { newHostToken, putHostToken } from '../server/hosts/store.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';
import { readerServer } from './reader-server.ts';

const HOSTS = Number(process.env.BENCH_LIST_HOSTS ?? 2000);
/** Containers and units of each host, half of each. */
const ITEMS = Number(process.env.BENCH_LIST_ITEMS ?? 250);
const READS = 20;

/**
 * `GET /api/v1/hosts` at 2,000 hosts of 250 containers and units each (500,000 items), stored through
 * ingest's own `applyItems`, none of them of a service (so all are discovered items, which the list
 * counts): the list's latency over 20 reads, after a first one.
 */
export const benchmark: Benchmark = {
  name: 'hosts-list',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const server = await readerServer(dir);
    const now = Date.now();
    const containers: ContainerSample[] = Array.from({ length: ITEMS / 2 }, (_, i) => ({
      id: i.toString(16).padStart(64, '0'),
      name: `app-${i}`,
      image: `registry.example.com/app-${i % 10}:1.0`,
      imageId: `sha256:${(i % 10).toString(16).padStart(64, '0')}`,
      state: 'running',
      health: null,
      restarts: 0,
      exitCode: null,
      oomKilled: false,
      startedAt: now - 86_400_000,
      finishedAt: null,
      cpu: 1,
      memory: 100_000_000,
      labels: { 'com.docker.compose.project': `stack-${i % 5}` },
    }));
    const units: UnitSample[] = Array.from({ length: ITEMS / 2 }, (_, i) => ({
      name: `unit-${i}.service`,
      state: 'active',
      subState: 'running',
      restarts: 0,
      cpu: 0.1,
      memory: 10_000_000,
    }));
    for (let first = 0; first < HOSTS; first += 50) {
      await server.deps.store.writer.run((db) => {
        const m = membership(db, server.deps.config.current());
        for (let i = first; i < Math.min(HOSTS, first + 50); i++) {
          putHostToken(db, `host-${i}`, newHostToken().hash, now, 'admin');
          applyItems(db, `host-${i}`, now, containers, units, m);
        }
      });
    }

    const read = async () => {
      const t0 = performance.now();
      const res = await server.app.inject({ method: 'GET', url: '/api/v1/hosts' });
      if (res.statusCode !== 200) throw new Error(`GET /api/v1/hosts answered ${res.statusCode}`);
      const { hosts } = res.json() as { hosts: { discovered: number }[] };
      if (hosts.length !== HOSTS || hosts.some((h) => h.discovered !== ITEMS))
        throw new Error('the list does not count every item as discovered');
      return performance.now() - t0;
    };
    await read();
    const times: number[] = [];
    for (let i = 0; i < READS; i++) times.push(await read());
    await server.close();
    remove();

    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    return [
      {
        name: `hosts-list: GET /api/v1/hosts, ${HOSTS.toLocaleString('en')} hosts × ${ITEMS} items`,
        value: `median ${median.toFixed(1)} ms, slowest ${times.at(-1)!.toFixed(1)} ms (${READS} reads)`,
        goal: '< 100 ms',
        ok: median < 100,
      },
    ];
  },
};
