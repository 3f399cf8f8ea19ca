-- Tags (spec/account-api.md §10): groups of tags for tasks or for projects,
-- each a status group (one of its tags per object) or a label group (any
-- number), public or private.
CREATE TABLE tag_groups (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('task', 'project')),
	title      TEXT NOT NULL,
	type       TEXT NOT NULL CHECK (type IN ('status', 'label')),
	access     TEXT NOT NULL CHECK (access IN ('public', 'private')),
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, kind, title)
);
CREATE TABLE tags (
	id       INTEGER PRIMARY KEY,
	group_id INTEGER NOT NULL REFERENCES tag_groups (id) ON DELETE CASCADE,
	title    TEXT NOT NULL,
	UNIQUE (group_id, title)
);
CREATE TABLE task_tags (
	task_id INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	tag_id  INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
	PRIMARY KEY (task_id, tag_id)
);
CREATE INDEX task_tags_tag ON task_tags (tag_id);
CREATE TABLE project_tags (
	project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	tag_id     INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
	PRIMARY KEY (project_id, tag_id)
);
