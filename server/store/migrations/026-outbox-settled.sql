-- Notifications no longer due (sent, failed, muted, dropped) by when they were made: housekeeping
-- deletes those past their time (notify/outbox.ts) along it, without reading the messages.
CREATE INDEX outbox_settled ON outbox(created_at) WHERE state <> 'due';
