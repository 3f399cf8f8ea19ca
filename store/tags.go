package store

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

var _ taskd.TagStore = (*DB)(nil)

const tagGroupColumns = `g.id, g.kind, g.title, g.type, g.access`

func scanTagGroup(s scanner) (taskd.TagGroup, error) {
	var g taskd.TagGroup
	return g, s.Scan(&g.ID, &g.Kind, &g.Title, &g.Type, &g.Access)
}

func scanTag(s scanner) (taskd.Tag, error) {
	var t taskd.Tag
	g := &t.Group
	return t, s.Scan(&t.ID, &t.Title, &g.ID, &g.Kind, &g.Title, &g.Type, &g.Access)
}

// TagGroups lists the account's groups of the kind, in their order.
func (db *DB) TagGroups(ctx context.Context, accountID int64, kind, typ, access string) ([]taskd.TagGroup, error) {
	return all(ctx, db.reader, "tag groups", db.d.q(`SELECT `+tagGroupColumns+` FROM tag_groups g
		WHERE g.account_id = ? AND g.kind = ? AND (? = '' OR g.type = ?) AND (? = '' OR g.access = ?) ORDER BY g.position, g.id`),
		scanTagGroup, accountID, kind, typ, typ, access, access)
}

// AddTagGroups makes the missing groups, each after the kind's others.
func (db *DB) AddTagGroups(ctx context.Context, by taskd.Actor, kind, typ, access string, titles []string) ([]taskd.TagGroup, error) {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return nil, err
	}
	var out []taskd.TagGroup
	err := db.tx(ctx, "add tag groups", func(tx querier) error {
		out = out[:0]
		for _, title := range titles {
			if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO tag_groups (account_id, kind, title, type, access, created_at, position)
				VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM tag_groups WHERE account_id = ? AND kind = ?))
				ON CONFLICT (account_id, kind, title) DO NOTHING`), by.AccountID, kind, title, typ, access, ms(db.now()), by.AccountID, kind); err != nil {
				return err
			}
			g, err := scanTagGroup(tx.QueryRowContext(ctx, db.d.q(`SELECT `+tagGroupColumns+` FROM tag_groups g
				WHERE g.account_id = ? AND g.kind = ? AND g.title = ?`), by.AccountID, kind, title))
			if err != nil {
				return err
			}
			out = append(out, g)
		}
		return nil
	})
	return out, err
}

// group finds the account's group of the kind named by id or title; not
// found ("tag group", the name as value) otherwise.
func (db *DB) group(ctx context.Context, q querier, accountID int64, kind, name string) (taskd.TagGroup, error) {
	id, _ := strconv.ParseInt(name, 10, 64)
	g, err := scanTagGroup(q.QueryRowContext(ctx, db.d.q(`SELECT `+tagGroupColumns+` FROM tag_groups g
		WHERE g.account_id = ? AND g.kind = ? AND (g.id = ? OR g.title = ?) ORDER BY g.id = ? DESC LIMIT 1`), accountID, kind, id, name, id))
	if err != nil {
		return g, &taskd.Error{Kind: taskd.KindNotFound, Field: "group", Value: name, Message: "Tag group is not found"}
	}
	return g, nil
}

const tagColumns = `t.id, t.title, ` + tagGroupColumns + ` FROM tags t JOIN tag_groups g ON g.id = t.group_id`

// tagOrder is the order of tags t of groups g: the groups', then each
// group's own.
const tagOrder = `g.position, g.id, t.position, t.id`

// Tags lists tags of the kind, by the order of the groups and of each
// group's tags.
func (db *DB) Tags(ctx context.Context, accountID int64, kind, group, typ, access string) ([]taskd.Tag, error) {
	var gid int64
	if group != "" {
		g, err := db.group(ctx, db.reader, accountID, kind, group)
		if err != nil {
			return nil, err
		}
		gid = g.ID
	}
	return all(ctx, db.reader, "tags", db.d.q(`SELECT `+tagColumns+` WHERE g.account_id = ? AND g.kind = ?
		AND (? = 0 OR g.id = ?) AND (? = '' OR g.type = ?) AND (? = '' OR g.access = ?) ORDER BY `+tagOrder),
		scanTag, accountID, kind, gid, gid, typ, typ, access, access)
}

// AddTags makes the missing tags of a group, each after its others.
func (db *DB) AddTags(ctx context.Context, by taskd.Actor, kind, group string, titles []string) ([]taskd.Tag, error) {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return nil, err
	}
	var out []taskd.Tag
	err := db.tx(ctx, "add tags", func(tx querier) error {
		out = out[:0]
		g, err := db.group(ctx, tx, by.AccountID, kind, group)
		if err != nil {
			return err
		}
		for _, title := range titles {
			if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO tags (group_id, title, position)
				VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM tags WHERE group_id = ?)) ON CONFLICT (group_id, title) DO NOTHING`),
				g.ID, title, g.ID); err != nil {
				return err
			}
			t, err := scanTag(tx.QueryRowContext(ctx, db.d.q(`SELECT `+tagColumns+` WHERE t.group_id = ? AND t.title = ?`), g.ID, title))
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// resolveTag finds the account's tag of the kind named by a token: a tag
// id first, else an exact title that one tag of the kind has. Invalid
// ("tags", the token as value) when none or several match.
func (db *DB) resolveTag(ctx context.Context, q querier, accountID int64, kind, token string) (taskd.Tag, error) {
	bad := func(msg string) error {
		return &taskd.Error{Kind: taskd.KindInvalid, Field: "tags", Value: token, Message: msg}
	}
	if id, err := strconv.ParseInt(token, 10, 64); err == nil {
		if t, err := scanTag(q.QueryRowContext(ctx, db.d.q(`SELECT `+tagColumns+` WHERE g.account_id = ? AND g.kind = ? AND t.id = ?`),
			accountID, kind, id)); err == nil {
			return t, nil
		}
	}
	list, err := allOnce(ctx, q, db.d.q(`SELECT `+tagColumns+` WHERE g.account_id = ? AND g.kind = ? AND t.title = ? LIMIT 2`), scanTag,
		accountID, kind, token)
	switch {
	case err != nil:
		return taskd.Tag{}, err
	case len(list) == 0:
		return taskd.Tag{}, bad("No tag has this id or title")
	case len(list) > 1:
		return taskd.Tag{}, bad("Several tags have this title: give the tag's id")
	}
	return list[0], nil
}

