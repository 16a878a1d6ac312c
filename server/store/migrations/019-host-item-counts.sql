-- What the hosts list (`GET /api/v1/hosts`) shows of each host's containers and units, kept by ingest in
-- the job that writes the items (server/hosts/item-counts.ts), so that the list reads a row per host,
-- not every item: containers and units not gone, and how many of them are discovered items (of no
-- service, not dismissed). `membership` is what the discovered count was made under (the services, and
-- the host's links to them): when it no longer matches, the list counts the host's items itself until
-- the host's next sample stores a new count.
CREATE TABLE host_item_counts (
  host TEXT PRIMARY KEY,
  containers INTEGER NOT NULL,
  units INTEGER NOT NULL,
  discovered INTEGER NOT NULL,
  membership TEXT NOT NULL
) STRICT, WITHOUT ROWID;
