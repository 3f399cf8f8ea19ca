-- What an import (taskd import, issue 36) wrote without an invited person
-- and keeps for them: per account, the invitation's e-mail, the role they
-- take (the assignee, author or subscriber of a task, the author of a
-- comment, cost line or file, the author, manager or a member of a
-- project's team) and the local id of the object. Accepting the invitation applies
-- each row that still fits in the acceptance's own transaction and
-- deletes them; declining or cancelling it deletes them
-- (store/importwait.go).
CREATE TABLE import_waiting (
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	email      TEXT NOT NULL,
	role       TEXT NOT NULL CHECK (role IN ('task_assignee', 'task_author', 'task_subscriber', 'comment_author',
		'cost_author', 'project_author', 'project_manager', 'project_member', 'file_author')),
	object_id  INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (account_id, email, role, object_id)
);
