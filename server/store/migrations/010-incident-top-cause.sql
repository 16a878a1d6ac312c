-- The first likely cause of an incident as ranked at its last change (JSON of a Cause, or NULL when none
-- was found), so that lists show it without ranking every incident again.
ALTER TABLE incidents ADD COLUMN top_cause TEXT;
