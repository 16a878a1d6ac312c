-- Sites with analytics data that mon.toml stopped naming (and that were not added through the API),
-- with when mon first saw each unlisted (docs/analytics.md "Removing a site"): their data goes 35 days
-- after that, not after their last day with data, so that a start without the file's configuration
-- cannot make old data of quiet sites look due. Cleared once a site is named again
-- (server/analytics/site-unlisted.ts).
CREATE TABLE sites_unlisted (
  domain TEXT PRIMARY KEY,
  since INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
