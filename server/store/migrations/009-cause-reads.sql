-- Likely causes read the check changes of a service over a span (a dependency that went down) and the
-- expiry date a certificate or domain change recorded (an expiry that had taken effect when an incident
-- started, also after a later renewal).
ALTER TABLE check_changes ADD COLUMN expires INTEGER;
CREATE INDEX check_changes_by_service ON check_changes(service, ts);
CREATE INDEX check_changes_expiries ON check_changes(service, ts) WHERE expires IS NOT NULL;
-- The same version deployed to another service (counter-evidence against a deploy).
CREATE INDEX deploys_by_version ON deploys(version, ts);
