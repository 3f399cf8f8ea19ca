package store

import (
	"context"
	"strconv"

	"github.com/taskd/taskd"
)

// The changes of the account's tags themselves (issue 33): their use,
// renames, order and deletions. The tags of one object are in tags.go.

// TagUse counts, for each tag of the kind, the objects the viewer sees
// that carry it.
func (db *DB) TagUse(ctx context.Context, v taskd.Viewer, kind string) (map[int64]int, error) {
	return db.tagUse(ctx, db.reader, v, kind, 0)
}

// tagUse is TagUse of one tag, or of every tag when tagID is 0.
func (db *DB) tagUse(ctx context.Context, q querier, v taskd.Viewer, kind string, tagID int64) (map[int64]int, error) {
	table, _ := objectTagTable(kind)
	join, seen := `JOIN tasks t ON t.id = o.task_id`, listSeen(v)
	if kind == taskd.TagsOfProjects {
		join, seen = `JOIN projects pr ON pr.id = o.project_id`, projectSeen(v, "o.project_id")
	}
	args := append([]any{v.AccountID, kind, tagID, tagID}, seen.args...)
	type count struct {
		tag int64
		n   int
	}
	list, err := all(ctx, q, "tag use", db.d.q(`SELECT o.tag_id, COUNT(*) FROM `+table+` o `+join+`
		JOIN tags tg ON tg.id = o.tag_id JOIN tag_groups g ON g.id = tg.group_id
		WHERE g.account_id = ? AND g.kind = ? AND (? = 0 OR o.tag_id = ?)`+seen.where()+` GROUP BY o.tag_id`),
		func(s scanner) (count, error) {
			var c count
			return c, s.Scan(&c.tag, &c.n)
		}, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(list))
	for _, c := range list {
		out[c.tag] = c.n
	}
	return out, nil
}

// RenameTagGroup gives a group a new title.
func (db *DB) RenameTagGroup(ctx context.Context, by taskd.Actor, kind, group, title string) (taskd.TagGroup, error) {
	if err := taskd.CanChangeTags(by); err != nil {
		return taskd.TagGroup{}, err
	}
	title, err := taskd.TagTitle(title)
	if err != nil {
		return taskd.TagGroup{}, err
	}
	var g taskd.TagGroup
	err = db.tx(ctx, "rename tag group", func(tx querier) error {
		if g, err = db.group(ctx, tx, by.AccountID, kind, group); err != nil || g.Title == title {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM tag_groups WHERE account_id = ? AND kind = ? AND title = ?`),
			by.AccountID, kind, title).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return taskd.Conflict(taskd.ReasonNone, "title", "Another group is named %s", title)
		}
		g.Title = title
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE tag_groups SET title = ? WHERE id = ?`), title, g.ID)
		return err
	})
	return g, err
}

// RenameTag gives a tag a new title.
func (db *DB) RenameTag(ctx context.Context, by taskd.Actor, kind, tag, title string) (taskd.Tag, error) {
	if err := taskd.CanChangeTags(by); err != nil {
		return taskd.Tag{}, err
	}
	title, err := taskd.TagTitle(title)
	if err != nil {
		return taskd.Tag{}, err
	}
	var t taskd.Tag
	err = db.tx(ctx, "rename tag", func(tx querier) error {
		if t, err = db.resolveTag(ctx, tx, by.AccountID, kind, tag); err != nil || t.Title == title {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM tags WHERE group_id = ? AND title = ?`), t.Group.ID, title).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return taskd.Conflict(taskd.ReasonNone, "title", "%s already has a tag named %s", t.Group.Title, title)
		}
		t.Title = title
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE tags SET title = ? WHERE id = ?`), title, t.ID)
		return err
	})
	return t, err
}

