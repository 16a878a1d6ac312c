-- Who made each host's current token (docs/hosts.md): `admin`, a signed-in admin (the panel); `api`, an
-- API token. The agent of a host whose token an API token made is sent the values of only the variables
-- `[checks] api_env` lists, as checks made through the API may use: otherwise any `write` token could
-- give a host of mon.toml a new token and read what its checks' `${NAME}` references hold. Tokens made
-- before this column are `api`: nothing says who made them (a `write` token since revoked leaves no
-- row), and an admin makes a token again in the panel in a moment, while one an intruder made would
-- keep reading secrets.
ALTER TABLE hosts ADD COLUMN token_by TEXT NOT NULL DEFAULT 'api' CHECK (token_by IN ('admin', 'api'));
