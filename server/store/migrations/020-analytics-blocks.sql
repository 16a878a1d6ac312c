-- Blocks of days (docs/analytics.md "How fast"): a read of a long range sums a few blocks of 2, 4, 8,
-- … 256 UTC days instead of every day. A block of n days starts on a day whose number since
-- 1970-01-01 is a multiple of n, so a run of whole days is at most two blocks of each length and two
-- single days (server/analytics/blocks.ts). Housekeeping writes a site's blocks once their days are
-- over, each from its two halves, one block at a time (server/analytics/block-writes.ts); they are
-- kept for good, like days.
-- Their rows go in the rollup tables beside the hours and days, `res` being the block's length ('2d'
-- to '256d'):
-- - analytics_vitals: the histograms over every page (`page = ''`), whole;
-- - js_error_counts: each error group's count, whole (deleted with the group);
-- - analytics_dims: the first BLOCK_VALUES values of each list, as the list ranks them (pages by
--   views, the others by visitors, ties by value); the values below are left out.

-- What a block's list rows leave out, for each list with values in the block (a list without a row
-- here has none in the block).
CREATE TABLE analytics_dim_blocks (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  at INTEGER NOT NULL,
  list TEXT NOT NULL,
  -- the list's rows in the days of the block: what reading the days instead costs
  day_rows INTEGER NOT NULL,
  -- 1 when the block's rows are every value of its days, with their whole counts
  complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
  PRIMARY KEY (site, res, at, list)
) STRICT, WITHOUT ROWID;

-- Which blocks of each site are written: every block of `res` within [since, until). `since` is the
-- site's first day with data when its blocks were first written, the same for every length.
CREATE TABLE analytics_blocks_written (
  site TEXT NOT NULL,
  res TEXT NOT NULL,
  since INTEGER NOT NULL,
  until INTEGER NOT NULL,
  PRIMARY KEY (site, res)
) STRICT, WITHOUT ROWID;
