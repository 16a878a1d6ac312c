-- Accounts. `password` is an argon2id PHC string, or NULL for accounts that sign in only through
-- OpenID Connect or forward auth. `source` says how the account came to be: setup, admin, oidc:<name>, proxy.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
  password TEXT,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_sign_in_at INTEGER
) STRICT;

-- Sessions by SHA-256 of their id; the id itself is only in the browser's cookie.
-- `method` is password, setup or oidc:<name>.
CREATE TABLE sessions (
  id_hash BLOB PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  method TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- API tokens by SHA-256 of their text; the text is shown once.
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'deploy', 'mcp', 'ping', 'agent')),
  label TEXT NOT NULL,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;
