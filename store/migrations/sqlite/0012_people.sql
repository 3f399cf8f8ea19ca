-- People (issue 14): roles guest and reader, teams, departments and rates
-- of members, a person's profile and time zone, contacts and their folders,
-- project folders and members, and task subscribers.
ALTER TABLE persons ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN phone TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN phone2 TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN phone3 TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN phone4 TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN address TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN address2 TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE persons ADD COLUMN notify INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';

CREATE TABLE teams (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	client     INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);

-- SQLite cannot change a CHECK: members and invitations are rebuilt.
CREATE TABLE members_new (
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'user', 'guest', 'reader')),
	created_at INTEGER NOT NULL,
	team_id    INTEGER REFERENCES teams (id) ON DELETE SET NULL,
	department TEXT NOT NULL DEFAULT '',
	rate       INTEGER, -- hourly rate in minor units; NULL: not set
	PRIMARY KEY (account_id, person_id)
);
INSERT INTO members_new (account_id, person_id, role, created_at) SELECT account_id, person_id, role, created_at FROM members;
DROP TABLE members;
ALTER TABLE members_new RENAME TO members;
CREATE INDEX members_person ON members (person_id);

CREATE TABLE invitations_new (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('admin', 'user', 'guest', 'reader')),
	invited_by INTEGER REFERENCES persons (id) ON DELETE SET NULL,
	created_at INTEGER NOT NULL,
	team_id    INTEGER REFERENCES teams (id) ON DELETE SET NULL,
	department TEXT NOT NULL DEFAULT '',
	UNIQUE (account_id, person_id)
);
INSERT INTO invitations_new (id, account_id, person_id, role, invited_by, created_at)
	SELECT id, account_id, person_id, role, invited_by, created_at FROM invitations;
DROP TABLE invitations;
ALTER TABLE invitations_new RENAME TO invitations;
CREATE INDEX invitations_person ON invitations (person_id);

CREATE TABLE contact_folders (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);

CREATE TABLE contacts (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	email      TEXT NOT NULL,
	first_name TEXT NOT NULL DEFAULT '',
	last_name  TEXT NOT NULL DEFAULT '',
	title      TEXT NOT NULL DEFAULT '',
	folder_id  INTEGER REFERENCES contact_folders (id) ON DELETE SET NULL,
	phone      TEXT NOT NULL DEFAULT '',
	phone2     TEXT NOT NULL DEFAULT '',
	phone3     TEXT NOT NULL DEFAULT '',
	phone4     TEXT NOT NULL DEFAULT '',
	address    TEXT NOT NULL DEFAULT '',
	address2   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, email)
);

CREATE TABLE project_folders (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);
ALTER TABLE projects ADD COLUMN folder_id INTEGER REFERENCES project_folders (id) ON DELETE SET NULL;
ALTER TABLE projects ADD COLUMN default_assignee_id INTEGER NOT NULL DEFAULT 0; -- 0: none chosen

CREATE TABLE project_members (
	project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	PRIMARY KEY (project_id, person_id)
);
CREATE INDEX project_members_person ON project_members (person_id);

CREATE TABLE task_subscribers (
	task_id   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	person_id INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	PRIMARY KEY (task_id, person_id)
);
CREATE INDEX task_subscribers_person ON task_subscribers (person_id);
