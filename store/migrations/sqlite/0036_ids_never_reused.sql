-- taskd: foreign keys off
-- No id is given twice (issue 46). Without AUTOINCREMENT, SQLite gives a
-- new row the id of the newest row deleted: an event of a deleted task
-- hidden from a member was then judged by the task that took its id, and
-- an integrator's "delete_task 1" was followed by another task 1. Every
-- table with an id of its own (id INTEGER PRIMARY KEY) is rebuilt with
-- AUTOINCREMENT by SQLite's procedure for changing a table
-- (https://www.sqlite.org/lang_altertable.html#otheralter): the first
-- line has the store run it with foreign keys off (a DROP TABLE with them
-- on would delete every child row through ON DELETE CASCADE), in one
-- transaction, checked by PRAGMA foreign_key_check before it commits
-- (store/migratefk.go). Each definition, index and trigger is the
-- schema's own, generated from sqlite_master of a database at migration
-- 0034; the column order is kept, so INSERT ... SELECT * copies each row
-- as it is (a migration before this one that changed one of these tables
-- makes the copy fail, rather than lose a column: generate them again).
-- docs/decisions.md: "Ids are never reused".

-- A trigger of events names projects: a RENAME would refuse it while
-- projects is dropped.
DROP TRIGGER events_bump_project_version;

-- accounts
CREATE TABLE new_accounts (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	slug       TEXT NOT NULL UNIQUE,
	name       TEXT NOT NULL,
	api_key    BLOB NOT NULL,
	created_at INTEGER NOT NULL
, time_zone TEXT NOT NULL DEFAULT 'UTC', api_key_by INTEGER REFERENCES persons (id) ON DELETE SET NULL, currency TEXT NOT NULL DEFAULT 'USD');
INSERT INTO new_accounts SELECT * FROM accounts;
DROP TABLE accounts;
ALTER TABLE new_accounts RENAME TO accounts;

-- projects
CREATE TABLE new_projects (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
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
, version INTEGER NOT NULL DEFAULT 0, folder_id INTEGER REFERENCES project_folders (id) ON DELETE SET NULL, default_assignee_id INTEGER NOT NULL DEFAULT 0, max_minutes INTEGER NOT NULL DEFAULT 0, max_cents INTEGER NOT NULL DEFAULT 0, time_require INTEGER NOT NULL DEFAULT 0 CHECK (time_require IN (0, 1)), time_today INTEGER NOT NULL DEFAULT 0 CHECK (time_today IN (0, 1)), timer_only INTEGER NOT NULL DEFAULT 0 CHECK (timer_only IN (0, 1)));
INSERT INTO new_projects SELECT * FROM projects;
DROP TABLE projects;
ALTER TABLE new_projects RENAME TO projects;
CREATE INDEX projects_account ON projects (account_id, id);

-- tasks
CREATE TABLE new_tasks (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
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
, max_minutes INTEGER NOT NULL DEFAULT 0, max_cents INTEGER NOT NULL DEFAULT 0, top_id INTEGER, sub_id INTEGER);
INSERT INTO new_tasks SELECT * FROM tasks;
DROP TABLE tasks;
ALTER TABLE new_tasks RENAME TO tasks;
CREATE INDEX tasks_project ON tasks (project_id, id);
CREATE INDEX tasks_account ON tasks (account_id, id);
CREATE INDEX tasks_parent ON tasks (parent_id);
CREATE INDEX tasks_date_end ON tasks (account_id, date_end);
CREATE INDEX tasks_project_status ON tasks (project_id, status, account_id, parent_id);
CREATE TRIGGER tasks_search_insert AFTER INSERT ON tasks BEGIN
	INSERT INTO tasks_search (rowid, name, text) VALUES (new.id, new.name, new.text);
END;
CREATE TRIGGER tasks_search_delete AFTER DELETE ON tasks BEGIN
	INSERT INTO tasks_search (tasks_search, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
END;
CREATE TRIGGER tasks_search_update AFTER UPDATE OF name, text ON tasks BEGIN
	INSERT INTO tasks_search (tasks_search, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
	INSERT INTO tasks_search (rowid, name, text) VALUES (new.id, new.name, new.text);
END;
CREATE INDEX tasks_tree ON tasks (project_id, status, COALESCE(top_id, id), COALESCE(sub_id, id));

-- comments
CREATE TABLE new_comments (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	task_id    INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	author_id  INTEGER NOT NULL,
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
INSERT INTO new_comments SELECT * FROM comments;
DROP TABLE comments;
ALTER TABLE new_comments RENAME TO comments;
CREATE INDEX comments_task ON comments (task_id, id);

-- clients
CREATE TABLE new_clients (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	client_id     TEXT NOT NULL UNIQUE,
	secret_hash   TEXT NOT NULL,
	name          TEXT NOT NULL,
	redirect_uris TEXT NOT NULL, -- one per line
	created_at    INTEGER NOT NULL
);
INSERT INTO new_clients SELECT * FROM clients;
DROP TABLE clients;
ALTER TABLE new_clients RENAME TO clients;
CREATE INDEX clients_account ON clients (account_id, id);

-- grants
CREATE TABLE new_grants (
	id                 INTEGER PRIMARY KEY AUTOINCREMENT,
	client_id          INTEGER NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
	account_id         INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id          INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	scope              TEXT NOT NULL,
	redirect_uri       TEXT NOT NULL,
	code_hash          TEXT NOT NULL UNIQUE,
	code_challenge     TEXT NOT NULL DEFAULT '',
	code_expires_at    INTEGER NOT NULL,
	code_used          INTEGER NOT NULL DEFAULT 0,
	access_jti         TEXT UNIQUE,
	access_expires_at  INTEGER NOT NULL DEFAULT 0,
	refresh_hash       TEXT UNIQUE,
	refresh_expires_at INTEGER NOT NULL DEFAULT 0,
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	revoked            INTEGER NOT NULL DEFAULT 0
);
INSERT INTO new_grants SELECT * FROM grants;
DROP TABLE grants;
ALTER TABLE new_grants RENAME TO grants;
CREATE INDEX grants_person ON grants (person_id, client_id);

-- webhooks
CREATE TABLE new_webhooks (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
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
, after_event INTEGER NOT NULL DEFAULT 0, by_person INTEGER REFERENCES persons (id) ON DELETE SET NULL);
INSERT INTO new_webhooks SELECT * FROM webhooks;
DROP TABLE webhooks;
ALTER TABLE new_webhooks RENAME TO webhooks;
CREATE INDEX webhooks_account ON webhooks (account_id, id);

-- deliveries
CREATE TABLE new_deliveries (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	webhook_id   INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id     INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
	state        TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'expired')),
	attempts     INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL,
	delivered_at INTEGER NOT NULL DEFAULT 0,
	UNIQUE (webhook_id, event_id)
);
INSERT INTO new_deliveries SELECT * FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE new_deliveries RENAME TO deliveries;
CREATE INDEX deliveries_created ON deliveries (state, created_at);
CREATE INDEX deliveries_pending ON deliveries (webhook_id) WHERE state = 'pending';

-- attempts
CREATE TABLE new_attempts (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
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
, events INTEGER NOT NULL DEFAULT 1);
INSERT INTO new_attempts SELECT * FROM attempts;
DROP TABLE attempts;
ALTER TABLE new_attempts RENAME TO attempts;
CREATE INDEX attempts_webhook ON attempts (webhook_id, at);

-- teams
CREATE TABLE new_teams (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	client     INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);
INSERT INTO new_teams SELECT * FROM teams;
DROP TABLE teams;
ALTER TABLE new_teams RENAME TO teams;

-- invitations
CREATE TABLE new_invitations (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('admin', 'user', 'guest', 'reader')),
	invited_by INTEGER REFERENCES persons (id) ON DELETE SET NULL,
	created_at INTEGER NOT NULL,
	team_id    INTEGER REFERENCES teams (id) ON DELETE SET NULL,
	department TEXT NOT NULL DEFAULT '',
	UNIQUE (account_id, person_id)
);
INSERT INTO new_invitations SELECT * FROM invitations;
DROP TABLE invitations;
ALTER TABLE new_invitations RENAME TO invitations;
CREATE INDEX invitations_person ON invitations (person_id);

-- contact_folders
CREATE TABLE new_contact_folders (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);
INSERT INTO new_contact_folders SELECT * FROM contact_folders;
DROP TABLE contact_folders;
ALTER TABLE new_contact_folders RENAME TO contact_folders;

-- contacts
CREATE TABLE new_contacts (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO new_contacts SELECT * FROM contacts;
DROP TABLE contacts;
ALTER TABLE new_contacts RENAME TO contacts;

-- project_folders
CREATE TABLE new_project_folders (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	title      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, title)
);
INSERT INTO new_project_folders SELECT * FROM project_folders;
DROP TABLE project_folders;
ALTER TABLE new_project_folders RENAME TO project_folders;

-- mail_outbox
CREATE TABLE new_mail_outbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO new_mail_outbox SELECT * FROM mail_outbox;
DROP TABLE mail_outbox;
ALTER TABLE new_mail_outbox RENAME TO mail_outbox;
CREATE INDEX mail_outbox_due ON mail_outbox (next_at) WHERE state = 'pending';

-- person_tokens
CREATE TABLE new_person_tokens (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	hash       TEXT NOT NULL UNIQUE,
	kind       TEXT NOT NULL CHECK (kind IN ('invite', 'reset', 'email')),
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	invitation_id INTEGER REFERENCES invitations (id) ON DELETE CASCADE,
	new_email  TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
, end_grants INTEGER NOT NULL DEFAULT 0);
INSERT INTO new_person_tokens SELECT * FROM person_tokens;
DROP TABLE person_tokens;
ALTER TABLE new_person_tokens RENAME TO person_tokens;
CREATE INDEX person_tokens_person ON person_tokens (person_id, kind);

-- notifications
CREATE TABLE new_notifications (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	task_id    INTEGER NOT NULL,
	task_name  TEXT NOT NULL,
	task_page  TEXT NOT NULL,
	line       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
INSERT INTO new_notifications SELECT * FROM notifications;
DROP TABLE notifications;
ALTER TABLE new_notifications RENAME TO notifications;
CREATE INDEX notifications_person ON notifications (person_id, id);
CREATE INDEX notifications_time ON notifications (created_at);

-- tag_groups
CREATE TABLE new_tag_groups (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('task', 'project')),
	title      TEXT NOT NULL,
	type       TEXT NOT NULL CHECK (type IN ('status', 'label')),
	access     TEXT NOT NULL CHECK (access IN ('public', 'private')),
	created_at INTEGER NOT NULL, position INTEGER NOT NULL DEFAULT 0,
	UNIQUE (account_id, kind, title)
);
INSERT INTO new_tag_groups SELECT * FROM tag_groups;
DROP TABLE tag_groups;
ALTER TABLE new_tag_groups RENAME TO tag_groups;

-- tags
CREATE TABLE new_tags (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	group_id INTEGER NOT NULL REFERENCES tag_groups (id) ON DELETE CASCADE,
	title    TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0,
	UNIQUE (group_id, title)
);
INSERT INTO new_tags SELECT * FROM tags;
DROP TABLE tags;
ALTER TABLE new_tags RENAME TO tags;

-- costs
CREATE TABLE new_costs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	project_id  INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	task_id     INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	top_task_id INTEGER NOT NULL, -- the top-level task: the parent of a subtask, else the task
	person_id   INTEGER NOT NULL,
	minutes     INTEGER NOT NULL CHECK (minutes >= 0),
	cents       INTEGER NOT NULL CHECK (cents >= 0),
	comment     TEXT NOT NULL DEFAULT '',
	day         TEXT NOT NULL, -- YYYY-MM-DD
	is_timer    INTEGER NOT NULL DEFAULT 0 CHECK (is_timer IN (0, 1)),
	created_at  INTEGER NOT NULL
);
INSERT INTO new_costs SELECT * FROM costs;
DROP TABLE costs;
ALTER TABLE new_costs RENAME TO costs;
CREATE INDEX costs_account_day ON costs (account_id, day, id, person_id, project_id, minutes, cents);
CREATE INDEX costs_account_project ON costs (account_id, project_id, day, task_id, top_task_id, minutes, cents);
CREATE INDEX costs_task ON costs (task_id);
CREATE INDEX costs_top_task ON costs (top_task_id);

