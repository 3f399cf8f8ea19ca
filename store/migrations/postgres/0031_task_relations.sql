-- Task relations (issue 35): from_task_id must finish (finish-to-start)
-- or start (start-to-start) before to_task_id can start. Both tasks are
-- of the account; one relation per pair, whatever its type; a task's
-- relations go with it. Cycles are refused by the store
-- (store/relations.go).
CREATE TABLE task_relations (
	account_id   BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	from_task_id BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	to_task_id   BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	type         TEXT NOT NULL CHECK (type IN ('finish-to-start', 'start-to-start')),
	created_at   BIGINT NOT NULL,
	PRIMARY KEY (from_task_id, to_task_id),
	CHECK (from_task_id <> to_task_id)
);
CREATE INDEX task_relations_to ON task_relations (to_task_id);
CREATE INDEX task_relations_account ON task_relations (account_id);

-- The other task an event names (a relation's), seen as its task is
-- (eventsSeen); NULL for every other event.
ALTER TABLE events ADD COLUMN related_task_id BIGINT;
