-- search_tasks filters on due dates (store/filter.go): this keeps a
-- selective one from reading every task of the account. (A filter on the
-- creation day needs no index: ids grow with creation, and the id-ordered
-- scan finds a day's tasks together.)
CREATE INDEX tasks_date_end ON tasks (account_id, date_end);