// SortTagGroups puts the kind's groups in the order given.
func (db *DB) SortTagGroups(ctx context.Context, by taskd.Actor, kind string, order []string) ([]taskd.TagGroup, error) {
	if err := taskd.CanChangeTags(by); err != nil {
		return nil, err
	}
	var out []taskd.TagGroup
	err := db.tx(ctx, "sort tag groups", func(tx querier) error {
		// The rows are locked, so that two orders given at once are applied
		// one after the other.
		list, err := allOnce(ctx, tx, db.d.q(`SELECT `+tagGroupColumns+` FROM tag_groups g WHERE g.account_id = ? AND g.kind = ?
			ORDER BY g.position, g.id`+db.d.forUpdate), scanTagGroup, by.AccountID, kind)
		if err != nil {
			return err
		}
		out, err = arrange(list, order, func(g taskd.TagGroup) (int64, string) { return g.ID, g.Title }, "No group has this id or title")
		if err != nil {
			return err
		}
		for i, g := range out {
			if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE tag_groups SET position = ? WHERE id = ?`), i+1, g.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// SortTags puts a group's tags in the order given.
func (db *DB) SortTags(ctx context.Context, by taskd.Actor, kind, group string, order []string) ([]taskd.Tag, error) {
	if err := taskd.CanChangeTags(by); err != nil {
		return nil, err
	}
	var out []taskd.Tag
	err := db.tx(ctx, "sort tags", func(tx querier) error {
		g, err := db.group(ctx, tx, by.AccountID, kind, group)
		if err != nil {
			return err
		}
		lock := ""
		if db.d.forUpdate != "" {
			lock = db.d.forUpdate + ` OF t`
		}
		list, err := allOnce(ctx, tx, db.d.q(`SELECT `+tagColumns+` WHERE t.group_id = ? ORDER BY `+tagOrder+lock), scanTag, g.ID)
		if err != nil {
			return err
		}
		out, err = arrange(list, order, func(t taskd.Tag) (int64, string) { return t.ID, t.Title }, "No tag of "+g.Title+" has this id or title")
		if err != nil {
			return err
		}
		for i, t := range out {
			if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE tags SET position = ? WHERE id = ?`), i+1, t.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// arrange puts the items that the names give (an id, else an exact title)
// first, in the names' order, and the others after them in the order they
// had. A name that names none is invalid (the field "order").
func arrange[T any](list []T, names []string, key func(T) (int64, string), unknown string) ([]T, error) {
	out := make([]T, 0, len(list))
	placed := make([]bool, len(list))
	for _, name := range names {
		found := -1
		if id, err := strconv.ParseInt(name, 10, 64); err == nil {
			for i, x := range list {
				if k, _ := key(x); k == id {
					found = i
				}
			}
		}
		for i := 0; found < 0 && i < len(list); i++ {
			if _, title := key(list[i]); title == name {
				found = i
			}
		}
		if found < 0 {
			return nil, &taskd.Error{Kind: taskd.KindInvalid, Field: "order", Value: name, Message: unknown}
		}
		if !placed[found] {
			placed[found] = true
			out = append(out, list[found])
		}
	}
	for i, x := range list {
		if !placed[i] {
			out = append(out, x)
		}
	}
	return out, nil
}

// DeleteTag deletes a tag, moving or taking it off what carries it.
func (db *DB) DeleteTag(ctx context.Context, by taskd.Actor, kind, tag string, d taskd.TagDeletion) error {
	if err := taskd.CanChangeTags(by); err != nil {
		return err
	}
	return db.change(ctx, by, "delete tag", func(tx querier) error {
		t, err := db.resolveTag(ctx, tx, by.AccountID, kind, tag)
		if err != nil {
			return err
		}
		var to int64
		switch {
		case d.Decided && d.MoveTo != "":
			other, err := db.otherTag(ctx, tx, t, d.MoveTo)
			if err != nil {
				return err
			}
			to = other.ID
		case !d.Decided && t.Group.Type == "status":
			use, err := db.tagUse(ctx, tx, by.Viewer(), kind, t.ID)
			if err != nil {
				return err
			}
			if n := use[t.ID]; n > 0 {
				return taskd.StatusInUse(t, n)
			}
		}
		if err := db.retag(ctx, tx, by, kind, cond{"tag_id = ?", []any{t.ID}}, to); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM tags WHERE id = ?`), t.ID)
		return err
	})
}

// otherTag finds the tag of t's group, not t, that a token names: an id,
// else an exact title. Invalid (the field "move_to") otherwise.
func (db *DB) otherTag(ctx context.Context, q querier, t taskd.Tag, token string) (taskd.Tag, error) {
	list, err := allOnce(ctx, q, db.d.q(`SELECT `+tagColumns+` WHERE t.group_id = ? ORDER BY `+tagOrder), scanTag, t.Group.ID)
	if err != nil {
		return taskd.Tag{}, err
	}
	named, err := arrange(list, []string{token}, func(t taskd.Tag) (int64, string) { return t.ID, t.Title }, "")
	if err != nil || named[0].ID == t.ID {
		return taskd.Tag{}, &taskd.Error{Kind: taskd.KindInvalid, Field: "move_to", Value: token,
			Message: "Choose another tag of " + t.Group.Title + " than the one deleted, or none"}
	}
	return named[0], nil
}

// DeleteTagGroup deletes a group and its tags.
func (db *DB) DeleteTagGroup(ctx context.Context, by taskd.Actor, kind, group string) error {
	if err := taskd.CanChangeTags(by); err != nil {
		return err
	}
	return db.change(ctx, by, "delete tag group", func(tx querier) error {
		g, err := db.group(ctx, tx, by.AccountID, kind, group)
		if err != nil {
			return err
		}
		if err := db.retag(ctx, tx, by, kind, cond{"tag_id IN (SELECT id FROM tags WHERE group_id = ?)", []any{g.ID}}, 0); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM tag_groups WHERE id = ?`), g.ID)
		return err
	})
}

// retag takes the tags that which selects (a condition on tag_id) off
// every object of the kind that carries one, whoever sees it, and gives
// it the tag to instead when to is set. Each task changed writes
// update_task with its tags before and after, as SetTags does.
func (db *DB) retag(ctx context.Context, tx querier, by taskd.Actor, kind string, which cond, to int64) error {
	table, col := objectTagTable(kind)
	ids, err := allOnce(ctx, tx, db.d.q(`SELECT DISTINCT `+col+` FROM `+table+` WHERE `+which.sql+` ORDER BY `+col), func(s scanner) (int64, error) {
		var id int64
		return id, s.Scan(&id)
	}, which.args...)
	if err != nil {
		return err
	}
	everyone := taskd.AccountViewer(by.AccountID)
	for _, id := range ids {
		var task taskd.Task
		if kind == taskd.TagsOfTasks {
			if task, err = db.task(ctx, tx, everyone, id, true); err != nil {
				return err
			}
		}
		before, err := db.tagMap(ctx, tx, kind, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+col+` = ? AND `+which.sql), append([]any{id}, which.args...)...); err != nil {
			return err
		}
		if to != 0 {
			if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO `+table+` (`+col+`, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING`), id, to); err != nil {
				return err
			}
		}
		if kind != taskd.TagsOfTasks {
			continue
		}
		after, err := db.tagMap(ctx, tx, kind, id)
		if err != nil {
			return err
		}
		if err := db.emitTask(ctx, tx, by, taskd.ActionUpdate, task, map[string]any{"tags": jsonObject(before)},
			map[string]any{"tags": jsonObject(after)}); err != nil {
			return err
		}
	}
	return nil
}
