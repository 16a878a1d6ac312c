-- How many values (at least) each list has in an hour or a UTC day (`res` 'h' or 'd'), so that
-- storing events keeps at most a number of them (server/analytics/value-caps.ts): those beyond add to
-- the list's `(other)` row, which is not counted here. Only periods that can still get events need a count:
-- housekeeping deletes those that began more than two days ago.
CREATE TABLE analytics_dim_values (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  list TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (site, res, at, list)
) STRICT, WITHOUT ROWID;

-- The periods of the last two days, site by site along the primary key (sites from the totals, a
-- small table): older ones get no more events.
INSERT INTO analytics_dim_values (site, res, at, list, n)
SELECT d.site, d.res, d.at, d.list, count(*)
FROM (SELECT DISTINCT site FROM analytics_totals) AS s
  CROSS JOIN analytics_dims AS d
  ON d.site = s.site AND d.res IN ('h', 'd') AND d.at >= (unixepoch('now') - 2 * 86400) * 1000
WHERE d.value <> '(other)'
GROUP BY d.site, d.res, d.at, d.list;
