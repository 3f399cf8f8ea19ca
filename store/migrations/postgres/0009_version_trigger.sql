-- Every task event bumps its project's version, which keys the cached task
-- lists (api/cache.go). The trigger is deferred to commit, so the lock on the
-- project's row is held only while the transaction commits, not across its
-- statements and round trips: changes to one project's tasks from many
-- clients no longer queue behind each other's whole transactions.
CREATE FUNCTION bump_project_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE projects SET version = version + 1 WHERE id = NEW.project_id;
	RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER events_bump_project_version AFTER INSERT ON events
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
	WHEN (NEW.name LIKE '%\_task' ESCAPE '\')
	EXECUTE FUNCTION bump_project_version();
