import type { AnalyticsListRead, AnalyticsRead } from '../protocol/analytics.ts';
import { DAY, HOUR } from '../protocol/durations.ts';
import { applyTrackerItems } from '../server/analytics/apply.ts';
import type { TrackerItem } from '../server/analytics/types.ts';
import type { Principal } from '../server/auth/access.ts';
import { FakeClock } from '../server/clock.ts';
import { staticConfig } from '../server/config/service.ts';
import { createTestServer, tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';
import { timedReads } from './timed-reads.ts';

const SITE = 'flood.example';
const NOW = Date.UTC(2026, 2, 10, 14, 20);
/** Distinct values a sender makes up each hour, in every list it can name (BENCH_FLOOD_PER_HOUR). */
const PER_HOUR = Number(process.env.BENCH_FLOOD_PER_HOUR ?? 5_000);
/** Hours flooded, up to NOW: today's and all of yesterday's (days without blocks yet). */
const HOURS = Math.floor((NOW - (Math.floor(NOW / DAY) - 1) * DAY) / HOUR) + 1;
const BATCH = 2_000;
const READS = 20;

/**
 * Reads of a site whose senders make up values: every page view a new visitor's, with a page,
 * referrer, UTM source, medium and campaign of its own (the five lists whose values a sender
 * chooses), PER_HOUR of them every hour of yesterday and today, stored as `POST /e` stores them
 * (`applyTrackerItems`, batches of 2,000). Median and worst of 20 reads through the HTTP layer, and
 * the median CPU. Run alone: `npm run bench -- analytics-flood`.
 */
export const benchmark: Benchmark = {
  name: 'analytics-flood',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const clock = new FakeClock(NOW);
    const reader: Principal = { kind: 'token', tokenId: 'bench', scope: 'read', label: 'bench' };
    const server = await createTestServer({
      dataDir: dir,
      clock,
      checks: { runners: {} },
      config: staticConfig({
        services: [{ name: 'flood', hosts: [], sites: [SITE], dependsOn: [], tier: null }],
      }),
      authenticate: async () => reader,
    });
    try {
      const writer = server.deps.store.writer;
      const start = Math.floor(NOW / HOUR) * HOUR - (HOURS - 1) * HOUR;
      const seedStarted = performance.now();
      let n = 0;
      for (let hour = 0; hour < HOURS; hour++) {
        for (let i = 0; i < PER_HOUR; i += BATCH) {
          const items: TrackerItem[] = [];
          for (let j = i; j < Math.min(PER_HOUR, i + BATCH); j++)
            items.push(madeUp(start + hour * HOUR + j, n++));
          await writer.run((_db, tx) => applyTrackerItems(tx, items));
        }
      }
      const seedMs = performance.now() - seedStarted;
      const reads: [string, string, (body: unknown) => boolean][] = [
        ['24h', '/api/v1/analytics?range=24h', (b) => (b as AnalyticsRead).totals.views > 0],
        ['7d', '/api/v1/analytics?range=7d', (b) => (b as AnalyticsRead).totals.views > 0],
        [
          'pages list, 24h',
          '/api/v1/analytics/pages?range=24h&limit=1000',
          (b) => (b as AnalyticsListRead).rows.length > 0,
        ],
      ];
      const rows: Awaited<ReturnType<Benchmark['run']>> = [
        {
          name: `analytics flood: ${n.toLocaleString('en')} page views with made-up values, ${PER_HOUR.toLocaleString('en')} an hour over ${HOURS} hours`,
          value: `${(seedMs / 1000).toFixed(1)} s to store`,
          goal: '',
          ok: null,
        },
      ];
      for (const [label, url, check] of reads) {
        const read = await timedReads(server.app, url, READS, check);
        const body = read.last as AnalyticsRead | AnalyticsListRead;
        const exact = 'dimensions' in body ? body.dimensions.pages.exact : body.exact;
        rows.push({
          name: `analytics flood read, ${label} (median, CPU, worst of ${READS}; pages exact)`,
          value: `${read.median} ms, ${read.medianCpu} ms, ${read.worst.toFixed(1)} ms; ${exact ? 'yes' : 'no'}`,
          goal: 'worst < 100 ms',
          ok: read.worst < 100,
        });
      }
      return rows;
    } finally {
      await server.dispose();
      remove();
    }
  },
};

/** A new visitor's page view whose page and sources are its own. */
function madeUp(ts: number, n: number): TrackerItem {
  return {
    site: SITE,
    ts,
    visitor: n.toString(16).padStart(32, '0'),
    page: `/made-up/${n}`,
    device: 'desktop',
    browser: 'Chrome',
    os: 'Windows',
    country: 'DE',
    event: {
      kind: 'view',
      referrer: `r${n}.example`,
      utm: { source: `s${n}`, medium: `m${n}`, campaign: `c${n}` },
    },
  };
}
