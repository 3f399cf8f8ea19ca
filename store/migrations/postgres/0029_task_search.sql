-- Searching tasks' names and texts for a part (issue 34): trigram indexes
-- (pg_trgm), which PostgreSQL uses for ILIKE '%part%' and rechecks, so
-- answers are those of a plain scan. Where the extension cannot be
-- created (not installed, or no right to), nothing is made and searches
-- scan as before.
DO $$
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS pg_trgm;
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'pg_trgm not available (%): task searches scan', SQLERRM;
		RETURN;
	END;
	CREATE INDEX tasks_name_trgm ON tasks USING gin (name gin_trgm_ops);
	CREATE INDEX tasks_text_trgm ON tasks USING gin (text gin_trgm_ops);
END
$$;
