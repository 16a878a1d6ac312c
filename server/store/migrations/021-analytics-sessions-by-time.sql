-- A site's visits by start, for the visitors during an incident (server/analytics/series.ts): without
-- it, and without statistics, SQLite reads all the site's visits along the primary key. Visits are
-- indexed once, when they start: `started_at` never changes.
CREATE INDEX analytics_sessions_by_site_start ON analytics_sessions (site, started_at);
