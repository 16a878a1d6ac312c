-- File checks taken out of mon.toml, kept for a day so that putting one back under its name restores
-- it with its id and history: the row as it was in `checks` (same columns) and when it was removed.
-- Its runs, rollups and changes stay under its id meanwhile. A column added to `checks` is added here
-- too (server/checks/removed.ts copies rows column by column; its test compares the tables).
CREATE TABLE removed_checks (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  service TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  managed INTEGER NOT NULL,
  host_defined INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  since INTEGER,
  fail_streak INTEGER NOT NULL,
  ok_streak INTEGER NOT NULL,
  ok_since INTEGER,
  last_run_at INTEGER,
  last_latency_ms REAL,
  last_detail TEXT,
  last_value REAL,
  expiry_kind TEXT,
  expiry_expires INTEGER,
  expiry_seen INTEGER,
  expiry_state TEXT,
  ping_token_hash TEXT,
  ping_token_file INTEGER NOT NULL,
  ping_urls_made INTEGER NOT NULL,
  last_ping_at INTEGER,
  started_at INTEGER,
  expected_at INTEGER,
  removed_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX removed_checks_by_name ON removed_checks(name);
CREATE INDEX removed_checks_by_age ON removed_checks(removed_at);
