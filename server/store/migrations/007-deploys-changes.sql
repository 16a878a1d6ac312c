-- Deploys: a new version of a service went live. `id` is the event_id the deploy API answers. `ts` is
-- when the first report arrived; reports of the same service and version within 2 minutes merge into
-- it (`sources` lists every source that reported it, comma-separated, first first).
CREATE TABLE deploys (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  version TEXT NOT NULL,
  ts INTEGER NOT NULL,
  by TEXT,
  url TEXT,
  description TEXT,
  -- api, codehost or agent; `host` is set for agent deploys (a container started from a new image).
  source TEXT NOT NULL,
  sources TEXT NOT NULL,
  host TEXT
) STRICT;
CREATE INDEX deploys_by_service ON deploys(service, ts);
CREATE INDEX deploys_by_time ON deploys(ts);

-- Changes: anything else that changed (a migration, a configuration or DNS change, a code-host push).
-- Bound to a service, a host, both, or neither (then every incident of its time may name it).
CREATE TABLE changes (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  -- change (POST /api/changes) or push (a code-host push: code on its way, not yet live)
  kind TEXT NOT NULL CHECK (kind IN ('change', 'push')),
  what TEXT NOT NULL,
  service TEXT,
  host TEXT,
  by TEXT,
  url TEXT,
  description TEXT,
  source TEXT NOT NULL
) STRICT;
CREATE INDEX changes_by_time ON changes(ts);
CREATE INDEX changes_by_service ON changes(service, ts) WHERE service IS NOT NULL;
