-- Members' working schedules (spec/account-api.md §5): the minutes of each
-- weekday (0 Sunday .. 6 Saturday), kept once set (a member without rows
-- has the default week), and the dates that differ from the week. Both end
-- with the membership (RemoveMember deletes them: no foreign key on
-- members, which SQLite migrations rebuild).
CREATE TABLE schedule_weeks (
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL,
	weekday    INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
	minutes    INTEGER NOT NULL CHECK (minutes BETWEEN 0 AND 1440),
	PRIMARY KEY (account_id, person_id, weekday)
);

CREATE TABLE schedule_days (
	account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL,
	day        TEXT NOT NULL, -- YYYY-MM-DD
	minutes    INTEGER NOT NULL CHECK (minutes BETWEEN 0 AND 1440),
	PRIMARY KEY (account_id, person_id, day)
);
CREATE INDEX schedule_days_account_day ON schedule_days (account_id, day);

-- The project options of logging time (spec/account-api.md §2.2): 0 off,
-- 1 on.
ALTER TABLE projects ADD COLUMN time_require INTEGER NOT NULL DEFAULT 0 CHECK (time_require IN (0, 1));
ALTER TABLE projects ADD COLUMN time_today INTEGER NOT NULL DEFAULT 0 CHECK (time_today IN (0, 1));
ALTER TABLE projects ADD COLUMN timer_only INTEGER NOT NULL DEFAULT 0 CHECK (timer_only IN (0, 1));
