-- Tasks and comments made with `hidden`: only the people listed here (and
-- the author) may see them. A task or comment without rows is seen by
-- everyone who may see its project.
CREATE TABLE task_viewers (
	task_id   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
	person_id INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	PRIMARY KEY (task_id, person_id)
);
CREATE TABLE comment_viewers (
	comment_id INTEGER NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
	person_id  INTEGER NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
	PRIMARY KEY (comment_id, person_id)
);