-- timers
CREATE TABLE new_timers (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL,
	task_id    INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	started_at INTEGER NOT NULL,
	UNIQUE (account_id, person_id)
);
INSERT INTO new_timers SELECT * FROM timers;
DROP TABLE timers;
ALTER TABLE new_timers RENAME TO timers;

-- files
CREATE TABLE new_files (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO new_files SELECT * FROM files;
DROP TABLE files;
ALTER TABLE new_files RENAME TO files;
CREATE INDEX files_project ON files (project_id, id);
CREATE INDEX files_task ON files (task_id, id);
CREATE INDEX files_owner ON files (owner, owner_id);
CREATE INDEX files_account ON files (account_id, size);

-- custom_fields
CREATE TABLE new_custom_fields (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('task', 'project')),
	name       TEXT NOT NULL,
	type       TEXT NOT NULL CHECK (type IN ('text', 'number', 'date', 'list')),
	descr      TEXT NOT NULL DEFAULT '',
	options    TEXT NOT NULL DEFAULT '[]', -- a list's options, a JSON array
	created_at INTEGER NOT NULL,
	UNIQUE (account_id, kind, name)
);
INSERT INTO new_custom_fields SELECT * FROM custom_fields;
DROP TABLE custom_fields;
ALTER TABLE new_custom_fields RENAME TO custom_fields;

