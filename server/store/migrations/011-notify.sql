-- Notification channels made in the panel or the API. `[[alert]]` channels of mon.toml live in the
-- configuration, not here; the two share one namespace of names. `settings` is the JSON of the
-- channel's settings without its secret; `secret` is the ntfy token, webhook signing secret, Telegram
-- bot token or SMTP password (needed to send, so kept as given; the data directory is 0700).
CREATE TABLE channels (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  settings TEXT NOT NULL,
  secret TEXT,
  created_at INTEGER NOT NULL,
  created_by TEXT,
  updated_at INTEGER NOT NULL
) STRICT;

-- The outbox (DESIGN rule 5): one row per (incident change, channel), written in the transaction of
-- the change. `message_id` is the message's stable id (the webhook channel's `webhook-id`), the same
-- across retries. `message` is the JSON of the message as composed at the change, so a send after a
-- restart says what it would have said. `state`: `due` (waiting for `due_at`), `sent`, `failed` (a
-- permanent error, or retries gave up), `muted` (a silence or maintenance window held it back; kept
-- for the incident's deliveries), `dropped` (not sent: its channel was removed or replaced by one of
-- another kind, or a reminder was overtaken by an acknowledgement, the resolution, a silence or
-- maintenance). `held_by` is written with the muted row and kept when that window is deleted.
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL UNIQUE,
  incident TEXT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  channel TEXT NOT NULL,
  -- the channel's kind when the row was written (the channel may be gone by the time it is read)
  kind TEXT NOT NULL,
  -- opened, reminder, acknowledged, resolved
  change TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('due', 'sent', 'failed', 'muted', 'dropped')),
  due_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_attempt_at INTEGER,
  last_error TEXT,
  sent_at INTEGER,
  -- the silence or maintenance window that muted it
  held_by TEXT
) STRICT;
CREATE INDEX outbox_due ON outbox(due_at) WHERE state = 'due';
CREATE INDEX outbox_by_incident ON outbox(incident, id);

-- The message a channel's later changes about an incident edit or reply to, as the platform names it
-- (a Discord message id, a Telegram message id, an email Message-ID): the first it sent, or the one
-- sent anew when that was deleted. `kind` is the channel's kind then: a thread of another kind (the
-- channel replaced under the same name) is not used.
CREATE TABLE notify_threads (
  incident TEXT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  channel TEXT NOT NULL,
  kind TEXT NOT NULL,
  ref TEXT NOT NULL,
  PRIMARY KEY (incident, channel)
) STRICT;

-- When each open, unacknowledged incident was last reminded about (or opened): the reminder loop
-- reads it.
ALTER TABLE incidents ADD COLUMN reminded_at INTEGER;
