-- Searching tasks' names and texts for a part (issue 34): a trigram index
-- of both, kept by triggers. It only narrows a search: the query still
-- checks each candidate with LIKE, so answers are those of a plain scan
-- (store/search.go). Parts under 3 characters have no trigram and are
-- searched by the plain scan.
CREATE VIRTUAL TABLE tasks_search USING fts5 (name, text, content = 'tasks', content_rowid = 'id',
	tokenize = 'trigram case_sensitive 0');
INSERT INTO tasks_search (tasks_search) VALUES ('rebuild');
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
