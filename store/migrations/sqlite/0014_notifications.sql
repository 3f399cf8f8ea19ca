-- Notifications of task changes waiting to be mailed, one row per person
-- and change, written in the change's transaction; the notifier mails each
-- person one digest of theirs and deletes the rows with it.
CREATE TABLE notifications (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	task_id    INTEGER NOT NULL,
	task_name  TEXT NOT NULL,
	task_page  TEXT NOT NULL,
	line       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX notifications_person ON notifications (person_id, id);
CREATE INDEX notifications_time ON notifications (created_at);
