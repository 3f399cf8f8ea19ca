-- Every task event bumps its project's version, which keys the cached task
-- lists (api/cache.go). (On PostgreSQL the trigger is deferred to commit to
-- keep the row lock short; SQLite has one writer, so there is no wait.)
CREATE TRIGGER events_bump_project_version AFTER INSERT ON events
	WHEN NEW.name LIKE '%\_task' ESCAPE '\'
BEGIN
	UPDATE projects SET version = version + 1 WHERE id = NEW.project_id;
END;
