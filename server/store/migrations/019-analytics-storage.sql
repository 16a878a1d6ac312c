-- Web Vitals of a page view as last reported (JSON, metric → histogram bucket, server/analytics/vitals.ts):
-- the tracker reports them each time the page is hidden, and only the last report of a view counts.
ALTER TABLE analytics_views ADD COLUMN vitals TEXT;

-- Hourly error counts are deleted with the other raw data (server/analytics/housekeeping.ts).
CREATE INDEX js_error_counts_by_time ON js_error_counts (res, at);
