import { applyTrackerItems } from '../server/analytics/apply.ts';
import type { TrackerItem } from '../server/analytics/types.ts';
import { openStore } from '../server/store/db.ts';
import { tempDir } from '../server/testing.ts';
import type { Benchmark } from './main.ts';

/**
 * The writer's cost of tracker events (`applyTrackerItems`), without HTTP: batches of 2,000 events
 * as the ingest queue hands them over, on a database on disk with mon's settings. The events are a
 * simulated traffic of 20,000 a second: 60% page views, 35% engagement with Web Vitals, 5% errors,
 * from 20,000 visitors a day over 3 sites, 300 pages, a few referrers and campaigns. Run alone:
 * `node_modules/.bin/node bench/analytics-apply.ts` (BENCH_APPLY_EVENTS to change the count).
 */
const EVENTS = Number(process.env.BENCH_APPLY_EVENTS ?? 400_000);
/** 2,000 at most (feature.ts); 20,000 a second gathered for 20 ms make 400. */
const BATCH = Number(process.env.BENCH_APPLY_BATCH ?? 2_000);
const RATE_PER_SECOND = 20_000;
/** Goal: 20,000 events a second on 2 cores with HTTP running too leaves the writer ~20 µs an event. */
const GOAL_US = 20;

/** A deterministic pseudo-random sequence, so runs compare. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const agents = [
  ['desktop', 'Chrome', 'Windows'],
  ['desktop', 'Chrome', 'macOS'],
  ['desktop', 'Firefox', 'Windows'],
  ['desktop', 'Safari', 'macOS'],
  ['desktop', 'Edge', 'Windows'],
  ['mobile', 'Safari', 'iOS'],
  ['mobile', 'Chrome', 'Android'],
  ['mobile', 'Samsung Internet', 'Android'],
  ['tablet', 'Safari', 'iPadOS'],
  ['desktop', 'Firefox', 'Linux'],
] as const;
const countries = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA', 'NL', 'ES', 'IT', 'PL', null];
const referrers = [
  null,
  null,
  null,
  'google.com',
  'news.ycombinator.com',
  'twitter.com',
  'github.com',
  'bing.com',
];

export function simulatedEvents(count: number, start: number): TrackerItem[] {
  const next = random(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const items: TrackerItem[] = [];
  for (let i = 0; i < count; i++) {
    const ts = start + Math.floor((i * 1000) / RATE_PER_SECOND);
    // Skewed: a few visitors come back often, most once.
    const v = Math.floor(20_000 * next() ** 2);
    const [device, browser, os] = agents[v % agents.length]!;
    const page = `/${['docs', 'blog', 'pricing', 'app'][v % 4]}/${Math.floor(300 * next() ** 3)}`;
    const common = {
      site: `site${v % 3}.example`,
      ts,
      visitor: v.toString(16).padStart(32, '0'),
      page,
      device,
      browser,
      os,
      country: countries[v % countries.length]!,
    };
    const roll = next();
    if (roll < 0.6) {
      const campaign = next() < 0.1;
      items.push({
        ...common,
        event: {
          kind: 'view',
          referrer: pick(referrers),
          utm: {
            source: campaign ? pick(['newsletter', 'twitter', 'ads']) : null,
            medium: campaign ? 'email' : null,
            campaign: campaign ? `spring-${v % 5}` : null,
          },
        },
      });
    } else if (roll < 0.95) {
      items.push({
        ...common,
        event: {
          kind: 'engage',
          engagedMs: Math.floor(next() * 60_000),
          vitals:
            next() < 0.8
              ? {
                  lcp: 500 + next() * 4000,
                  cls: next() * 0.3,
                  inp: next() * 600,
                  fcp: 300 + next() * 2000,
                  ttfb: next() * 1500,
                }
              : {},
        },
      });
    } else {
      items.push({
        ...common,
        event: {
          kind: 'error',
          type: 'TypeError',
          message: `Cannot read properties of undefined (reading 'item${v % 7}') at ${v}`,
          script: 'https://site.example/assets/app-4f3a2b1c.js',
          line: 3,
          column: 100 + (v % 50),
          stack: `TypeError: x\n    at render${v % 20} (https://site.example/assets/app-4f3a2b1c.js:3:${v % 50})\n    at https://site.example/assets/app-4f3a2b1c.js:1:1`,
        },
      });
    }
  }
  return items;
}

export const benchmark: Benchmark = {
  name: 'analytics-apply',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    const store = openStore(`${dir}/mon.db`);
    const items = simulatedEvents(EVENTS, Date.UTC(2026, 0, 5, 10));
    // CPU time, not wall time: on a shared machine the wall clock also counts other processes' turns.
    let applyCpuUs = 0;
    const began = process.cpuUsage();
    for (let i = 0; i < items.length; i += BATCH) {
      const batch = items.slice(i, i + BATCH);
      await store.writer.run((_db, tx) => {
        const before = process.cpuUsage();
        applyTrackerItems(tx, batch);
        const used = process.cpuUsage(before);
        applyCpuUs += used.user + used.system;
      });
    }
    const all = process.cpuUsage(began);
    await store.close();
    remove();
    const applyUs = applyCpuUs / items.length;
    const totalUs = (all.user + all.system) / items.length;
    return [
      {
        name: `analytics apply, CPU µs per event (${items.length} events, batches of ${BATCH})`,
        value: applyUs.toFixed(1),
        goal: `≤ ${GOAL_US}`,
        ok: applyUs <= GOAL_US,
      },
      {
        name: 'analytics apply with commits, CPU µs per event',
        value: totalUs.toFixed(1),
        goal: `≤ ${GOAL_US}`,
        ok: totalUs <= GOAL_US,
      },
    ];
  },
};

if (import.meta.main) {
  for (const row of await benchmark.run()) console.log(`${row.name}: ${row.value} (goal ${row.goal})`);
}
