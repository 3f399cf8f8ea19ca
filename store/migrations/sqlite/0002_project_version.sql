-- Bumped in the transaction of every change to a project's tasks, so that a
-- rendered task list can be cached under (project, version) by any replica.
ALTER TABLE projects ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
