-- Incidents: one per root event. Alerts of a service (and of services that depend on an incident's
-- services) join its open incident; it resolves when every alert in it has recovered.
CREATE TABLE incidents (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  -- the service whose alert opened it (null for an incident opened by a host alert)
  service TEXT,
  started_at INTEGER NOT NULL,
  acknowledged_at INTEGER,
  acknowledged_by TEXT,
  resolved_at INTEGER,
  -- opened inside a maintenance window of its service or host
  in_maintenance INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX incidents_open ON incidents(started_at) WHERE resolved_at IS NULL;
CREATE INDEX incidents_by_start ON incidents(started_at);
CREATE INDEX incidents_by_resolution ON incidents(resolved_at) WHERE resolved_at IS NOT NULL;

-- What is failing in an incident. `key` names the alert's subject: `check:<id>` today; hosts add
-- `host:<name>:<metric>`, containers `container:<host>:<name>`. `impact` = joined through
-- depends_on (a symptom of another service's incident).
CREATE TABLE incident_alerts (
  incident TEXT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  check_id TEXT,
  service TEXT,
  host TEXT,
  name TEXT NOT NULL,
  detail TEXT NOT NULL,
  impact INTEGER NOT NULL DEFAULT 0,
  opened_at INTEGER NOT NULL,
  recovered_at INTEGER,
  PRIMARY KEY (incident, key)
) STRICT;
CREATE INDEX incident_alerts_open ON incident_alerts(key) WHERE recovered_at IS NULL;
CREATE INDEX incident_alerts_by_check ON incident_alerts(check_id) WHERE check_id IS NOT NULL;

-- An incident's own timeline: opened, an alert joined or recovered, acknowledged, resolved, and later
-- the notifications sent. Deploys and changes are read from their tables for the incident's span.
CREATE TABLE incident_events (
  id INTEGER PRIMARY KEY,
  incident TEXT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  detail TEXT,
  check_id TEXT,
  service TEXT,
  host TEXT,
  by TEXT,
  url TEXT
) STRICT;
CREATE INDEX incident_events_by_incident ON incident_events(incident, ts);
