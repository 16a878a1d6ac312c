-- Heartbeats: the time the next ping is expected, kept so that a restart neither records a miss again
-- nor moves the schedule (null: computed from the last ping or creation).
ALTER TABLE checks ADD COLUMN expected_at INTEGER;