-- Put back the trigger of events dropped above.
CREATE TRIGGER events_bump_project_version AFTER INSERT ON events
	WHEN NEW.name LIKE '%\_task' ESCAPE '\'
BEGIN
	UPDATE projects SET version = version + 1 WHERE id = NEW.project_id;
END;

-- Each sequence starts above the highest id that any row still names, so
-- that no id handed out before this migration, even of an object deleted
-- since, is given again: the copies above set it to the table's highest
-- id; these raise it past the columns that keep an id once its object is
-- gone (no foreign key, or none that deletes with it).
INSERT INTO sqlite_sequence (name, seq) SELECT n.name, 0
	FROM (SELECT 'tasks' AS name UNION ALL SELECT 'comments' UNION ALL SELECT 'projects' UNION ALL SELECT 'costs'
		UNION ALL SELECT 'contacts' UNION ALL SELECT 'files' UNION ALL SELECT 'deliveries') n
	WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence s WHERE s.name = n.name);
UPDATE sqlite_sequence SET seq = MAX(seq,
	COALESCE((SELECT MAX(task_id) FROM events), 0),
	COALESCE((SELECT MAX(related_task_id) FROM events), 0),
	COALESCE((SELECT MAX(task_id) FROM notifications), 0),
	COALESCE((SELECT MAX(top_task_id) FROM costs), 0),
	COALESCE((SELECT MAX(task_id) FROM files), 0),
	COALESCE((SELECT MAX(owner_id) FROM files WHERE owner = 'task'), 0),
	COALESCE((SELECT MAX(local_id) FROM import_map WHERE family IN ('task', 'relation')), 0),
	COALESCE((SELECT MAX(object_id) FROM import_waiting WHERE role IN ('task_assignee', 'task_author', 'task_subscriber')), 0))
	WHERE name = 'tasks';
