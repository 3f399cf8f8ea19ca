-- Costs and timers (spec/account-api.md §8, §9): lines of time and money
-- on tasks, kept exactly as whole minutes and minor currency units; a
-- running timer is its start time, one per person and account; budgets
-- (max_time, max_money) on projects and tasks, 0 when not set.
CREATE TABLE costs (
	id          INTEGER PRIMARY KEY,
	account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	project_id  INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	task_id     INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	top_task_id INTEGER NOT NULL, -- the top-level task: the parent of a subtask, else the task
	person_id   INTEGER NOT NULL,
	minutes     INTEGER NOT NULL CHECK (minutes >= 0),
	cents       INTEGER NOT NULL CHECK (cents >= 0),
	comment     TEXT NOT NULL DEFAULT '',
	day         TEXT NOT NULL, -- YYYY-MM-DD
	is_timer    INTEGER NOT NULL DEFAULT 0 CHECK (is_timer IN (0, 1)),
	created_at  INTEGER NOT NULL
);
-- The sums read indexes alone (each holds the amounts): an account's
-- dates, in the lists' order, by person or day; an account's projects by
-- day and a project's by task (budgets, get_costs_total's extras), in the
-- order they group by.
CREATE INDEX costs_account_day ON costs (account_id, day, id, person_id, project_id, minutes, cents);
CREATE INDEX costs_account_project ON costs (account_id, project_id, day, task_id, top_task_id, minutes, cents);
CREATE INDEX costs_task ON costs (task_id);
CREATE INDEX costs_top_task ON costs (top_task_id);

CREATE TABLE timers (
	id         INTEGER PRIMARY KEY,
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL,
	task_id    INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	started_at INTEGER NOT NULL,
	UNIQUE (account_id, person_id)
);

ALTER TABLE projects ADD COLUMN max_minutes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN max_cents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN max_minutes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN max_cents INTEGER NOT NULL DEFAULT 0;
