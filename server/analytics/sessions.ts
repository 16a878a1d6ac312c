import type { DatabaseSync } from 'node:sqlite';
import { MINUTE } from '../../protocol/durations.ts';
import { all, int, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { TrackerItem } from './types.ts';

/**
 * Visits (sessions, `analytics_sessions`): a visitor's events within 30 idle minutes of each other
 * are one visit. A visit bounces while it has one page view and less than 10 s of engagement.
 */
export const SESSION_IDLE_MS = 30 * MINUTE;
/** Engaged time from which a one-page visit no longer bounces. */
export const ENGAGED_VISIT_MS = 10_000;

export function isBouncing(views: number, engagedMs: number): boolean {
  return views <= 1 && engagedMs < ENGAGED_VISIT_MS;
}

/** A visit of one visitor of one site (whose events the caller has), known by when it started. */
export type Session = {
  startedAt: number;
  lastAt: number;
  views: number;
  engagedMs: number;
  referrer: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
};

const sessionRow = mapper({
  startedAt: int,
  lastAt: int,
  views: int,
  engagedMs: int,
  referrer: nullable(text),
  utmSource: nullable(text),
  utmMedium: nullable(text),
  utmCampaign: nullable(text),
});

/** The visitor's latest visit (one seek: the table is in visitor order), or null for a visitor new today. */
export function latestSession(db: DatabaseSync, site: string, visitor: string): Session | null {
  const session = one(
    db,
    `SELECT started_at, last_at, views, engaged_ms, referrer, utm_source, utm_medium, utm_campaign
     FROM analytics_sessions WHERE site = ? AND visitor = ? ORDER BY started_at DESC LIMIT 1`,
    sessionRow,
    site,
    visitor,
  );
  return session ?? null;
}

/**
 * Whether `session` is still going at `ts` (an event within 30 idle minutes). An engagement report
 * passes its `engagedMs`: the tracker sends it only when the page is hidden or the path changes, so
 * the visitor was on the page since `ts - engagedMs`, and a long read keeps its visit.
 */
export function continues(session: Session | null, ts: number, engagedMs = 0): session is Session {
  return session !== null && ts - engagedMs - session.lastAt <= SESSION_IDLE_MS;
}

const sourceRow = mapper({
  referrer: nullable(text),
  utmSource: nullable(text),
  utmMedium: nullable(text),
  utmCampaign: nullable(text),
});

/** Where the visitor's earlier visits came from (a visitor id lasts a day: these are today's). */
export function earlierSources(db: DatabaseSync, site: string, visitor: string) {
  return all(
    db,
    'SELECT referrer, utm_source, utm_medium, utm_campaign FROM analytics_sessions WHERE site = ? AND visitor = ?',
    sourceRow,
    site,
    visitor,
  );
}

/** Starts a visit at a page view; returns it. */
export function startSession(
  db: DatabaseSync,
  item: TrackerItem,
  { referrer, utm }: Extract<TrackerItem['event'], { kind: 'view' }>,
): Session {
  statement(
    db,
    `INSERT INTO analytics_sessions (site, visitor, started_at, last_at, views, engaged_ms, entry_page, referrer,
       utm_source, utm_medium, utm_campaign, country, device, browser, os)
     VALUES (?, ?, ?, ?, 1, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    item.site,
    item.visitor,
    item.ts,
    item.ts,
    item.page,
    referrer,
    utm.source,
    utm.medium,
    utm.campaign,
    item.country,
    item.device,
    item.browser,
    item.os,
  );
  return {
    startedAt: item.ts,
    lastAt: item.ts,
    views: 1,
    engagedMs: 0,
    referrer,
    utmSource: utm.source,
    utmMedium: utm.medium,
    utmCampaign: utm.campaign,
  };
}

/** Writes a continuing visit's new counts; `lastAt` only moves forward. */
export function updateSession(db: DatabaseSync, item: TrackerItem, session: Session): void {
  statement(
    db,
    `UPDATE analytics_sessions SET last_at = max(last_at, ?), views = ?, engaged_ms = ?
     WHERE site = ? AND visitor = ? AND started_at = ?`,
  ).run(session.lastAt, session.views, session.engagedMs, item.site, item.visitor, session.startedAt);
}
