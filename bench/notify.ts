import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { Principal } from '../server/auth/access.ts';
import { staticConfig } from '../server/config/service.ts';
import { defaultHostAlerts } from '../server/hosts/config.ts';
import { silentLog } from '../server/log.ts';
import { webhookAlert } from '../server/notify/testkit.ts';
import { createServer } from '../server/start.ts';
import { int, scalar } from '../server/store/rows.ts';
import { tempDir, within } from '../server/testing.ts';
import type { Benchmark } from './main.ts';

const INCIDENTS = Number(process.env.BENCH_NOTIFY_INCIDENTS ?? 1000);
const CHANNELS = 5;

type Arrival = { incident: string; at: number };
type FromReceivers = { urls: string[] } | { done: true } | { arrivals: Arrival[] };

/**
 * Notifications under a burst: 1,000 checks of 1,000 services go down at once, opening 1,000
 * incidents, each notified to five webhook channels (signed) whose receivers run in a child process.
 * Measures every message from the commit of its incident to its arrival at the receiver, and the
 * memory the burst takes. Real clock, real storage, real loopback HTTP.
 */
export const benchmark: Benchmark = {
  name: 'notify',
  async run() {
    const expected = INCIDENTS * CHANNELS;
    const receivers = fork(
      join(import.meta.dirname, 'webhook-receivers.ts'),
      [String(CHANNELS), String(expected)],
      {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    const next = () =>
      new Promise<FromReceivers>((resolve) => receivers.once('message', (m) => resolve(m as FromReceivers)));
    const hello = await next();
    if (!('urls' in hello)) throw new Error('the receivers did not start');
    const alerts = hello.urls.map((url, i) =>
      webhookAlert(i, `hook-${i}`, `${url}/`, 'a signing secret for the bench'),
    );
    const { dir, remove } = tempDir('mon-bench-');
    const admin: Principal = { kind: 'token', tokenId: 'bench', scope: 'write', label: 'bench' };
    const server = await createServer({
      dataDir: dir,
      configPath: join(dir, 'mon.toml'),
      env: {},
      log: silentLog,
      // agent1 is the host the checks run from.
      config: staticConfig({ alerts, hosts: [{ name: 'agent1', alerts: defaultHostAlerts }] }),
      authenticate: async () => admin,
    });
    const ids: string[] = [];
    for (let i = 0; i < INCIDENTS; i++) {
      const body = {
        name: `check-${i}`,
        service: `service-${i}`,
        kind: 'tcp',
        target: 'db.internal:5432',
        from: 'agent1',
        everyMs: 60_000,
      };
      const res = await server.app.inject({ method: 'POST', url: '/api/v1/checks', payload: body });
      ids.push((JSON.parse(res.body) as { id: string }).id);
    }
    // When each incident's opening (and so its outbox rows) committed.
    const committed = new Map<string, number>();
    // The CPU the sends took: from the commit of the last incident to the last arrival.
    let openedCpu: NodeJS.CpuUsage | null = null;
    server.deps.events.subscribe((_db, events, _now, tx) => {
      for (const e of events) {
        if (e.type === 'incident.change' && e.change === 'opened')
          tx.afterCommit(() => {
            committed.set(e.incidentId, Date.now());
            if (committed.size === INCIDENTS) openedCpu = process.cpuUsage();
          });
      }
    });
    const down = { status: 'down' as const, latencyMs: null, detail: 'connection refused' };
    const engine = server.checks.engine;
    await Promise.all(ids.map((id) => engine.recordRun(id, down, Date.now())));

    const heapBefore = process.memoryUsage().heapUsed;
    let peakRss = process.memoryUsage().rss;
    let peakHeap = heapBefore;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 100);
    const began = Date.now();
    const done = next();
    // The second failed run of each check: 1,000 incidents open at once.
    await Promise.all(ids.map((id) => engine.recordRun(id, down, Date.now())));
    const timeout = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), 120_000).unref(),
    );
    const finished = await Promise.race([done, timeout]);
    const took = Date.now() - began;
    const sendCpu = openedCpu ? process.cpuUsage(openedCpu) : null;
    receivers.send('report');
    const report = await next();
    const arrivals = 'arrivals' in report ? report.arrivals : [];
    await within(
      10_000,
      'every row is recorded as sent',
      () => scalar(server.deps.store.read, "SELECT count(*) AS n FROM outbox WHERE state = 'due'", int) === 0,
    ).catch(() => {});
    const sent = scalar(server.deps.store.read, "SELECT count(*) AS n FROM outbox WHERE state = 'sent'", int);
    clearInterval(sampler);
    await server.close();
    receivers.disconnect();
    remove();

    const latencies = arrivals
      .map((a) => a.at - (committed.get(a.incident) ?? Number.NaN))
      .filter((ms) => Number.isFinite(ms))
      .sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    const p99 = at(0.99);
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    return [
      {
        name: `notify: ${INCIDENTS.toLocaleString('en')} incidents × ${CHANNELS} webhook channels`,
        value: `${arrivals.length} received, ${sent} sent in ${(took / 1000).toFixed(1)} s`,
        goal: `all ${expected}`,
        ok: finished !== 'timeout' && arrivals.length === expected && sent === expected,
      },
      {
        name: 'notify: commit to arrival',
        value: `p50 ${at(0.5)} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms`,
        goal: 'p99 < 2000 ms',
        ok: p99 < 2000,
      },
      {
        name: 'notify: memory and CPU of the burst',
        value: `peak RSS ${mb(peakRss)}, heap +${mb(peakHeap - heapBefore)}, sends ${sendCpu ? Math.round((sendCpu.user + sendCpu.system) / 1000) : '?'} ms CPU`,
        goal: '-',
        ok: null,
      },
    ];
  },
};
