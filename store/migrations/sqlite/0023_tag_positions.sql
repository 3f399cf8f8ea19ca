-- Tags and tag groups keep an order the account chooses (issue 33): a
-- board's columns follow it, and so do the lists of the API and the pages.
-- Existing ones keep the order they were shown in, by title (ties by id,
-- in the database's own collation, as ORDER BY title, id had them).
ALTER TABLE tag_groups ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tags ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
UPDATE tag_groups SET position = (SELECT COUNT(*) FROM tag_groups o
	WHERE o.account_id = tag_groups.account_id AND o.kind = tag_groups.kind
	AND (o.title < tag_groups.title OR (o.title = tag_groups.title AND o.id <= tag_groups.id)));
UPDATE tags SET position = (SELECT COUNT(*) FROM tags o
	WHERE o.group_id = tags.group_id AND (o.title < tags.title OR (o.title = tags.title AND o.id <= tags.id)));
