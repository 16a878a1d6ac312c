import type { DatabaseSync } from 'node:sqlite';
import { DAY, MINUTE } from '../protocol/durations.ts';
import type { Overview } from '../protocol/overview.ts';
import type { Principal } from '../server/auth/access.ts';
import { newId, newRecord } from '../server/checks/manage.ts';
import { resolutions } from '../server/checks/rollups.ts';
import { ensureService, insertCheck } from '../server/checks/store.ts';
import { FakeClock } from '../server/clock.ts';
import { openStore } from '../server/store/db.ts';
import { statement } from '../server/store/statements.ts';
import { createTestServer, tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';

const CHECKS = 1000;
const SERVICES = 50;
const INCIDENTS = 1000;
const READS = 30;
const NOW = Date.UTC(2026, 0, 1, 12);

/**
 * `GET /api/v1/overview` with 1,000 checks that ran every minute for two days (their rollups as the
 * engine writes them), 1,000 incidents (10 open), 200 deploys and 100 changes: median of 30 reads
 * after one warm-up, through the HTTP layer.
 */
export const benchmark: Benchmark = {
  name: 'overview',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const store = openStore(`${dir}/mon.db`);
    await store.writer.run((db) => seed(db));
    await store.close();
    const admin: Principal = { kind: 'token', tokenId: 'bench', scope: 'read', label: 'bench' };
    const server = await createTestServer({
      dataDir: dir,
      clock: new FakeClock(NOW),
      // Nothing runs: the clock stands still and no kind has a runner.
      checks: { runners: {} },
      authenticate: async () => admin,
    });
    try {
      const rows: Awaited<ReturnType<Benchmark['run']>> = [];
      for (const range of ['24h', '1h', '7d']) {
        const times: number[] = [];
        for (let i = 0; i <= READS; i++) {
          const t0 = performance.now();
          const res = await server.app.inject({ url: `/api/v1/overview?range=${range}` });
          const ms = performance.now() - t0;
          if (res.statusCode !== 200) throw new Error(`overview: ${res.statusCode} ${res.body}`);
          const body = res.json() as Overview;
          if (body.services.flatMap((s) => s.checks).length !== CHECKS) throw new Error('checks missing');
          if (i > 0) times.push(ms);
        }
        times.sort((a, b) => a - b);
        const median = times[Math.floor(times.length / 2)]!;
        rows.push({
          name: `overview read, ${range}, ${CHECKS.toLocaleString('en')} checks (median of ${READS})`,
          value: `${median.toFixed(1)} ms`,
          goal: range === '24h' ? '< 50 ms' : '',
          ok: range === '24h' ? median < 50 : null,
        });
      }
      return rows;
    } finally {
      await server.dispose();
      remove();
    }
  },
};

/** Checks, two days of rollups of a run a minute, incidents, deploys and changes, as the features write them. */
export function seedForDebug(db: DatabaseSync): void {
  seed(db);
}
function seed(db: DatabaseSync): void {
  const ids: string[] = [];
  for (let s = 0; s < SERVICES; s++) ensureService(db, `service ${s}`, NOW - 3 * DAY);
  for (let i = 0; i < CHECKS; i++) {
    const body = {
      name: `check ${i}`,
      service: `service ${i % SERVICES}`,
      kind: 'http' as const,
      target: `https://example.com/${i}`,
      everyMs: MINUTE,
    };
    const id = newId();
    insertCheck(db, newRecord(id, body, NOW - 3 * DAY, false, null));
    ids.push(id);
  }
  const rollup = statement(
    db,
    `INSERT INTO check_rollups (check_id, res, bucket, up, down, degraded, lat_count, lat_sum, value_count, value_sum, hist)
     VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0, 0, ?)`,
  );
  for (const [n, id] of ids.entries()) {
    for (const { res, ms } of resolutions) {
      for (let bucket = Math.floor((NOW - 2 * DAY) / ms) * ms; bucket < NOW; bucket += ms) {
        const runs = Math.max(1, Math.min(ms, NOW - bucket) / MINUTE);
        // One check in ten fails a run now and then.
        const down = n % 10 === 0 && (bucket / ms) % 17 === 0 ? 1 : 0;
        const hist = JSON.stringify({ l66: Math.ceil(runs * 0.6), l67: Math.floor(runs * 0.4) });
        rollup.run(id, res, bucket, runs - down, down, runs, runs * 130, hist);
      }
    }
  }
  const incident = statement(
    db,
    `INSERT INTO incidents (id, title, service, started_at, acknowledged_at, acknowledged_by, resolved_at)
     VALUES (?, ?, ?, ?, NULL, NULL, ?)`,
  );
  const alert = statement(
    db,
    `INSERT INTO incident_alerts (incident, key, check_id, service, name, detail, opened_at, recovered_at)
     VALUES (?, ?, ?, ?, ?, '500 Internal Server Error', ?, ?)`,
  );
  for (let i = 0; i < INCIDENTS; i++) {
    const id = i.toString(16).padStart(16, '0');
    const start = NOW - (i + 1) * 40 * MINUTE;
    const resolved = i < 10 ? null : start + 15 * MINUTE;
    const service = `service ${i % SERVICES}`;
    incident.run(id, `${service} is down`, service, start, resolved);
    alert.run(id, `check:${ids[i]}`, ids[i]!, service, `check ${i}`, start, resolved);
  }
  const deploy = statement(
    db,
    `INSERT INTO deploys (service, version, ts, by, url, description, source, sources, host)
     VALUES (?, ?, ?, 'ci', 'https://ci.example/run', NULL, 'api', 'api', NULL)`,
  );
  for (let i = 0; i < 200; i++) deploy.run(`service ${i % SERVICES}`, `v${i}`, NOW - i * 7 * MINUTE);
  const change = statement(
    db,
    `INSERT INTO changes (ts, kind, what, service, host, by, url, description, source)
     VALUES (?, 'change', ?, NULL, NULL, 'ops', NULL, NULL, 'api')`,
  );
  for (let i = 0; i < 100; i++) change.run(NOW - i * 13 * MINUTE, `change ${i}`);
}
