-- While a threshold alert fails: how many samples in a row came without its value (two recover it:
-- swap turned off, a sensor gone, every filesystem ignored). A container's alert keeps 0 here; its JSON
-- in `container` also keeps when it last started, its image id and since when it is missing from the
-- samples (server/hosts/container-alerts.ts).
ALTER TABLE host_alert_states ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;
