-- Web analytics and JavaScript errors (docs/analytics.md).

-- Sites added by the API (POST /api/v1/sites); mon.toml's `[[service]] sites` are the others.
CREATE TABLE sites (
  domain TEXT PRIMARY KEY,
  service TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

-- The random salt of each UTC day (`day` = its first ms) that visitor ids are hashed with; deleted
-- 48 hours after the day began, so yesterday's visitors cannot be told from today's.
CREATE TABLE analytics_salts (
  day INTEGER PRIMARY KEY,
  salt BLOB NOT NULL
) STRICT;

-- Raw data, kept for RAW_RETENTION (server/analytics/retention.ts), stored in visitor order (WITHOUT
-- ROWID): every tracker event looks up its visitor's latest visit and page views, and one B-tree seek
-- finds the whole row.

-- A visit (session): a visitor's events within 30 idle minutes (server/analytics/sessions.ts). A visitor
-- id lasts one UTC day, so a visitor's visits never overlap and the latest started is the latest.
CREATE TABLE analytics_sessions (
  site TEXT NOT NULL,
  -- keyed hash of site, address and user agent with the day's salt
  visitor TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  views INTEGER NOT NULL,
  engaged_ms INTEGER NOT NULL,
  entry_page TEXT NOT NULL,
  referrer TEXT,
  utm_source TEXT,
  utm_medium TEXT,
  utm_campaign TEXT,
  country TEXT,
  device TEXT NOT NULL,
  browser TEXT NOT NULL,
  os TEXT NOT NULL,
  PRIMARY KEY (site, visitor, started_at)
) STRICT, WITHOUT ROWID;
-- For pruning by age (server/analytics/housekeeping.ts).
CREATE INDEX analytics_sessions_by_start ON analytics_sessions (started_at);
-- A site's visits by start, for the visitors during an incident (server/analytics/series.ts). Visits
-- are indexed once, when they start: `started_at` never changes.
CREATE INDEX analytics_sessions_by_site_start ON analytics_sessions (site, started_at);

-- A page view. `vitals`: the Web Vitals reported for the view (JSON, metric → histogram bucket of
-- server/analytics/vitals.ts): the tracker sends them once per page load, with its first engagement
-- event; should a second report reach the same view, it replaces the first. A view of one page by one
-- visitor in a millisecond already taken takes the nearest free one in its hour. No index by time: a
-- visitor's views go with their visits (server/analytics/housekeeping.ts).
CREATE TABLE analytics_views (
  site TEXT NOT NULL,
  visitor TEXT NOT NULL,
  page TEXT NOT NULL,
  ts INTEGER NOT NULL,
  vitals TEXT,
  PRIMARY KEY (site, visitor, page, ts)
) STRICT, WITHOUT ROWID;

-- Rollups: `res` is 'h' (hour buckets, kept for RAW_RETENTION) or 'd' (UTC days, kept for good);
-- `at` is the bucket's first ms. Counts are added as events arrive, so reads never scan raw rows.
CREATE TABLE analytics_totals (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  -- visitors first seen that day, counted in the bucket of their first event
  visitors INTEGER NOT NULL DEFAULT 0,
  views INTEGER NOT NULL DEFAULT 0,
  -- visits started in the bucket, those of them that bounced so far, and their engaged time
  visits INTEGER NOT NULL DEFAULT 0,
  bounces INTEGER NOT NULL DEFAULT 0,
  engaged_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site, res, at)
) STRICT, WITHOUT ROWID;

-- `list` is one of protocol/analytics.ts analyticsLists.
CREATE TABLE analytics_dims (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  list TEXT NOT NULL,
  value TEXT NOT NULL,
  visitors INTEGER NOT NULL DEFAULT 0,
  views INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site, res, at, list, value)
) STRICT, WITHOUT ROWID;

-- Web Vitals as mergeable histograms (server/analytics/vitals.ts buckets); `page` '' is every page.
CREATE TABLE analytics_vitals (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  page TEXT NOT NULL,
  metric TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (site, res, at, page, metric, bucket)
) STRICT, WITHOUT ROWID;

-- JavaScript error groups: one per site and fingerprint (server/analytics/fingerprint.ts).
CREATE TABLE js_error_groups (
  id INTEGER PRIMARY KEY,
  site TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  type TEXT NOT NULL,
  message TEXT NOT NULL,
  script TEXT,
  line INTEGER,
  col INTEGER,
  count INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  UNIQUE (site, fingerprint)
) STRICT;
CREATE INDEX js_error_groups_by_last_seen ON js_error_groups (site, last_seen);

CREATE TABLE js_error_counts (
  group_id INTEGER NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (group_id, res, at)
) STRICT, WITHOUT ROWID;
-- Hourly error counts are deleted with the other raw data (server/analytics/housekeeping.ts).
CREATE INDEX js_error_counts_by_time ON js_error_counts (res, at);
