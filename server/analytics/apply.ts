import type { DatabaseSync } from 'node:sqlite';
import { type AnalyticsList, DIRECT_REFERRER } from '../../protocol/analytics.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { Tx } from '../store/writer.ts';
import { BatchErrors } from './error-groups.ts';
import { countVitals, hasViewed, insertView } from './page-views.ts';
import { BatchRollups } from './rollups.ts';
import {
  continues,
  earlierSources,
  isBouncing,
  latestSession,
  type Session,
  startSession,
  updateSession,
} from './sessions.ts';
import type { TrackerItem } from './types.ts';

type Event<K extends TrackerItem['event']['kind']> = Extract<TrackerItem['event'], { kind: K }>;
type Batch = { db: DatabaseSync; rollups: BatchRollups; errors: BatchErrors };

/**
 * Stores a batch of tracker events in one writer job: sessions, raw page views, the hourly and daily
 * rollups (aggregated over the batch first), Web Vitals histograms and error groups. Events apply in
 * order: the queue keeps it, and a visitor's later event sees the visit its earlier one started.
 */
export function applyTrackerItems(tx: Tx, items: readonly TrackerItem[]): void {
  const batch: Batch = { db: tx.db, rollups: new BatchRollups(), errors: new BatchErrors() };
  for (const item of items) {
    const latest = latestSession(batch.db, item.site, item.visitor);
    const event = item.event;
    if (event.kind === 'view') applyView(batch, item, event, latest);
    else if (event.kind === 'engage') applyEngagement(batch, item, event, latest);
    else applyError(batch, item, event, latest);
  }
  batch.rollups.write(batch.db);
  batch.errors.write(batch.db);
  if (items.length > 0) tx.invalidate(liveKeys.analytics);
}

/** The lists a visitor counts in once a day (constant for a visitor id: it hashes address and user agent). */
function visitorValues(item: TrackerItem): [AnalyticsList, string | null][] {
  return [
    ['countries', item.country],
    ['devices', item.device],
    ['browsers', item.browser],
    ['operatingSystems', item.os],
  ];
}

/** The lists a visit's source counts in; campaign lists only for visits that carry the parameter. */
function sourceValues(
  s: Pick<Session, 'referrer' | 'utmSource' | 'utmMedium' | 'utmCampaign'>,
): [AnalyticsList, string | null][] {
  return [
    ['referrers', s.referrer ?? DIRECT_REFERRER],
    ['utmSources', s.utmSource],
    ['utmMediums', s.utmMedium],
    ['utmCampaigns', s.utmCampaign],
  ];
}

/**
 * A page view continues the visitor's visit or starts one. A visitor without any visit yet (today:
 * ids change daily) is new: counted in the totals and in countries, devices, browsers and systems. A
 * new visit counts its visitor once per source value of the day; a page counts its visitor once a day.
 */
function applyView(
  { db, rollups }: Batch,
  item: TrackerItem,
  event: Event<'view'>,
  latest: Session | null,
): void {
  const { site, ts, visitor, page } = item;
  // A visitor without a visit has no page view either.
  const firstOfPage = latest === null || !hasViewed(db, site, visitor, page);
  insertView(db, site, visitor, page, ts);
  rollups.total(site, ts, { views: 1 });
  rollups.dim(site, ts, 'pages', page, firstOfPage ? 1 : 0, 1);
  if (continues(latest, ts)) {
    const bounced = isBouncing(latest.views, latest.engagedMs);
    latest.views++;
    latest.lastAt = Math.max(latest.lastAt, ts);
    updateSession(db, item, latest);
    if (bounced) rollups.total(site, latest.startedAt, { bounces: -1 });
    for (const [list, value] of [...sourceValues(latest), ...visitorValues(item)]) {
      if (value !== null) rollups.dim(site, ts, list, value, 0, 1);
    }
    return;
  }
  const isNew = latest === null;
  const earlier = isNew ? [] : earlierSources(db, site, visitor).map(sourceValues);
  const session = startSession(db, item, event);
  rollups.total(site, ts, { visitors: isNew ? 1 : 0, visits: 1, bounces: 1 });
  sourceValues(session).forEach(([list, value], i) => {
    if (value === null) return;
    const seen = earlier.some((values) => values[i]![1] === value);
    rollups.dim(site, ts, list, value, seen ? 0 : 1, 1);
  });
  for (const [list, value] of visitorValues(item)) {
    if (value !== null) rollups.dim(site, ts, list, value, isNew ? 1 : 0, 1);
  }
}

/**
 * Engaged time adds to the visit going on (and to the totals of the hour and day it started in); it
 * may end its bounce. A visit is going on if it was less than 30 idle minutes old when the engaged
 * time began (a long read sends its time at the end), and the report moves its `lastAt`, so the view
 * of the same navigation that follows continues it too. After midnight UTC, the visit may be one
 * begun under the visitor's id of the day before (`dayBeforeVisitor`) and still going by the same rule:
 * each engagement that continues it moves its `lastAt` past midnight. Without a visit it adds to
 * nothing. Web Vitals count either way.
 */
function applyEngagement(
  { db, rollups }: Batch,
  today: TrackerItem,
  event: Event<'engage'>,
  todays: Session | null,
): void {
  let item = today;
  let latest = todays;
  if (!continues(latest, item.ts, event.engagedMs) && today.dayBeforeVisitor !== undefined) {
    const before = latestSession(db, today.site, today.dayBeforeVisitor);
    if (continues(before, today.ts, event.engagedMs)) {
      item = { ...today, visitor: today.dayBeforeVisitor };
      latest = before;
    }
  }
  if (continues(latest, item.ts, event.engagedMs)) {
    const bounced = isBouncing(latest.views, latest.engagedMs);
    latest.engagedMs += event.engagedMs;
    latest.lastAt = Math.max(latest.lastAt, item.ts);
    updateSession(db, item, latest);
    const stillBouncing = isBouncing(latest.views, latest.engagedMs);
    rollups.total(item.site, latest.startedAt, {
      engagedMs: event.engagedMs,
      bounces: bounced && !stillBouncing ? -1 : 0,
    });
  }
  countVitals(db, rollups, { ...item, vitals: event.vitals });
}

/** An error counts in its group; it keeps the visit going on alive but starts none. */
function applyError(
  { db, errors }: Batch,
  item: TrackerItem,
  event: Event<'error'>,
  latest: Session | null,
): void {
  if (continues(latest, item.ts) && item.ts > latest.lastAt) {
    latest.lastAt = item.ts;
    updateSession(db, item, latest);
  }
  errors.add({ site: item.site, ts: item.ts, ...event });
}
