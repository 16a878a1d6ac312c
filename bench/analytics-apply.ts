import { applyTrackerItems } from '../server/analytics/apply.ts';
import type { TrackerItem } from '../server/analytics/types.ts';
import { openStore } from '../server/store/db.ts';
import { tempDir } from '../server/testing.ts';
import { prng } from './analytics-visitors.ts';
import type { Benchmark } from './main.ts';

/**
 * The writer's cost of tracker events (`applyTrackerItems`), without HTTP: batches of 2,000 events
 * as the ingest queue hands them over, on a database on disk with mon's settings. The events are a
 * simulated traffic of 20,000 a second (`simulatedEvents`): visits of 1 to 6 pages over 3 sites and
 * 1,200 pages, engagement with Web Vitals, a few errors, referrers and campaigns. Run alone:
 * `node_modules/.bin/node bench/analytics-apply.ts` (BENCH_APPLY_EVENTS to change the count).
 */
const EVENTS = Number(process.env.BENCH_APPLY_EVENTS ?? 400_000);
/** 2,000 at most (feature.ts); 20,000 a second gathered for 20 ms make 400. */
const BATCH = Number(process.env.BENCH_APPLY_BATCH ?? 2_000);
const RATE_PER_SECOND = 20_000;
/** Goal: 20,000 events a second on 2 cores with HTTP running too leaves the writer ~20 µs an event. */
const GOAL_US = 20;

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

type Visitor = {
  id: string;
  n: number;
  site: string;
  agent: (typeof agents)[number];
  country: string | null;
};
type Journey = { visitor: Visitor; views: number; page: string | null };

/**
 * Visits of 1 to 6 pages, 2,000 going on at once: each step moves one of them on. A view is followed by
 * the page being hidden (engaged time and Web Vitals) 70% of the time, and by an error 3% of the time.
 */
export function simulatedEvents(count: number, start: number): TrackerItem[] {
  const next = prng(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const hex = () =>
    Math.floor(next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  let visitors = 0;
  const newJourney = (): Journey => {
    const n = visitors++;
    return {
      visitor: {
        id: hex() + hex() + hex() + hex(),
        n,
        site: `site${n % 3}.example`,
        agent: pick(agents),
        country: pick(countries),
      },
      views: 1 + Math.floor(next() * 6),
      page: null,
    };
  };
  const going = Array.from({ length: 2_000 }, newJourney);
  const items: TrackerItem[] = [];
  while (items.length < count) {
    const ts = start + Math.floor((items.length * 1000) / RATE_PER_SECOND);
    const slot = Math.floor(next() * going.length);
    const journey = going[slot]!;
    const { visitor } = journey;
    const [device, browser, os] = visitor.agent;
    const common = {
      site: visitor.site,
      ts,
      visitor: visitor.id,
      device,
      browser,
      os,
      country: visitor.country,
    };
    if (journey.page !== null && next() < 0.7) {
      items.push({
        ...common,
        page: journey.page,
        event: {
          kind: 'engage',
          engagedMs: Math.floor(next() * 60_000),
          vitals: {
            lcp: 500 + next() ** 2 * 4000,
            cls: next() ** 3 * 0.3,
            inp: next() ** 2 * 600,
            fcp: 300 + next() ** 2 * 2000,
            ttfb: 50 + next() ** 2 * 1500,
          },
        },
      });
    }
    if (journey.page !== null && next() < 0.03) {
      const v = visitor.n;
      items.push({
        ...common,
        page: journey.page,
        event: {
          kind: 'error',
          type: 'TypeError',
          message: `Cannot read properties of undefined (reading 'item${v % 7}') at ${v}`,
          script: 'https://site.example/assets/app-4f3a2b1c.js',
          line: 3,
          column: 100 + (v % 50),
          stack: `TypeError: x\n    at render${v % 20} (https://site.example/assets/app-4f3a2b1c.js:3:${v % 50})`,
        },
      });
    }
    if (journey.views === 0) {
      going[slot] = newJourney();
      continue;
    }
    const page = `/${['docs', 'blog', 'pricing', 'app'][Math.floor(next() * 4)]}/${Math.floor(300 * next() ** 3)}`;
    const campaign = journey.page === null && next() < 0.1;
    items.push({
      ...common,
      page,
      event: {
        kind: 'view',
        referrer: journey.page === null ? pick(referrers) : null,
        utm: {
          source: campaign ? pick(['newsletter', 'twitter', 'ads']) : null,
          medium: campaign ? 'email' : null,
          campaign: campaign ? `spring-${visitor.n % 5}` : null,
        },
      },
    });
    journey.page = page;
    journey.views--;
  }
  return items.slice(0, count);
}

export const benchmark: Benchmark = {
  name: 'analytics-apply',
  async run() {
    const { dir, remove } = tempDir('mon-bench-');
    // Checkpoints as the server makes them (a thread of their own); BENCH_APPLY_CHECKPOINTS=writer
    // leaves them to the writer's commits, as SQLite does by default.
    const store = openStore(`${dir}/mon.db`, {
      checkpointInBackground: process.env.BENCH_APPLY_CHECKPOINTS !== 'writer',
    });
    const items = simulatedEvents(EVENTS, Date.UTC(2026, 0, 5, 10));
    // CPU time, not wall time: on a shared machine the wall clock also counts other processes' turns.
    // The commit is the exception: it waits for the disk, which CPU time does not show.
    let applyCpuUs = 0;
    let commitMs = 0;
    const began = process.cpuUsage();
    for (let i = 0; i < items.length; i += BATCH) {
      const batch = items.slice(i, i + BATCH);
      let applied = 0;
      await store.writer.run((_db, tx) => {
        const before = process.cpuUsage();
        applyTrackerItems(tx, batch);
        const used = process.cpuUsage(before);
        applyCpuUs += used.user + used.system;
        applied = performance.now();
      });
      commitMs += performance.now() - applied;
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
      {
        name: `analytics commit, wall µs per event (checkpoints: ${
          process.env.BENCH_APPLY_CHECKPOINTS === 'writer' ? 'in the commits' : 'a thread of their own'
        })`,
        value: ((commitMs * 1000) / items.length).toFixed(1),
        goal: '',
        ok: null,
      },
    ];
  },
};

if (import.meta.main) {
  for (const row of await benchmark.run()) console.log(`${row.name}: ${row.value} (goal ${row.goal})`);
}
