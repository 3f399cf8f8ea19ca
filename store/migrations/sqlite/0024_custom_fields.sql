-- Custom fields (spec/account-api.md §14): fields an account adds to its
-- tasks or to its projects, each of one type (text, number, date, or one
-- of a list's options), and their values per task and per project. A
-- value is kept in its stored form (taskd.CheckFieldValue); a number's is
-- also in number, for comparisons.
CREATE TABLE custom_fields (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('task', 'project')),
	name       TEXT NOT NULL,
	type       TEXT NOT NULL CHECK (type IN ('text', 'number', 'date', 'list')),
	descr      TEXT NOT NULL DEFAULT '',
	options    TEXT NOT NULL DEFAULT '[]', -- a list's options, a JSON array
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, kind, name)
);
CREATE TABLE task_field_values (
	task_id  INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	field_id INTEGER NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
	value    TEXT NOT NULL,
	number   REAL,
	PRIMARY KEY (task_id, field_id)
);
CREATE INDEX task_field_values_field ON task_field_values (field_id, value);
CREATE TABLE project_field_values (
	project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	field_id   INTEGER NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
	value      TEXT NOT NULL,
	number     REAL,
	PRIMARY KEY (project_id, field_id)
);
CREATE INDEX project_field_values_field ON project_field_values (field_id, value);
