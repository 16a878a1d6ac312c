-- Sites removed (`DELETE /api/v1/sites/{domain}`, docs/analytics.md "Removing a site") whose analytics
-- data is still being deleted: the removal job deletes the `sites` row, then the site's rows go in
-- chunks (server/analytics/site-removal.ts); a crash midway is finished at start or by the next
-- housekeeping pass. While a domain is here it cannot be added again (409), so a site added again
-- starts afresh.
CREATE TABLE sites_removed (
  domain TEXT PRIMARY KEY,
  removed_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
