-- Webhooks, the deliveries the outbox fans out to them, and the log of
-- attempts. Secrets (whsec_ and the basic-auth password) are sealed.
CREATE TABLE webhooks (
	id              INTEGER PRIMARY KEY,
	account_id      INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	url             TEXT NOT NULL,
	events          TEXT NOT NULL, -- comma-separated
	projects        TEXT NOT NULL DEFAULT '', -- comma-separated ids; empty: all
	http_user       TEXT NOT NULL DEFAULT '',
	http_pass       BLOB,
	secret          BLOB NOT NULL,
	enabled         INTEGER NOT NULL DEFAULT 0,
	errors          INTEGER NOT NULL DEFAULT 0, -- consecutive failed attempts
	last_error      TEXT NOT NULL DEFAULT '',
	disabled_reason TEXT NOT NULL DEFAULT '',
	last_delivery_at INTEGER NOT NULL DEFAULT 0,
	next_attempt_at INTEGER NOT NULL DEFAULT 0,
	lease_owner     TEXT NOT NULL DEFAULT '',
	lease_until     INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id, id);

-- Events not yet turned into deliveries.
ALTER TABLE events ADD COLUMN fanned INTEGER NOT NULL DEFAULT 0;
UPDATE events SET fanned = 1;
CREATE INDEX events_unfanned ON events (id) WHERE fanned = 0;

CREATE TABLE deliveries (
	id           INTEGER PRIMARY KEY,
	webhook_id   INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id     INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
	state        TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'expired')),
	attempts     INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL,
	delivered_at INTEGER NOT NULL DEFAULT 0,
	UNIQUE (webhook_id, event_id)
);
CREATE INDEX deliveries_pending ON deliveries (webhook_id, event_id) WHERE state = 'pending';
CREATE INDEX deliveries_created ON deliveries (state, created_at);

CREATE TABLE attempts (
	id          INTEGER PRIMARY KEY,
	webhook_id  INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	delivery_id INTEGER NOT NULL DEFAULT 0, -- 0: a URL check
	event_id    INTEGER NOT NULL DEFAULT 0,
	event_name  TEXT NOT NULL DEFAULT '',
	at          INTEGER NOT NULL,
	ok          INTEGER NOT NULL,
	http_status INTEGER NOT NULL DEFAULT 0,
	latency_us  INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	response    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX attempts_webhook ON attempts (webhook_id, at);
