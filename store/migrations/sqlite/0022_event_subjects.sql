-- Who sees an event is decided in SQL by what it is about (DESIGN §10,
-- issue 31): the task (for a comment, its task) and the comment, and
-- whether either was hidden from anyone when the event was written, which
-- decides for events whose object has been deleted since.
ALTER TABLE events ADD COLUMN task_id INTEGER;
ALTER TABLE events ADD COLUMN comment_id INTEGER;
ALTER TABLE events ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
UPDATE events SET task_id = CAST(json_extract(body, '$.object.id') AS INTEGER)
	WHERE json_extract(body, '$.object.type') = 'task';
UPDATE events SET comment_id = CAST(json_extract(body, '$.object.id') AS INTEGER)
	WHERE json_extract(body, '$.object.type') = 'comment';
UPDATE events SET task_id = (SELECT c.task_id FROM comments c WHERE c.id = events.comment_id) WHERE comment_id IS NOT NULL;
-- Of the objects that still exist, the hidden ones; those deleted before
-- this migration are shown as they were.
UPDATE events SET hidden = 1 WHERE EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = events.task_id)
	OR EXISTS (SELECT 1 FROM tasks t JOIN task_viewers v ON v.task_id = t.parent_id WHERE t.id = events.task_id)
	OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = events.comment_id);
