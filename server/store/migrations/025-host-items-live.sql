-- A host's items not gone: what each sample compares itself with (hosts/items.ts) and the host page
-- lists. A host whose containers and units come and go (a CI runner: thousands a day, each kept a day
-- once gone) reads its live ones along this, not the day's; the reads name it (INDEXED BY), as
-- without statistics SQLite would walk the host's primary key, gone rows included.
CREATE INDEX host_items_live ON host_items(host) WHERE gone_at IS NULL;
