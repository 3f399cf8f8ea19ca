-- A person's iCalendar feed (issue 35): the hash of the secret in its URL
-- (secret.HashToken), one per person. Rotating replaces the row, so the
-- old URL stops working at once.
CREATE TABLE ical_tokens (
	person_id  INTEGER PRIMARY KEY REFERENCES persons (id) ON DELETE CASCADE,
	hash       TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);
