package store

import (
	"github.com/taskd/taskd"
)

// The rule of who sees what (taskd.Viewer, DESIGN §10) lives here, as SQL
// conditions that every read adds to its WHERE clause. Each returns its
// condition and the arguments of its placeholders, in order.

// cond is a condition of a query and the arguments of its placeholders.
type cond struct {
	sql  string
	args []any
}

// and joins conditions; true ones ("") are left out.
func and(cs ...cond) cond {
	var out cond
	for _, c := range cs {
		if c.sql == "" {
			continue
		}
		if out.sql != "" {
			out.sql += " AND "
		}
		out.sql += c.sql
		out.args = append(out.args, c.args...)
	}
	return out
}

// where is the condition as " AND …" to append to a WHERE clause.
func (c cond) where() string {
	if c.sql == "" {
		return ""
	}
	return " AND " + c.sql
}

// nothing is the condition no row meets.
var nothing = cond{sql: "1 = 0"}

// projectSeen is the condition that the viewer sees the project whose id
// is the column col: every project for the key and for roles that are not
// limited, those whose team they are on for guests and readers.
func projectSeen(v taskd.Viewer, col string) cond {
	switch {
	case v.SeesNothing():
		return nothing
	case v.SeesAll():
		return cond{}
	}
	return cond{col + ` IN (SELECT pm.project_id FROM project_members pm WHERE pm.person_id = ?)`, []any{v.PersonID}}
}

// seenTask is the condition that the person who (an argument "?" or a
// column) may see the task of alias: its author, listed, or the task lists
// nobody.
func seenTask(alias, who string) string {
	return `(` + alias + `.author_id = ` + who + ` OR NOT EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = ` + alias + `.id)
		OR EXISTS (SELECT 1 FROM task_viewers v WHERE v.task_id = ` + alias + `.id AND v.person_id = ` + who + `))`
}

// seenTaskAndParent is seenTask for task alias and its parent: with who
// "?", four arguments.
func seenTaskAndParent(alias, who string) string {
	return seenTask(alias, who) + ` AND (` + alias + `.parent_id IS NULL OR EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ` + alias + `.parent_id AND ` +
		seenTask("pt", who) + `))`
}

// taskSeen is the condition that the viewer sees the task of alias, one
// task probed: its project, and neither it nor its parent hidden from them.
func taskSeen(v taskd.Viewer, alias string) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, alias+".project_id")
	}
	p := v.PersonID
	return and(projectSeen(v, alias+".project_id"), cond{"(" + seenTaskAndParent(alias, "?") + ")", []any{p, p, p, p}})
}

// unseenTasks selects the ids of the account's tasks hidden from a person:
// they list viewers, and the person is neither one of them nor the
// author. Three arguments: the account, the person, the person.
const unseenTasks = `SELECT v.task_id FROM task_viewers v JOIN tasks h ON h.id = v.task_id
	WHERE v.account_id = ? AND h.author_id <> ?
	AND NOT EXISTS (SELECT 1 FROM task_viewers w WHERE w.task_id = v.task_id AND w.person_id = ?)`

// unseen is unseenTasks for the viewer, as the condition that the column
// col is none of them.
func unseen(v taskd.Viewer, col string) cond {
	return cond{col + ` NOT IN (` + unseenTasks + `)`, []any{v.AccountID, v.PersonID, v.PersonID}}
}

// listSeen is taskSeen for lists of tasks t: the hidden set is read once
// per query rather than probed for each task.
func listSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "t.project_id")
	}
	parent := unseen(v, "t.parent_id")
	parent.sql = "(t.parent_id IS NULL OR " + parent.sql + ")"
	return and(projectSeen(v, "t.project_id"), unseen(v, "t.id"), parent)
}

// seenComment is the condition on comment alias that the person who sees
// it: its author, listed, or the comment lists nobody. Two placeholders
// when who is "?".
func seenComment(alias, who string) string {
	return `(` + alias + `.author_id = ` + who + ` OR NOT EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = ` + alias + `.id)
	OR EXISTS (SELECT 1 FROM comment_viewers v WHERE v.comment_id = ` + alias + `.id AND v.person_id = ` + who + `))`
}

// commentSeen is the condition that the viewer sees comment c on task t:
// the task (taskSeen) and the comment itself.
func commentSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "t.project_id")
	}
	return and(taskSeen(v, "t"), cond{seenComment("c", "?"), []any{v.PersonID, v.PersonID}})
}

// costsSeen is the condition that the viewer sees the cost lines c: their
// project, and neither their task nor its top-level task hidden. It needs
// no join to tasks, so that sums read costs alone.
func costsSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "c.project_id")
	}
	return and(projectSeen(v, "c.project_id"), unseen(v, "c.task_id"), unseen(v, "c.top_task_id"))
}

// filesSeen is the condition that the viewer sees the files f: an upload
// not attached yet by its uploader only (for the key, the member it acts
// as); an attached file where its project, task (and the task's parent)
// and comment are seen.
func filesSeen(v taskd.Viewer) cond {
	if v.SeesNothing() {
		return nothing
	}
	upload := cond{`(f.owner <> '' OR f.author_id = ?)`, []any{v.PersonID}}
	if v.Key {
		return upload
	}
	task := and(unseen(v, "f.task_id"), cond{`NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = f.task_id AND t.parent_id IN (` + unseenTasks + `))`,
		[]any{v.AccountID, v.PersonID, v.PersonID}})
	task.sql = "(f.task_id = 0 OR " + task.sql + ")"
	comment := cond{`(f.owner <> 'comment' OR EXISTS (SELECT 1 FROM comments c WHERE c.id = f.owner_id AND ` + seenComment("c", "?") + `))`,
		[]any{v.PersonID, v.PersonID}}
	project := projectSeen(v, "f.project_id")
	if project.sql != "" {
		project.sql = "(f.owner = '' OR " + project.sql + ")"
	}
	return and(upload, project, task, comment)
}

// eventsSeen is the condition that the viewer sees the events e: their
// project, and the task and comment they are about (with the task's
// parent) while these exist; an event about a task or comment deleted
// since is seen when neither was hidden from anyone when it was written
// (events.hidden), since who was listed went with them.
func eventsSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "e.project_id")
	}
	p := v.PersonID
	task := cond{`(e.task_id IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM tasks t WHERE t.id = e.task_id)
		THEN EXISTS (SELECT 1 FROM tasks t WHERE t.id = e.task_id AND ` + seenTaskAndParent("t", "?") + `)
		ELSE e.hidden = 0 END)`, []any{p, p, p, p}}
	comment := cond{`(e.comment_id IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM comments c WHERE c.id = e.comment_id)
		THEN EXISTS (SELECT 1 FROM comments c WHERE c.id = e.comment_id AND ` + seenComment("c", "?") + `)
		ELSE e.hidden = 0 END)`, []any{p, p}}
	return and(projectSeen(v, "e.project_id"), task, comment)
}
