-- A delivery attempt may carry several events of a webhook's backlog in one
-- POST; events counts them (the attempt names the first).
ALTER TABLE attempts ADD COLUMN events INTEGER NOT NULL DEFAULT 1;
