-- The last batch ids of each host's agent (`batch` of `POST /agent/v1/frames`, at most 256 per host,
-- `seq` counting up per host): a batch sent again after its answer was lost is answered as stored and
-- stored once.
CREATE TABLE agent_batches (
  host TEXT NOT NULL,
  batch TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (host, batch)
) STRICT, WITHOUT ROWID;
CREATE INDEX agent_batches_by_seq ON agent_batches(host, seq);

-- How far ahead of the server's clock the newest frame of the host's last batch was dated (0 when
-- not ahead): a host clock more than 5 minutes ahead is shown with its agent and logged.
ALTER TABLE hosts ADD COLUMN clock_ahead_ms INTEGER;

-- Items gone are forgotten after a day: the hourly pruning finds them by this.
CREATE INDEX host_items_gone ON host_items(gone_at) WHERE gone_at IS NOT NULL;
