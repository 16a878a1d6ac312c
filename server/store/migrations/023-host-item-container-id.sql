-- The Engine API's id of the container a `host_items` row last saw (NULL for units, and for rows stored
-- before this column): a restart is judged by one rule for alerts and host events
-- (hosts/container-alerts.ts `restartsSince`), and a new container under the same name counts its own
-- restarts from 0.
ALTER TABLE host_items ADD COLUMN container_id TEXT;
