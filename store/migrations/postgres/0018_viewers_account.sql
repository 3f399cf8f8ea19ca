-- Task lists leave out the tasks hidden from the viewer. With the account
-- on each row, the account's hidden tasks are found through one index and
-- the list checks each task against that small set, instead of probing
-- task_viewers once or twice for every task it reads (store/tasks.go).
ALTER TABLE task_viewers ADD COLUMN account_id BIGINT NOT NULL DEFAULT 0;
UPDATE task_viewers SET account_id = (SELECT t.account_id FROM tasks t WHERE t.id = task_viewers.task_id);
CREATE INDEX task_viewers_account ON task_viewers (account_id, task_id);