// objectTagTable names the link table and its column for a kind.
func objectTagTable(kind string) (string, string) {
	if kind == taskd.TagsOfProjects {
		return "project_tags", "project_id"
	}
	return "task_tags", "task_id"
}

// SetTags applies minus, then plus, in one transaction. With neither
// (the PHP SDK's call, C2) nothing changes, on an object by may change:
// not found otherwise, as with lists.
func (db *DB) SetTags(ctx context.Context, by taskd.Actor, kind string, objectID int64, plus, minus []string) error {
	if len(plus) == 0 && len(minus) == 0 {
		if err := taskd.Authorize(by, taskd.PermWork); err != nil {
			return err
		}
		var err error
		if kind == taskd.TagsOfTasks {
			_, err = db.Task(ctx, by.Viewer(), objectID)
		} else {
			_, err = db.Project(ctx, by.Viewer(), objectID)
		}
		return err
	}
	table, col := objectTagTable(kind)
	return db.change(ctx, by, "set tags", func(tx querier) error {
		var task taskd.Task
		var err error
		if kind == taskd.TagsOfTasks {
			if task, err = db.task(ctx, tx, by.Viewer(), objectID, true); err != nil {
				return err
			}
		} else if _, err := db.project(ctx, tx, by.Viewer(), objectID, true); err != nil {
			return err
		}
		before, err := db.tagMap(ctx, tx, kind, objectID)
		if err != nil {
			return err
		}
		for _, token := range minus {
			t, err := db.resolveTag(ctx, tx, by.AccountID, kind, token)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+col+` = ? AND tag_id = ?`), objectID, t.ID); err != nil {
				return err
			}
		}
		for _, token := range plus {
			t, err := db.resolveTag(ctx, tx, by.AccountID, kind, token)
			if err != nil {
				return err
			}
			if t.Group.Type == "status" { // one status of a group at a time
				if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+col+` = ? AND tag_id IN (SELECT id FROM tags WHERE group_id = ?)`),
					objectID, t.Group.ID); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO `+table+` (`+col+`, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING`), objectID, t.ID); err != nil {
				return err
			}
		}
		after, err := db.tagMap(ctx, tx, kind, objectID)
		if err != nil || kind != taskd.TagsOfTasks {
			return err
		}
		return db.emitTask(ctx, tx, by, taskd.ActionUpdate, task, map[string]any{"tags": jsonObject(before)}, map[string]any{"tags": jsonObject(after)})
	})
}

// tagMap is an object's tags as the API shows them: {"id": "title"}.
func (db *DB) tagMap(ctx context.Context, q querier, kind string, id int64) (map[string]string, error) {
	table, col := objectTagTable(kind)
	list, err := allOnce(ctx, q, db.d.q(`SELECT t.id, t.title FROM `+table+` o JOIN tags t ON t.id = o.tag_id WHERE o.`+col+` = ?`),
		func(s scanner) ([2]string, error) {
			var id int64
			var title string
			err := s.Scan(&id, &title)
			return [2]string{strconv.FormatInt(id, 10), title}, err
		}, id)
	out := make(map[string]string, len(list))
	for _, p := range list {
		out[p[0]] = p[1]
	}
	return out, err
}

// ObjectTags returns the tags of the objects with the ids that the viewer
// sees; those they do not see have none.
func (db *DB) ObjectTags(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.Tag, error) {
	out := map[int64][]taskd.Tag{}
	if len(ids) == 0 {
		return out, nil
	}
	table, col := objectTagTable(kind)
	seen := objectRowSeen(v, kind == taskd.TagsOfTasks)
	type row struct {
		object int64
		tag    taskd.Tag
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		args := []any{v.AccountID}
		for _, id := range chunk {
			args = append(args, id)
		}
		args = append(args, seen.args...)
		rows, err := all(ctx, db.reader, "object tags", db.d.q(`SELECT o.`+col+`, t.id, t.title, `+tagGroupColumns+`
			FROM `+table+` o JOIN tags t ON t.id = o.tag_id JOIN tag_groups g ON g.id = t.group_id
			WHERE g.account_id = ? AND o.`+col+` IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`+seen.where()+` ORDER BY `+tagOrder), func(s scanner) (row, error) {
			var r row
			g := &r.tag.Group
			err := s.Scan(&r.object, &r.tag.ID, &r.tag.Title, &g.ID, &g.Kind, &g.Title, &g.Type, &g.Access)
			return r, err
		}, args...)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.object] = append(out[r.object], r.tag)
		}
	}
	return out, nil
}

// rawObject is a JSON object kept as its text, so that events can compare
// old and new values (a map cannot be compared).
type rawObject string

// MarshalJSON writes the object as it is.
func (o rawObject) MarshalJSON() ([]byte, error) { return []byte(o), nil }

// jsonObject is a map as a comparable JSON object, its keys in order.
func jsonObject(m map[string]string) rawObject {
	b, _ := json.Marshal(m) // a map of strings always encodes
	return rawObject(b)
}

// replaceTags makes tokens an object's whole set of tags, in the change's
// transaction, and reports the set before and after ({"id": "title"}).
// Two statuses of one group are refused.
func (db *DB) replaceTags(ctx context.Context, tx querier, accountID int64, kind string, id int64, tokens []string) (rawObject, rawObject, error) {
	table, col := objectTagTable(kind)
	before, err := db.tagMap(ctx, tx, kind, id)
	if err != nil {
		return "", "", err
	}
	if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM `+table+` WHERE `+col+` = ?`), id); err != nil {
		return "", "", err
	}
	statuses := map[int64]string{}
	for _, token := range tokens {
		t, err := db.resolveTag(ctx, tx, accountID, kind, token)
		if err != nil {
			return "", "", err
		}
		if t.Group.Type == "status" {
			if other, ok := statuses[t.Group.ID]; ok && other != t.Title {
				return "", "", &taskd.Error{Kind: taskd.KindInvalid, Field: "tags", Value: token,
					Message: "A status group gives one status: " + other + " and " + t.Title + " are of " + t.Group.Title}
			}
			statuses[t.Group.ID] = t.Title
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO `+table+` (`+col+`, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING`), id, t.ID); err != nil {
			return "", "", err
		}
	}
	after, err := db.tagMap(ctx, tx, kind, id)
	return jsonObject(before), jsonObject(after), err
}
