-- Applications registered in an account's API settings. Secrets, codes and
-- tokens are random with 256 bits of entropy and stored as SHA-256 hex.
CREATE TABLE clients (
	id            INTEGER PRIMARY KEY,
	account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	client_id     TEXT NOT NULL UNIQUE,
	secret_hash   TEXT NOT NULL,
	name          TEXT NOT NULL,
	redirect_uris TEXT NOT NULL, -- one per line
	created_at    INTEGER NOT NULL
);
CREATE INDEX clients_account ON clients (account_id, id);

-- One authorization: its code, then its current token pair.
CREATE TABLE grants (
	id                 INTEGER PRIMARY KEY,
	client_id          INTEGER NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
	account_id         INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id          INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	scope              TEXT NOT NULL,
	redirect_uri       TEXT NOT NULL,
	code_hash          TEXT NOT NULL UNIQUE,
	code_challenge     TEXT NOT NULL DEFAULT '',
	code_expires_at    INTEGER NOT NULL,
	code_used          INTEGER NOT NULL DEFAULT 0,
	access_jti         TEXT UNIQUE,
	access_expires_at  INTEGER NOT NULL DEFAULT 0,
	refresh_hash       TEXT UNIQUE,
	refresh_expires_at INTEGER NOT NULL DEFAULT 0,
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	revoked            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX grants_person ON grants (person_id, client_id);

-- Refresh tokens that were rotated: presenting one again revokes its grant.
CREATE TABLE spent_refresh_tokens (
	hash     TEXT PRIMARY KEY,
	grant_id INTEGER NOT NULL REFERENCES grants (id) ON DELETE CASCADE,
	spent_at INTEGER NOT NULL
);

CREATE TABLE signing_keys (
	kid         TEXT PRIMARY KEY,
	private_key BLOB NOT NULL, -- sealed PKCS #8
	created_at  INTEGER NOT NULL
);

CREATE TABLE sessions (
	hash       TEXT PRIMARY KEY,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_person ON sessions (person_id);

CREATE TABLE login_failures (
	key TEXT NOT NULL,
	at  INTEGER NOT NULL
);
CREATE INDEX login_failures_key ON login_failures (key, at);
