-- When mon itself ran: one row per start; `alive_at` moves on every minute and at a clean stop. From a
-- row's alive_at to the next row's started_at mon was not running: reads show that time as no data.
CREATE TABLE mon_running (
  id INTEGER PRIMARY KEY,
  started_at INTEGER NOT NULL,
  alive_at INTEGER NOT NULL
) STRICT;
