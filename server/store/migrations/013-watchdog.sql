-- The watchdog: requests mon sends so that something outside notices when mon itself is down. `kind`
-- is `edge` (a URL and a bearer token) or `heartbeat` (a URL pinged periodically). A row with
-- `managed` = 0 is a target set through the API, with its URL and token (needed to send, so kept as
-- given; the data directory is 0700). A row with `managed` = 1 holds only the send state of the
-- target mon.toml's `[watchdog]` sets: the file's URL and token never reach the database.
CREATE TABLE watchdog (
  kind TEXT PRIMARY KEY CHECK (kind IN ('edge', 'heartbeat')),
  url TEXT,
  token TEXT,
  allow_private INTEGER NOT NULL DEFAULT 0,
  managed INTEGER NOT NULL DEFAULT 0,
  last_sent_at INTEGER,
  last_error TEXT,
  last_error_at INTEGER,
  CHECK (managed = 1 OR url IS NOT NULL),
  CHECK (managed = 0 OR (url IS NULL AND token IS NULL))
) STRICT;
