-- search_tasks filters on due dates and creation days (store/filter.go):
-- these keep a filter over an account's tasks from reading all of them.
CREATE INDEX tasks_date_end ON tasks (account_id, date_end);
CREATE INDEX tasks_created ON tasks (account_id, created_at);
