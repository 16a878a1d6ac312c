-- The watchdog: requests mon sends so that something outside notices when mon itself is down. `kind`
-- is `edge` (a URL and a bearer token) or `heartbeat` (a URL pinged periodically). Rows hold what was
-- set through the API; mon.toml's `[watchdog]` settings are in the configuration, and their send
-- state is kept here too (`managed` = 1).
CREATE TABLE watchdog (
  kind TEXT PRIMARY KEY CHECK (kind IN ('edge', 'heartbeat')),
  url TEXT,
  token TEXT,
  managed INTEGER NOT NULL DEFAULT 0,
  last_sent_at INTEGER,
  last_error TEXT,
  last_error_at INTEGER
) STRICT;