UPDATE sqlite_sequence SET seq = MAX(seq,
	COALESCE((SELECT MAX(comment_id) FROM events), 0),
	COALESCE((SELECT MAX(owner_id) FROM files WHERE owner = 'comment'), 0),
	COALESCE((SELECT MAX(local_id) FROM import_map WHERE family = 'comment'), 0),
	COALESCE((SELECT MAX(object_id) FROM import_waiting WHERE role = 'comment_author'), 0))
	WHERE name = 'comments';
UPDATE sqlite_sequence SET seq = MAX(seq,
	COALESCE((SELECT MAX(project_id) FROM events), 0),
	COALESCE((SELECT MAX(project_id) FROM files), 0),
	COALESCE((SELECT MAX(owner_id) FROM files WHERE owner = 'project'), 0),
	COALESCE((SELECT MAX(local_id) FROM import_map WHERE family = 'project'), 0),
	COALESCE((SELECT MAX(object_id) FROM import_waiting WHERE role IN ('project_author', 'project_manager', 'project_member')), 0),
	COALESCE((SELECT MAX(CAST(j.value AS INTEGER)) FROM (SELECT '[' || projects || ']' AS list FROM webhooks
		WHERE projects <> '' AND json_valid('[' || projects || ']')) w, json_each(w.list) j), 0))
	WHERE name = 'projects';
