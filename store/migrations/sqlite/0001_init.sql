CREATE TABLE accounts (
	id         INTEGER PRIMARY KEY,
	slug       TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	api_key    BLOB NOT NULL,
	created_at INTEGER NOT NULL
);

-- Person ids start at 101: 1 and 2 are the pseudo-people Nobody and Anyone.
CREATE TABLE persons (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	email         TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	first_name    TEXT NOT NULL DEFAULT '',
	last_name     TEXT NOT NULL DEFAULT '',
	created_at    INTEGER NOT NULL
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('persons', 100);

CREATE TABLE members (
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'user')),
	created_at INTEGER NOT NULL,
	PRIMARY KEY (account_id, person_id)
);
CREATE INDEX members_person ON members (person_id);

CREATE TABLE projects (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	text       TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL CHECK (status IN ('active', 'archive')),
	author_id  INTEGER NOT NULL,
	manager_id INTEGER NOT NULL DEFAULT 1,
	date_start TEXT NOT NULL DEFAULT '',
	date_end   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	closed_at  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX projects_account ON projects (account_id, id);

CREATE TABLE tasks (
	id          INTEGER PRIMARY KEY,
	account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	project_id  INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	parent_id   INTEGER REFERENCES tasks (id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	text        TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL CHECK (status IN ('active', 'done')),
	priority    INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 10),
	author_id   INTEGER NOT NULL,
	assignee_id INTEGER NOT NULL DEFAULT 1,
	date_start  TEXT NOT NULL DEFAULT '',
	date_end    TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	closed_at   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tasks_project ON tasks (project_id, id);
CREATE INDEX tasks_account ON tasks (account_id, id);
CREATE INDEX tasks_parent ON tasks (parent_id);

CREATE TABLE comments (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	task_id    INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	author_id  INTEGER NOT NULL,
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX comments_task ON comments (task_id, id);

-- The outbox: one row per change, written in the change's transaction.
CREATE TABLE events (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	project_id INTEGER NOT NULL,
	name       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	body       TEXT NOT NULL
);
CREATE INDEX events_account_time ON events (account_id, created_at);
