-- A project's task list (issue 34): the page's counts by status read this
-- index alone, and its page of ids (store/tasks.go, tasksSQL) is chosen
-- from it before the rest of each row is read.
CREATE INDEX tasks_project_status ON tasks (project_id, status, account_id, parent_id, id);
