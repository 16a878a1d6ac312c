import type { DatabaseSync } from 'node:sqlite';
import type { AnalyticsList, AnalyticsListRead, AnalyticsRead, VitalName } from '../protocol/analytics.ts';
import { vitalNames } from '../protocol/analytics.ts';
import { DAY, HOUR } from '../protocol/durations.ts';
import { writeDayBlocks } from '../server/analytics/block-writes.ts';
import type { Principal } from '../server/auth/access.ts';
import { FakeClock } from '../server/clock.ts';
import { staticConfig } from '../server/config/service.ts';
import { openStore } from '../server/store/db.ts';
import { statement } from '../server/store/statements.ts';
import type { Writer } from '../server/store/writer.ts';
import { createTestServer, tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';
import { timedReads } from './timed-reads.ts';

const SITE = 'shop.example';
const NOW = Date.UTC(2026, 2, 10, 14, 20);
/** Distinct pages viewed each day, and each hour. */
const PAGES_PER_DAY = 5000;
const PAGES_PER_HOUR = 600;
/** Days of daily rows, of daily per-page Web Vitals, and of hourly rows (raw retention). */
const DAYS = 366;
const VITALS_DAYS = 60;
const HOURLY_DAYS = 35;
/** Pages with their own Web Vitals histograms each day. */
const PAGES_WITH_VITALS = 500;
const ERROR_GROUPS = 300;
const READS = 30;

const otherLists: [AnalyticsList, number][] = [
  ['referrers', 200],
  ['countries', 80],
  ['devices', 3],
  ['browsers', 15],
  ['operatingSystems', 10],
  ['utmSources', 30],
  ['utmMediums', 6],
  ['utmCampaigns', 40],
];

/**
 * The analytics reads of a busy site: 5,000 distinct pages a day (600 an hour) and the other lists'
 * values for a year of daily rows and 35 days of hourly rows, Web Vitals histograms overall and for
 * 500 pages (60 days of daily ones), 300 error groups; then the blocks of days written by the first
 * housekeeping pass (timed). Median and worst of 30 reads of each range after a warm-up, through the
 * HTTP layer, and the median CPU time of the process per read (the server runs in it): on a shared
 * machine the wall times include waiting for a core.
 */
export const benchmark: Benchmark = {
  name: 'analytics-reads',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const store = openStore(`${dir}/mon.db`);
    const seeded = await store.writer.run((db) => seed(db));
    await store.close();
    const reader: Principal = { kind: 'token', tokenId: 'bench', scope: 'read', label: 'bench' };
    const server = await createTestServer({
      dataDir: dir,
      clock: new FakeClock(NOW),
      checks: { runners: {} },
      config: staticConfig({
        services: [{ name: 'shop', hosts: [], sites: [SITE], dependsOn: [], tier: null }],
      }),
      authenticate: async () => reader,
    });
    // The blocks of days of the year, as the first housekeeping pass on this database writes them.
    const writer = server.deps.store.writer;
    let longestJob = 0;
    const timed: Pick<Writer, 'run'> = {
      run: (fn) =>
        writer.run((db, tx) => {
          const t0 = performance.now();
          const value = fn(db, tx);
          longestJob = Math.max(longestJob, performance.now() - t0);
          return value;
        }),
    };
    const started = performance.now();
    const { jobs } = await writeDayBlocks(timed, { now: NOW });
    const blocksMs = performance.now() - started;
    const topTen = (b: unknown) => (b as AnalyticsRead).dimensions.pages.rows.length === 10;
    const hundred = (b: unknown) => (b as AnalyticsListRead).rows.length === 100;
    // Up to about 20 days, the pages left out of blocks are within the day rows a read takes: exact.
    const exactTopTen = (b: unknown) => topTen(b) && (b as AnalyticsRead).dimensions.pages.exact;
    const exactHundred = (b: unknown) => hundred(b) && (b as AnalyticsListRead).exact;
    const twentyDays = `from=${NOW - 20 * DAY}&to=${NOW}`;
    // Not aligned to hours, days or blocks.
    const longest = `from=${NOW - 400 * DAY + 7 * HOUR + 123}&to=${NOW - 3 * HOUR}`;
    // [label, url, reads, goal in ms, a check of the answer]
    const reads: [string, string, number, number, (body: unknown) => boolean][] = [
      ['24h', '/api/v1/analytics?range=24h', READS, 100, (b) => (b as AnalyticsRead).totals.views > 0],
      ['7d', '/api/v1/analytics?range=7d', READS, 100, exactTopTen],
      ['20 days', `/api/v1/analytics?${twentyDays}`, READS, 100, exactTopTen],
      ['30d', '/api/v1/analytics?range=30d', READS, 100, topTen],
      [
        'pages list, 30d, search',
        '/api/v1/analytics/pages?range=30d&search=item-1&limit=100',
        READS,
        100,
        hundred,
      ],
      [
        'pages list, 20 days, search',
        `/api/v1/analytics/pages?${twentyDays}&search=item-1&limit=100`,
        READS,
        100,
        exactHundred,
      ],
      ['1y', '/api/v1/analytics?range=1y', READS, 100, topTen],
      [
        'pages list, 1y, search',
        '/api/v1/analytics/pages?range=1y&search=item-1&limit=100',
        READS,
        100,
        hundred,
      ],
      ['400 days from/to', `/api/v1/analytics?${longest}`, READS, 100, topTen],
    ];
    try {
      const rows: Awaited<ReturnType<Benchmark['run']>> = [
        { name: 'analytics rollup rows seeded', value: seeded.toLocaleString('en'), goal: '', ok: null },
        {
          name: 'blocks of days written for the year (first housekeeping pass)',
          value: `${(blocksMs / 1000).toFixed(1)} s in ${jobs} writer jobs, the longest ${longestJob.toFixed(1)} ms`,
          goal: '',
          ok: null,
        },
      ];
      for (const [label, url, n, goal, check] of reads) {
        const read = await timedReads(server.app, url, n, check);
        rows.push({
          name: `analytics read, ${label}, ${PAGES_PER_DAY.toLocaleString('en')} pages a day (median, CPU, worst of ${n})`,
          value: `${read.median} ms, ${read.medianCpu} ms, ${read.worst.toFixed(1)} ms`,
          goal: `worst < ${goal} ms`,
          ok: read.worst < goal,
        });
      }
      return rows;
    } finally {
      await server.dispose();
      remove();
    }
  },
};

