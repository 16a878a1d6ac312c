-- What a container alert keeps across samples (server/hosts/container-alerts.ts), beside the columns
-- of host_alert_states it shares with thresholds (for a container: `above_since` when it turned
-- unhealthy, `value` its restart count as last seen): JSON {id, service, restartTimes}, the container's
-- id and service, and when it restarted within the last 10 minutes.
ALTER TABLE host_alert_states ADD COLUMN container TEXT;
