import type { DatabaseSync } from 'node:sqlite';
import type { AnalyticsList, VitalName } from '../../protocol/analytics.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { staticConfig } from '../config/service.ts';
import { statement } from '../store/statements.ts';
import type { Sync } from '../store/writer.ts';
import { createTestServer, type TestServer } from '../testing.ts';
import type { Resolution } from './ranges.ts';
import { vitalBucket } from './vitals.ts';

/**
 * Rollup rows for tests of the analytics reads, written with SQL through the real writer as the
 * migration's comments say storage writes them (hour rows `res = 'h'`, UTC day rows `res = 'd'`).
 */

/**
 * A server that knows `shop.example` (service shop) and `blog.example` (service blog), on a fake
 * clock, called with a read token; on the data of `dataDir` when given.
 */
export async function readServer(now: number, options: { sites?: boolean; dataDir?: string } = {}) {
  const clock = new FakeClock(now);
  const reader: Principal = { kind: 'token', tokenId: 't1', scope: 'read', label: 'test' };
  const services =
    options.sites === false
      ? []
      : [
          { name: 'shop', hosts: [], sites: ['shop.example'], dependsOn: [], tier: null },
          { name: 'blog', hosts: [], sites: ['blog.example'], dependsOn: [], tier: null },
        ];
  const server: TestServer = await createTestServer({
    clock,
    config: staticConfig({ services }),
    authenticate: async () => reader,
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  });
  const get = async (url: string) => {
    const res = await server.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
  };
  return { server, clock, get };
}

function write<T>(server: TestServer, job: (db: DatabaseSync) => Sync<T>): Promise<T> {
  return server.deps.store.writer.run((db) => job(db));
}

export type TotalsRow = {
  visitors?: number;
  views?: number;
  visits?: number;
  bounces?: number;
  engagedMs?: number;
};

/** One bucket of `analytics_totals`. */
export function writeTotals(
  server: TestServer,
  site: string,
  res: Resolution,
  at: number,
  t: TotalsRow,
): Promise<void> {
  return write(server, (db) => {
    statement(
      db,
      `INSERT INTO analytics_totals (site, res, at, visitors, views, visits, bounces, engaged_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(site, res, at, t.visitors ?? 0, t.views ?? 0, t.visits ?? 0, t.bounces ?? 0, t.engagedMs ?? 0);
  });
}

/** Rows of `analytics_dims`: `[list, value, visitors, views]` in one bucket. */
export function writeDims(
  server: TestServer,
  site: string,
  res: Resolution,
  at: number,
  rows: [AnalyticsList, string, number, number][],
): Promise<void> {
  return write(server, (db) => {
    const insert = statement(
      db,
      'INSERT INTO analytics_dims (site, res, at, list, value, visitors, views) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [list, value, visitors, views] of rows)
      insert.run(site, res, at, list, value, visitors, views);
  });
}

/** Samples of one metric on `page` ('' for every page) in one bucket, each value counted once. */
export function writeVitals(
  server: TestServer,
  site: string,
  res: Resolution,
  at: number,
  page: string,
  metric: VitalName,
  values: number[],
): Promise<void> {
  return write(server, (db) => {
    const insert = statement(
      db,
      `INSERT INTO analytics_vitals (site, res, at, page, metric, bucket, n) VALUES (?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (site, res, at, page, metric, bucket) DO UPDATE SET n = n + 1`,
    );
    for (const value of values) insert.run(site, res, at, page, metric, vitalBucket(metric, value));
  });
}

/** An error group with its counts: `counts` are `[res, at, n]`. Returns its id. */
export function writeErrorGroup(
  server: TestServer,
  group: {
    site: string;
    fingerprint: string;
    type?: string;
    message: string;
    firstSeen: number;
    lastSeen: number;
    counts: [Resolution, number, number][];
  },
): Promise<number> {
  return write(server, (db) => {
    const total = group.counts.filter(([res]) => res === 'd').reduce((sum, [, , n]) => sum + n, 0);
    const result = statement(
      db,
      `INSERT INTO js_error_groups (site, fingerprint, type, message, script, line, col, count, first_seen, last_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      group.site,
      group.fingerprint,
      group.type ?? 'TypeError',
      group.message,
      'https://shop.example/app.js',
      12,
      34,
      total,
      group.firstSeen,
      group.lastSeen,
    );
    const id = Number(result.lastInsertRowid);
    const insert = statement(db, 'INSERT INTO js_error_counts (group_id, res, at, n) VALUES (?, ?, ?, ?)');
    for (const [res, at, n] of group.counts) insert.run(id, res, at, n);
    return id;
  });
}

/** A deploy of `service` at `ts`, as the deploy API records it. Returns its id. */
export function writeDeploy(
  server: TestServer,
  service: string,
  version: string,
  ts: number,
): Promise<number> {
  return write(server, (db) => {
    const result = statement(
      db,
      `INSERT INTO deploys (service, version, ts, source, sources) VALUES (?, ?, ?, 'api', 'api')`,
    ).run(service, version, ts);
    return Number(result.lastInsertRowid);
  });
}
