-- Hosts removed (`DELETE /api/v1/hosts/{name}`, docs/hosts.md) whose series, events and logs are still
-- being deleted: the removal job deletes the host's row, token, alerts, links and items, then these
-- rows go in chunks (server/hosts/remove.ts); a crash midway is finished by the next housekeeping pass.
-- While a name is here it cannot be added again (409), so a host added again starts afresh.
CREATE TABLE hosts_removed (
  name TEXT PRIMARY KEY,
  removed_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