UPDATE sqlite_sequence SET seq = MAX(seq,
	COALESCE((SELECT MAX(local_id) FROM import_map WHERE family = 'cost'), 0),
	COALESCE((SELECT MAX(object_id) FROM import_waiting WHERE role = 'cost_author'), 0))
	WHERE name = 'costs';
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(local_id) FROM import_map WHERE family = 'contact'), 0))
	WHERE name = 'contacts';
UPDATE sqlite_sequence SET seq = MAX(seq,
	COALESCE((SELECT MAX(local_id) FROM import_map WHERE family = 'file'), 0),
	COALESCE((SELECT MAX(object_id) FROM import_waiting WHERE role = 'file_author'), 0))
	WHERE name = 'files';
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(delivery_id) FROM attempts), 0))
	WHERE name = 'deliveries';

-- The repair. An event written about an object (task, related task,
-- comment, project) that was deleted, and whose id a newer object then
-- took, is about the deleted one, not about the one holding the id now;
-- it is known by being older than something of the newer one: its
-- creation (created_at), its post_ event, or a delete_ event naming the
-- id (the object holding it now is not deleted, so that was an earlier
-- one's). Such an event is pointed at no object, 0, which is never an id
-- (NULL would say it is about no task at all, seen by all): like every
-- event of a deleted object, it is then seen by whom events.hidden says,
-- as it was written (store/viewer.go eventsSeen; the live streams, the
-- webhooks and the API read it so too), and a guest sees it on no
-- project's team. An event written while the clock read earlier than its
-- object's creation (a clock set back) would be taken as an earlier
-- object's too: then it is seen as one of a deleted object. id_marks
-- holds, per id, the first event id that can be about the object holding
-- it now.
CREATE TEMP TABLE id_marks (
	kind TEXT NOT NULL,
	id   INTEGER NOT NULL,
	upto INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
) WITHOUT ROWID;
INSERT INTO id_marks SELECT 'task', task_id, MAX(CASE name WHEN 'post_task' THEN id ELSE id + 1 END) FROM events
	WHERE name IN ('post_task', 'delete_task') AND task_id IS NOT NULL GROUP BY task_id;
INSERT INTO id_marks SELECT 'comment', comment_id, MAX(CASE name WHEN 'post_comment' THEN id ELSE id + 1 END) FROM events
	WHERE name IN ('post_comment', 'delete_comment') AND comment_id IS NOT NULL GROUP BY comment_id;
INSERT INTO id_marks SELECT 'project', project_id, MAX(CASE name WHEN 'post_project' THEN id ELSE id + 1 END) FROM events
	WHERE name IN ('post_project', 'delete_project') GROUP BY project_id;
UPDATE events SET task_id = 0 WHERE task_id > 0 AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = events.task_id
	AND (events.created_at < t.created_at
		OR events.id < (SELECT m.upto FROM id_marks m WHERE m.kind = 'task' AND m.id = events.task_id)));
UPDATE events SET related_task_id = 0 WHERE related_task_id > 0 AND EXISTS (SELECT 1 FROM tasks t WHERE t.id = events.related_task_id
	AND (events.created_at < t.created_at
		OR events.id < (SELECT m.upto FROM id_marks m WHERE m.kind = 'task' AND m.id = events.related_task_id)));
UPDATE events SET comment_id = 0 WHERE comment_id > 0 AND EXISTS (SELECT 1 FROM comments c WHERE c.id = events.comment_id
	AND (events.created_at < c.created_at
		OR events.id < (SELECT m.upto FROM id_marks m WHERE m.kind = 'comment' AND m.id = events.comment_id)));
UPDATE events SET project_id = 0 WHERE project_id > 0 AND EXISTS (SELECT 1 FROM projects p WHERE p.id = events.project_id
	AND (events.created_at < p.created_at
		OR events.id < (SELECT m.upto FROM id_marks m WHERE m.kind = 'project' AND m.id = events.project_id)));
DROP TABLE id_marks;
