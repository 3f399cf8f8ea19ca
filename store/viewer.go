package store

import (
	"strings"

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

// not is the condition that c does not hold: what c leaves out.
func not(c cond) cond {
	if c.sql == "" {
		return nothing
	}
	return cond{`NOT (` + c.sql + `)`, c.args}
}

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
	return cond{onTeam(col, "?"), []any{v.PersonID}}
}

// memberSeesProject is projectSeen for every member at once: the
// condition that the member of the members row m sees the project whose
// id is project (a column, or "?" with no argument of its own): every
// project for the roles that are not limited, those whose team they are
// on for the limited ones (taskd.Role.Limited). Every member may read.
func memberSeesProject(m, project string) string {
	var limited []string
	for _, r := range []taskd.Role{taskd.RoleOwner, taskd.RoleAdmin, taskd.RoleUser, taskd.RoleGuest, taskd.RoleReader} {
		if r.Limited() {
			limited = append(limited, `'`+string(r)+`'`)
		}
	}
	return `(` + m + `.role NOT IN (` + strings.Join(limited, ", ") + `) OR ` + onTeam(project, m+".person_id") + `)`
}

// onTeam is the condition that the person who (a column or "?") is on the
// team of the project whose id is col.
func onTeam(col, who string) string {
	return col + ` IN (SELECT pm.project_id FROM project_members pm WHERE pm.person_id = ` + who + `)`
}

// hiddenTasks selects the ids of the account's tasks hidden from the
// person who (an argument "?" or a column), with their whole subtrees: a
// task that lists viewers hides itself from everyone but them and its
// author, and with it its subtasks and theirs, at every level
// (taskd.MaxLevels). It is the one place that decides which tasks a
// person sees: every read and every notification asks it. Arguments: the
// account, then, with who "?", the person twice.
func hiddenTasks(who string) string {
	return `WITH RECURSIVE hidden (id) AS (SELECT v.task_id FROM task_viewers v JOIN tasks h ON h.id = v.task_id
		WHERE v.account_id = ? AND h.author_id <> ` + who + `
		AND NOT EXISTS (SELECT 1 FROM task_viewers w WHERE w.task_id = v.task_id AND w.person_id = ` + who + `)
		UNION SELECT s.id FROM tasks s JOIN hidden ON s.parent_id = hidden.id) SELECT id FROM hidden`
}

// taskLineage selects the id of the task id (an argument "?" or a column)
// and those of the tasks above it, at every level.
func taskLineage(id string) string {
	return `WITH RECURSIVE lineage (id, parent_id) AS (SELECT l.id, l.parent_id FROM tasks l WHERE l.id = ` + id + `
		UNION ALL SELECT a.id, a.parent_id FROM tasks a JOIN lineage ON a.id = lineage.parent_id) SELECT id FROM lineage`
}

// unseen is hiddenTasks for the viewer, as the condition that the column
// col is none of them. The set is read once per query.
func unseen(v taskd.Viewer, col string) cond {
	return cond{col + ` NOT IN (` + hiddenTasks("?") + `)`, []any{v.AccountID, v.PersonID, v.PersonID}}
}

// taskSeen is the condition that the viewer sees the task of alias: its
// project, and neither it nor any task above it hidden from them.
func taskSeen(v taskd.Viewer, alias string) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, alias+".project_id")
	}
	return and(projectSeen(v, alias+".project_id"), unseen(v, alias+".id"))
}

// listSeen is taskSeen for lists of tasks t.
func listSeen(v taskd.Viewer) cond { return taskSeen(v, "t") }

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
// project, and their task (hiddenTasks holds the subtrees of hidden
// tasks). It needs no join to tasks, so that sums read costs alone.
func costsSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "c.project_id")
	}
	return and(projectSeen(v, "c.project_id"), unseen(v, "c.task_id"))
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
	task := unseen(v, "f.task_id")
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
// project, and the task and comment they are about (the task as
// hiddenTasks decides, with the tasks above it) while these exist; an event about a task or comment deleted
// since is seen when neither was hidden from anyone when it was written
// (events.hidden), since who was listed went with them.
func eventsSeen(v taskd.Viewer) cond {
	if v.Key || v.SeesNothing() {
		return projectSeen(v, "e.project_id")
	}
	p := v.PersonID
	task := cond{`(e.task_id IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM tasks t WHERE t.id = e.task_id)
		THEN e.task_id NOT IN (` + hiddenTasks("?") + `)
		ELSE e.hidden = 0 END)`, []any{v.AccountID, p, p}}
	comment := cond{`(e.comment_id IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM comments c WHERE c.id = e.comment_id)
		THEN EXISTS (SELECT 1 FROM comments c WHERE c.id = e.comment_id AND ` + seenComment("c", "?") + `)
		ELSE e.hidden = 0 END)`, []any{p, p}}
	return and(projectSeen(v, "e.project_id"), task, comment, relatedSeen(v))
}

// relatedSeen is the condition that the viewer sees the other task an
// event of a relation names (events.related_task_id, issue 35): as
// eventsSeen's task, with that task's own project.
func relatedSeen(v taskd.Viewer) cond {
	seen := and(projectSeen(v, "r.project_id"), unseen(v, "r.id"))
	return cond{`(e.related_task_id IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM tasks r WHERE r.id = e.related_task_id)
		THEN EXISTS (SELECT 1 FROM tasks r WHERE r.id = e.related_task_id` + seen.where() + `)
		ELSE e.hidden = 0 END)`, append([]any{}, seen.args...)}
}

// objectRowSeen is the condition that the viewer sees the task (of a row
// o with task_id) or the project (of a row o with project_id) that a row
// of a tag or custom-field table belongs to. Each object of a page is
// probed (its ids come from a list the viewer read), rather than the
// account's whole set of tasks read.
func objectRowSeen(v taskd.Viewer, tasks bool) cond {
	if !tasks {
		return projectSeen(v, "o.project_id")
	}
	c := taskSeen(v, "t")
	if c.sql == "" {
		return c
	}
	return cond{`EXISTS (SELECT 1 FROM tasks t WHERE t.id = o.task_id AND ` + c.sql + `)`, c.args}
}
