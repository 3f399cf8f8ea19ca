-- Invitations to join an account. A person is never added to an account
-- without their consent: they accept or decline after signing in.
CREATE TABLE invitations (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('admin', 'user')),
	invited_by INTEGER REFERENCES persons (id) ON DELETE SET NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, person_id)
);
CREATE INDEX invitations_person ON invitations (person_id);
