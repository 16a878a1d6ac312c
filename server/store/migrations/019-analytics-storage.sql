-- Raw analytics tables stored in visitor order (WITHOUT ROWID): every tracker event looks up its
-- visitor's latest visit and page views, and one B-tree seek then finds the whole row, where a rowid
-- table with an index by visitor took two and updated the index at each event.

-- A visit (session): a visitor's events within 30 idle minutes (server/analytics/sessions.ts). A visitor
-- id lasts one UTC day, so a visitor's visits never overlap and the latest started is the latest.
CREATE TABLE analytics_sessions_new (
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
INSERT OR IGNORE INTO analytics_sessions_new
  SELECT site, visitor, started_at, last_at, views, engaged_ms, entry_page, referrer, utm_source, utm_medium,
    utm_campaign, country, device, browser, os
  FROM analytics_sessions;
DROP TABLE analytics_sessions;
ALTER TABLE analytics_sessions_new RENAME TO analytics_sessions;
CREATE INDEX analytics_sessions_by_start ON analytics_sessions (started_at);

-- A page view. `vitals`: the Web Vitals reported for the view (JSON, metric → histogram bucket of
-- server/analytics/vitals.ts): the tracker sends them once per page load, with its first engagement
-- event; should a second report reach the same view, it replaces the first. Two views of one page by one visitor in the same millisecond are one. No
-- index by time: a visitor's views go with their visits (server/analytics/housekeeping.ts).
CREATE TABLE analytics_views_new (
  site TEXT NOT NULL,
  visitor TEXT NOT NULL,
  page TEXT NOT NULL,
  ts INTEGER NOT NULL,
  vitals TEXT,
  PRIMARY KEY (site, visitor, page, ts)
) STRICT, WITHOUT ROWID;
INSERT OR IGNORE INTO analytics_views_new SELECT site, visitor, page, ts, NULL FROM analytics_views;
DROP TABLE analytics_views;
ALTER TABLE analytics_views_new RENAME TO analytics_views;

-- Hourly error counts are deleted with the other raw data (server/analytics/housekeeping.ts).
CREATE INDEX js_error_counts_by_time ON js_error_counts (res, at);
