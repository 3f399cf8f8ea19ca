-- Files (spec §11): attachments of projects, tasks and comments, or
-- uploads not attached yet (owner ''). The content is kept in chunks of
-- FileChunk bytes, written and read one at a time, so that no file is
-- ever whole in memory; a file is seen only once complete.
CREATE TABLE files (
	id           INTEGER PRIMARY KEY,
	account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	owner        TEXT NOT NULL DEFAULT '' CHECK (owner IN ('', 'project', 'task', 'comment')),
	owner_id     INTEGER NOT NULL DEFAULT 0,
	project_id   INTEGER NOT NULL DEFAULT 0,
	task_id      INTEGER NOT NULL DEFAULT 0,
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL DEFAULT 0,
	sha256       TEXT NOT NULL DEFAULT '',
	author_id    INTEGER NOT NULL,
	complete     INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)),
	created_at   INTEGER NOT NULL
);
CREATE INDEX files_project ON files (project_id, id);
CREATE INDEX files_task ON files (task_id, id);
CREATE INDEX files_owner ON files (owner, owner_id);
CREATE INDEX files_account ON files (account_id, size);
CREATE TABLE file_chunks (
	file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
	seq     INTEGER NOT NULL,
	data    BLOB NOT NULL,
	PRIMARY KEY (file_id, seq)
);
