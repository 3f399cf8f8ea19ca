-- A task's place in its tree, stored (issue 34), so that a project's list
-- in tree order (taskd.SortTree: each top-level task, then its subtasks,
-- each followed by its own) comes out of an index in order and a page
-- stops after its rows, instead of sorting every task of the project.
-- A task's parent never changes, so neither do these. The tree keys are
-- COALESCE(top_id, id) and COALESCE(sub_id, id) (store/tasks.go).
--   top_id: NULL on a top-level task; else the top-level task above it.
--   sub_id: 0 on a top-level task; NULL on a subtask; on a sub-subtask,
--           its parent (the subtask).
ALTER TABLE tasks ADD COLUMN top_id BIGINT, ADD COLUMN sub_id BIGINT;
UPDATE tasks SET sub_id = 0 WHERE parent_id IS NULL;
UPDATE tasks t SET
	top_id = COALESCE(p.parent_id, t.parent_id),
	sub_id = CASE WHEN p.parent_id IS NULL THEN NULL ELSE t.parent_id END
	FROM tasks p WHERE p.id = t.parent_id;
CREATE INDEX tasks_tree ON tasks (project_id, status, (COALESCE(top_id, id)), (COALESCE(sub_id, id)), id);
