-- When a person's sight of an account's events began (issue 46): a live
-- stream replays nothing written before. members.role_since is when the
-- current role was given (NULL: at created_at, when they joined);
-- project_members.added_at when a person joined a project's team (NULL:
-- before this migration, taken as always).
ALTER TABLE members ADD COLUMN role_since BIGINT;
ALTER TABLE project_members ADD COLUMN added_at BIGINT;
