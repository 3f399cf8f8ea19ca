-- The search index catches up in batches (issue 48). Writing each new
-- task into tasks_search in its own transaction cost every post_task a
-- new FTS5 segment and its merges (6-7% of taskd's CPU at 500 changes a
-- second). Now tasks_search holds the tasks up to search_state.indexed_upto,
-- and the store indexes the newer ones a batch at a time, soon after they
-- are made (store/search.go). Ids only grow (AUTOINCREMENT, migration
-- 0036), so the tasks not yet indexed are exactly those above the mark; a
-- search reads them from tasks itself, and its answer is the same either
-- way. A task above the mark that changes or goes is not in the index, so
-- the triggers that keep it leave such a task alone.
CREATE TABLE search_state (
	one          INTEGER PRIMARY KEY CHECK (one = 1),
	indexed_upto INTEGER NOT NULL
);
INSERT INTO search_state (one, indexed_upto) SELECT 1, COALESCE(MAX(id), 0) FROM tasks;
DROP TRIGGER tasks_search_insert;
DROP TRIGGER tasks_search_delete;
DROP TRIGGER tasks_search_update;
CREATE TRIGGER tasks_search_delete AFTER DELETE ON tasks WHEN old.id <= (SELECT indexed_upto FROM search_state)
BEGIN
	INSERT INTO tasks_search (tasks_search, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
END;
CREATE TRIGGER tasks_search_update AFTER UPDATE OF name, text ON tasks WHEN old.id <= (SELECT indexed_upto FROM search_state)
BEGIN
	INSERT INTO tasks_search (tasks_search, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
	INSERT INTO tasks_search (rowid, name, text) VALUES (new.id, new.name, new.text);
END;
