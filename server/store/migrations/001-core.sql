-- Key-value state of the process itself (setup token spent, instance settings).
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
