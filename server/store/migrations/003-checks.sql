-- Services: named groups of checks. `managed` = defined in mon.toml.
CREATE TABLE services (
  name TEXT PRIMARY KEY,
  managed INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;

-- Checks and heartbeats. `body` is the check body as given (JSON); status fields are the engine's state.
CREATE TABLE checks (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  service TEXT NOT NULL REFERENCES services(name),
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  managed INTEGER NOT NULL DEFAULT 0,
  host_defined INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'unknown',
  since INTEGER,
  fail_streak INTEGER NOT NULL DEFAULT 0,
  ok_streak INTEGER NOT NULL DEFAULT 0,
  ok_since INTEGER,
  last_run_at INTEGER,
  last_latency_ms REAL,
  last_detail TEXT,
  last_value REAL,
  expiry_kind TEXT,
  expiry_expires INTEGER,
  expiry_seen INTEGER,
  expiry_state TEXT,
  -- Heartbeats: SHA-256 of the ping token; `ping_token_file` = the token comes from mon.toml.
  ping_token_hash TEXT UNIQUE,
  ping_token_file INTEGER NOT NULL DEFAULT 0,
  ping_urls_made INTEGER NOT NULL DEFAULT 0,
  last_ping_at INTEGER,
  started_at INTEGER
) STRICT;
CREATE INDEX checks_by_service ON checks(service);

-- Raw runs: up runs kept briefly, failed and degraded runs per [retention] check_results.
CREATE TABLE check_runs (
  check_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  status TEXT NOT NULL,
  latency_ms REAL,
  detail TEXT NOT NULL,
  value REAL
) STRICT;
CREATE INDEX check_runs_by_check ON check_runs(check_id, ts);
CREATE INDEX check_runs_failures ON check_runs(check_id, ts) WHERE status != 'up';

-- Rollups: res m (1 min), t (10 min), h (1 hour), d (1 day); `hist` is a JSON object of latency bins.
CREATE TABLE check_rollups (
  check_id TEXT NOT NULL,
  res TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  up INTEGER NOT NULL,
  down INTEGER NOT NULL,
  degraded INTEGER NOT NULL,
  lat_count INTEGER NOT NULL,
  lat_sum REAL NOT NULL,
  value_count INTEGER NOT NULL,
  value_sum REAL NOT NULL,
  hist TEXT NOT NULL,
  PRIMARY KEY (check_id, res, bucket)
) STRICT, WITHOUT ROWID;
CREATE INDEX check_rollups_by_age ON check_rollups(res, bucket);

-- Status, expiry and service changes of a check; kept as long as the check.
CREATE TABLE check_changes (
  id INTEGER PRIMARY KEY,
  check_id TEXT NOT NULL,
  service TEXT NOT NULL,
  ts INTEGER NOT NULL,
  status TEXT,
  title TEXT NOT NULL,
  detail TEXT NOT NULL
) STRICT;
CREATE INDEX check_changes_by_check ON check_changes(check_id, ts);
