-- The mail outbox: a message is written with the change that causes it
-- (an invitation, a reset request, a notification) and sent afterwards,
-- so a crash or a mail server that is down loses nothing. The bodies are
-- sealed with the server's key: they can hold one-time links.
CREATE TABLE mail_outbox (
	id          INTEGER PRIMARY KEY,
	to_addr     TEXT NOT NULL,
	subject     TEXT NOT NULL,
	kind        TEXT NOT NULL,
	body        BLOB NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed', 'kept')),
	attempts    INTEGER NOT NULL DEFAULT 0,
	last_error  TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	next_at     INTEGER NOT NULL,
	lease_until INTEGER NOT NULL DEFAULT 0,
	done_at     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_at) WHERE state = 'pending';

-- One-time links sent by e-mail: accept an invitation and set a password,
-- reset a password, confirm a new e-mail address. Only a hash of the
-- token is kept; a link works once and until it expires.
CREATE TABLE person_tokens (
	id         INTEGER PRIMARY KEY,
	hash       TEXT NOT NULL UNIQUE,
	kind       TEXT NOT NULL CHECK (kind IN ('invite', 'reset', 'email')),
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	invitation_id INTEGER REFERENCES invitations (id) ON DELETE CASCADE,
	new_email  TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);
CREATE INDEX person_tokens_person ON person_tokens (person_id, kind);
