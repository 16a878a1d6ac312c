import type { SQLInputValue } from 'node:sqlite';
import type { TestServer } from '../testing.ts';
import { applyTrackerItems } from './apply.ts';
import type { TrackerItem } from './types.ts';

/**
 * Tracker items as `POST /e` hands them to storage, for the storage tests: a visitor on a desktop
 * Chrome in Germany unless told otherwise.
 */
type Common = Partial<Omit<TrackerItem, 'event'>> & { ts: number };

const base = (over: Common): Omit<TrackerItem, 'event'> => ({
  site: 'shop.example',
  visitor: 'v1',
  page: '/',
  device: 'desktop',
  browser: 'Chrome',
  os: 'Windows',
  country: 'DE',
  ...over,
});

export function view(
  over: Common & {
    referrer?: string | null;
    utm?: Partial<Extract<TrackerItem['event'], { kind: 'view' }>['utm']>;
  },
): TrackerItem {
  const { referrer = null, utm = {}, ...rest } = over;
  return {
    ...base(rest),
    event: {
      kind: 'view',
      referrer,
      utm: { source: null, medium: null, campaign: null, ...utm },
    },
  };
}

export function engage(
  over: Common & { engagedMs?: number; vitals?: Extract<TrackerItem['event'], { kind: 'engage' }>['vitals'] },
): TrackerItem {
  const { engagedMs = 0, vitals = {}, ...rest } = over;
  return { ...base(rest), event: { kind: 'engage', engagedMs, vitals } };
}

export function jsError(
  over: Common & { message: string; type?: string; stack?: string | null; script?: string | null },
): TrackerItem {
  const { message, type = 'TypeError', stack = null, script = null, ...rest } = over;
  return { ...base(rest), event: { kind: 'error', type, message, script, line: 1, column: 2, stack } };
}

/** Stores items in one writer job, as the ingest queue does with a batch. */
export function store(server: TestServer, items: TrackerItem[]): Promise<void> {
  return server.deps.store.writer.run((_db, tx) => applyTrackerItems(tx, items));
}

/** Makes `domains` sites of the API, so that housekeeping keeps their data as a known site's. */
export function knowSites(server: TestServer, ...domains: string[]): Promise<void> {
  return server.deps.store.writer.run((db) => {
    for (const domain of domains) {
      db.prepare('INSERT INTO sites (domain, service, created_at) VALUES (?, ?, 0)').run(domain, 'shop');
    }
  });
}

/** Rows of a query on the read connection, as plain objects. */
export function rows(server: TestServer, sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
  return server.deps.store.read
    .prepare(sql)
    .all(...params)
    .map((row) => ({ ...row }));
}
