-- What an import (taskd import, issue 36) made of a source account's
-- objects: per account, source account URL (without its key), family and
-- source id, the local id and a fingerprint of what was last written from
-- the source. A run finds what it made before here, so that a second run
-- creates nothing twice and a run killed half way finishes cleanly; the
-- row of a created object is written in the object's own transaction.
CREATE TABLE import_map (
	account_id  BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	source      TEXT NOT NULL,
	family      TEXT NOT NULL,
	source_id   TEXT NOT NULL,
	local_id    BIGINT NOT NULL,
	fingerprint TEXT NOT NULL,
	updated_at  BIGINT NOT NULL,
	PRIMARY KEY (account_id, source, family, source_id)
);