/** A deterministic spread of counts. */
const count = (i: number, j: number) => 1 + ((i * 7919 + j * 104729) % 50);

function seed(db: DatabaseSync): number {
  let rows = 0;
  const totals = statement(
    db,
    `INSERT INTO analytics_totals (site, res, at, visitors, views, visits, bounces, engaged_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const dim = statement(
    db,
    'INSERT INTO analytics_dims (site, res, at, list, value, visitors, views) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const vital = statement(
    db,
    'INSERT INTO analytics_vitals (site, res, at, page, metric, bucket, n) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const bucketSpan: Record<VitalName, number> = { lcp: 150, inp: 110, cls: 60, fcp: 145, ttfb: 130 };
  const write = (res: 'h' | 'd', at: number, pages: number, vitalBuckets: number) => {
    totals.run(SITE, res, at, 1000, 4000, 1200, 500, 3_600_000);
    rows++;
    for (let p = 0; p < pages; p++) {
      const page = `/catalog/item-${(p * 37 + at / HOUR) % PAGES_PER_DAY}`;
      dim.run(SITE, res, at, 'pages', page, count(p, at), 2 * count(p, at));
      rows++;
    }
    for (const [list, values] of otherLists) {
      for (let v = 0; v < values; v++)
        dim.run(SITE, res, at, list, `${list}-${v}`, count(v, at), count(v, at) + 3);
      rows += values;
    }
    for (const page of ['', ...Array.from({ length: PAGES_WITH_VITALS }, (_, p) => `/catalog/item-${p}`)]) {
      for (const metric of vitalNames) {
        const buckets = page === '' ? 40 : vitalBuckets;
        for (let b = 0; b < buckets; b++)
          vital.run(SITE, res, at, page, metric, bucketSpan[metric] - 20 + b, count(b, at));
        rows += buckets;
      }
    }
  };
  const today = Math.floor(NOW / DAY) * DAY;
  for (let d = 0; d < DAYS; d++) write('d', today - d * DAY, PAGES_PER_DAY, d < VITALS_DAYS ? 8 : 0);
  for (let h = 0; h < HOURLY_DAYS * 24; h++)
    write('h', Math.floor(NOW / HOUR) * HOUR - h * HOUR, PAGES_PER_HOUR, 1);

  const group = statement(
    db,
    `INSERT INTO js_error_groups (site, fingerprint, type, message, count, first_seen, last_seen)
     VALUES (?, ?, 'TypeError', ?, 0, ?, ?)`,
  );
  const errorCount = statement(db, 'INSERT INTO js_error_counts (group_id, res, at, n) VALUES (?, ?, ?, ?)');
  for (let g = 0; g < ERROR_GROUPS; g++) {
    const id = Number(
      group.run(SITE, `f${g}`, `error ${g}`, NOW - (g % DAYS) * DAY, NOW - (g % 3) * HOUR).lastInsertRowid,
    );
    for (let d = 0; d < DAYS; d += 1 + (g % 5)) errorCount.run(id, 'd', today - d * DAY, count(g, d));
    for (let h = 0; h < 48; h += 1 + (g % 7))
      errorCount.run(id, 'h', Math.floor(NOW / HOUR) * HOUR - h * HOUR, count(g, h));
    rows++;
  }
  return rows;
}
