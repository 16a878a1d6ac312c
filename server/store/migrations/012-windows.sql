-- Silences (notifications muted) and maintenance windows (muted, and the scope is marked as in
-- maintenance: incidents opened inside it notify nobody, uptime leaves its time out). `scope` is `all`,
-- `service` or `host`; `name` is null for `all`. Times in ms; a window must end after it starts, end
-- in the future when saved, and last at most 90 days.
CREATE TABLE windows (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('silence', 'maintenance')),
  scope TEXT NOT NULL CHECK (scope IN ('all', 'service', 'host')),
  name TEXT,
  starts INTEGER NOT NULL,
  ends INTEGER NOT NULL,
  reason TEXT,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX windows_by_end ON windows(kind, ends);
