-- Hosts (docs/hosts.md): a row per host added through the API (`POST /api/v1/hosts`), named by mon.toml
-- (`[[host]]`, `[[service]] hosts`) once it is referenced, or whose agent connected. `token_hash` is the
-- SHA-256 (hex) of its `bth_` token; `alerts` the thresholds set through the API (JSON, null = defaults;
-- a `[[host]]` table wins); `agent` the agent's last hello (JSON); `latest` its latest sample (JSON, the
-- host page's "now"); `last_seen` the last frame; `silent_since` set while its agent is silent;
-- `declared` the last `declare` frame (JSON: checks.toml's command checks and problems).
CREATE TABLE hosts (
  name TEXT PRIMARY KEY,
  token_hash TEXT UNIQUE,
  created_at INTEGER NOT NULL,
  alerts TEXT,
  agent TEXT,
  latest TEXT,
  first_seen INTEGER,
  last_seen INTEGER,
  silent_since INTEGER,
  declared TEXT
) STRICT;

-- Host metric rollups: res m (1 min), t (10 min), h (1 hour), d (1 day), as check rollups. For each
-- metric, `<m>_n` samples with a value, their sum and their maximum (null while n = 0). Percent for cpu,
-- memory, swap, disk (the fullest not ignored) and temperature (°C, the hottest); bytes per second for
-- disk_read, disk_write, net_rx, net_tx; load averages as they are.
CREATE TABLE host_rollups (
  host TEXT NOT NULL,
  res TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  cpu_n INTEGER NOT NULL DEFAULT 0, cpu_sum REAL NOT NULL DEFAULT 0, cpu_max REAL,
  memory_n INTEGER NOT NULL DEFAULT 0, memory_sum REAL NOT NULL DEFAULT 0, memory_max REAL,
  swap_n INTEGER NOT NULL DEFAULT 0, swap_sum REAL NOT NULL DEFAULT 0, swap_max REAL,
  disk_n INTEGER NOT NULL DEFAULT 0, disk_sum REAL NOT NULL DEFAULT 0, disk_max REAL,
  disk_read_n INTEGER NOT NULL DEFAULT 0, disk_read_sum REAL NOT NULL DEFAULT 0, disk_read_max REAL,
  disk_write_n INTEGER NOT NULL DEFAULT 0, disk_write_sum REAL NOT NULL DEFAULT 0, disk_write_max REAL,
  net_rx_n INTEGER NOT NULL DEFAULT 0, net_rx_sum REAL NOT NULL DEFAULT 0, net_rx_max REAL,
  net_tx_n INTEGER NOT NULL DEFAULT 0, net_tx_sum REAL NOT NULL DEFAULT 0, net_tx_max REAL,
  load1_n INTEGER NOT NULL DEFAULT 0, load1_sum REAL NOT NULL DEFAULT 0, load1_max REAL,
  load5_n INTEGER NOT NULL DEFAULT 0, load5_sum REAL NOT NULL DEFAULT 0, load5_max REAL,
  load15_n INTEGER NOT NULL DEFAULT 0, load15_sum REAL NOT NULL DEFAULT 0, load15_max REAL,
  temperature_n INTEGER NOT NULL DEFAULT 0, temperature_sum REAL NOT NULL DEFAULT 0, temperature_max REAL,
  PRIMARY KEY (host, res, bucket)
) STRICT, WITHOUT ROWID;
CREATE INDEX host_rollups_by_age ON host_rollups(res, bucket);

-- Containers and systemd units as last seen (`kind` container or unit; `name` without a leading slash).
-- `first_seen` for discovered items; `gone_at` once a sample no longer lists it (kept a day, then
-- deleted). For containers: `image`, `image_id`, `health`, `exit_code`, `oom_killed`, `started_at`,
-- `labels` (JSON); for units: `sub_state`. `cpu` percent of one CPU, `memory` bytes.
CREATE TABLE host_items (
  host TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('container', 'unit')),
  name TEXT NOT NULL,
  id TEXT NOT NULL,
  state TEXT NOT NULL,
  sub_state TEXT,
  health TEXT,
  restarts INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER,
  oom_killed INTEGER NOT NULL DEFAULT 0,
  image TEXT,
  image_id TEXT,
  started_at INTEGER,
  labels TEXT,
  cpu REAL,
  memory REAL,
  first_seen INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  gone_at INTEGER,
  PRIMARY KEY (host, kind, name)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX host_items_by_id ON host_items(id);

-- Container and unit rollups (res m, t, h, d): CPU percent of one CPU, memory bytes; mean and maximum.
CREATE TABLE item_rollups (
  host TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  res TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  cpu_n INTEGER NOT NULL DEFAULT 0, cpu_sum REAL NOT NULL DEFAULT 0, cpu_max REAL,
  mem_n INTEGER NOT NULL DEFAULT 0, mem_sum REAL NOT NULL DEFAULT 0, mem_max REAL,
  PRIMARY KEY (host, kind, name, res, bucket)
) STRICT, WITHOUT ROWID;
CREATE INDEX item_rollups_by_age ON item_rollups(res, bucket);

-- What happened on a host that may explain an incident (likely-cause evidence, not alerts): a container
-- restarted (`restart`) or was killed for memory (`oom`), a unit failed (`unit_failed`) or restarted
-- (`unit_restart`), a threshold crossed (`threshold`: cpu, memory, swap, disk, temperature), the agent
-- went silent (`silent`). `subject` is the container, unit or metric; `service` the item's service.
CREATE TABLE host_events (
  id INTEGER PRIMARY KEY,
  host TEXT NOT NULL,
  ts INTEGER NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  service TEXT,
  detail TEXT NOT NULL
) STRICT;
CREATE INDEX host_events_by_ts ON host_events(ts);
CREATE INDEX host_events_by_host ON host_events(host, ts);

-- Host alert states: `key` as in incident_alerts (`host:<name>:<metric>`, `container:<host>:<name>`,
-- `agent:<host>`); `above_since` when the value first went over its limit (the alert fires 5 minutes
-- later, a full disk at once); `failing_since` while the alert fails; `value` the latest value.
CREATE TABLE host_alert_states (
  host TEXT NOT NULL,
  key TEXT NOT NULL,
  above_since INTEGER,
  failing_since INTEGER,
  value REAL,
  detail TEXT,
  PRIMARY KEY (host, key)
) STRICT, WITHOUT ROWID;

-- The agent's recent log lines (for incidents); kept 7 days and at most 10,000 lines per host.
CREATE TABLE agent_logs (
  id INTEGER PRIMARY KEY,
  host TEXT NOT NULL,
  ts INTEGER NOT NULL,
  level TEXT NOT NULL,
  text TEXT NOT NULL
) STRICT;
CREATE INDEX agent_logs_by_host ON agent_logs(host, ts);

-- Hosts linked to a service through the API (`POST /api/v1/discovered/monitor`); mon.toml's
-- `[[service]] hosts` are read from the file.
CREATE TABLE service_hosts (
  service TEXT NOT NULL,
  host TEXT NOT NULL,
  PRIMARY KEY (service, host)
) STRICT, WITHOUT ROWID;

-- Discovered items dismissed (`POST /api/v1/discovered/dismiss`): the id of the host_items row.
CREATE TABLE discovered_dismissed (
  id TEXT PRIMARY KEY,
  dismissed_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
