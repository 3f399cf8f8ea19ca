package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// DefaultPriority is the priority of a task created without one.
const DefaultPriority = 1

// taskColumns select a task with its people and its project's name. Every
// task has its project: the LEFT JOIN only keeps the task the outer loop,
// so that SQLite reads tasks in id order and a LIMIT ends the scan early,
// instead of reading every project's tasks and sorting them.
var taskColumns = taskColumnsOf("tasks")

// taskColumnsOf is taskColumns of the tasks of a table or a subquery.
func taskColumnsOf(tasks string) string {
	return taskFields + ` FROM ` + tasks + ` t ` + taskJoins
}

// taskFields are the columns of a task t (taskRow) and taskJoins the
// joins they read (up is the parent, for the grandparent's id), for queries that select a task beside other rows.
const (
	taskFields = `t.id, t.account_id, t.project_id, COALESCE(t.parent_id, 0), COALESCE(up.parent_id, 0), t.name, t.text, t.status, t.priority,
	t.created_at, t.date_start, t.date_end, t.closed_at,
	t.author_id, COALESCE(a.email, ''), COALESCE(a.first_name, ''), COALESCE(a.last_name, ''),
	t.assignee_id, COALESCE(b.email, ''), COALESCE(b.first_name, ''), COALESCE(b.last_name, ''), COALESCE(pr.name, ''),
	t.max_minutes, t.max_cents`
	taskJoins = `LEFT JOIN projects pr ON pr.id = t.project_id LEFT JOIN tasks up ON up.id = t.parent_id
	LEFT JOIN persons a ON a.id = t.author_id LEFT JOIN persons b ON b.id = t.assignee_id`
)

func scanTask(s interface{ Scan(...any) error }) (taskd.Task, error) {
	var r taskRow
	err := s.Scan(r.dest()...)
	return r.task(), err
}

// taskRow receives the columns of taskColumns, for queries that select
// more after them.
type taskRow struct {
	t             taskd.Task
	added, closed int64
	aid, bid      int64
	ae, af, al    string
	be, bf, bl    string
}

func (r *taskRow) dest() []any {
	t := &r.t
	return []any{&t.ID, &t.AccountID, &t.ProjectID, &t.ParentID, &t.GrandparentID, &t.Name, &t.Text, &t.Status, &t.Priority,
		&r.added, &t.DateStart, &t.DateEnd, &r.closed, &r.aid, &r.ae, &r.af, &r.al, &r.bid, &r.be, &r.bf, &r.bl, &t.Project.Name,
		&t.MaxMinutes, &t.MaxCents}
}

func (r *taskRow) task() taskd.Task {
	t := r.t
	t.DateAdded, t.DateClosed = fromMS(r.added), fromMS(r.closed)
	t.Author, t.Assignee = personRef(r.aid, r.ae, r.af, r.al), personRef(r.bid, r.be, r.bf, r.bl)
	t.Project.ID = t.ProjectID
	return t
}

// Tasks returns the account's tasks that match q, ordered by id, so that a
// parent precedes its subtasks.
func (db *DB) Tasks(ctx context.Context, q taskd.TaskQuery) ([]taskd.Task, error) {
	query, args := db.tasksSQL(q)
	out, err := all(ctx, db.reader, "tasks", query, scanTask, args...)
	if out == nil && err == nil {
		out = []taskd.Task{}
	}
	return out, err
}

// tasksSQL is the query of Tasks and its arguments.
func (db *DB) tasksSQL(q taskd.TaskQuery) (string, []any) {
	where, args := db.taskWhere(q)
	if q.Status != "" {
		// A search's candidates (trigramCandidates) are few: the list is
		// read from them and sorted. The unary + keeps SQLite from reading
		// the project's whole status in tree order (index tasks_tree) and
		// checking each row against them.
		status := ` AND t.status = ?`
		if strings.Contains(where, searchMatch) {
			status = ` AND +t.status = ?`
		}
		where += status
		args = append(args, q.Status)
	}
	order := taskOrder(q.Sort)
	if q.Limit <= 0 {
		// Without a limit, the list is whole (docs/api.md): its rows are
		// chosen from tasks alone, then joined to their project and people.
		args = append(args, max(q.Offset, 0))
		return db.d.q(`SELECT ` + taskColumnsOf(`(SELECT t.* FROM tasks t`+where+order+db.d.noLimit+`)`) + order), args
	}
	// A page: its ids are chosen first, with no more of each row than the
	// order needs (an index holds the project's ids and statuses,
	// migration 0028, and in tree order, migration 0030), and only the
	// page's rows are read whole and joined; a project of 20,000 tasks
	// reads a page's ids in tree order from the index, and sorts 20,000
	// ids in the other orders, never 20,000 rows with their text.
	args = append(args, q.Limit, max(q.Offset, 0))
	ids := `SELECT t.id FROM tasks t` + where + order + ` LIMIT ? OFFSET ?`
	return db.d.q(`SELECT ` + taskFields + ` FROM (` + ids + `) page JOIN tasks t ON t.id = page.id ` + taskJoins + order), args
}

// taskOrder is the ORDER BY clause of a sort (taskd.SortID and the others).
func taskOrder(sort string) string {
	switch sort {
	case taskd.SortNewest:
		return ` ORDER BY t.id DESC`
	case taskd.SortTree:
		// Each subtask after its parent, each sub-subtask after its
		// subtask (taskd.MaxLevels).
		return ` ORDER BY ` + treeOrder
	case taskd.SortDue:
		return ` ORDER BY CASE WHEN t.date_end = '' THEN 1 ELSE 0 END, t.date_end, t.id`
	case taskd.SortPriority:
		return ` ORDER BY t.priority DESC, t.id`
	case taskd.SortName:
		return ` ORDER BY LOWER(t.name), t.id`
	}
	return ` ORDER BY t.id`
}

// treeOrder sorts tasks t in tree order by their stored tree keys
// (migration 0030): the top-level task of a task's line (itself at the
// top), then the subtask of its line (0 for a top-level task; itself for
// a subtask; its parent for a sub-subtask), then the id. The keys'
// expressions are those of the index tasks_tree, so that a project's
// page of a status comes out of the index in order.
const treeOrder = `COALESCE(t.top_id, t.id), COALESCE(t.sub_id, t.id), t.id`

// CountTasks counts the query's tasks by status.
func (db *DB) CountTasks(ctx context.Context, q taskd.TaskQuery) (taskd.TaskCounts, error) {
	where, args := db.taskWhere(q)
	rows, err := db.reader.QueryContext(ctx, db.d.q(`SELECT t.status, COUNT(*) FROM tasks t`+where+` GROUP BY t.status`), args...)
	if err != nil {
		return taskd.TaskCounts{}, taskd.Internal("count tasks", err)
	}
	defer rows.Close()
	var c taskd.TaskCounts
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return c, taskd.Internal("count tasks", err)
		}
		if status == taskd.StatusDone {
			c.Done = n
		} else {
			c.Active = n
		}
	}
	if err := rows.Err(); err != nil {
		return c, taskd.Internal("count tasks", err)
	}
	return c, nil
}

// taskWhere is the WHERE clause of a query, all but its Status, and its
// arguments.
func (db *DB) taskWhere(q taskd.TaskQuery) (string, []any) {
	var where strings.Builder
	seen := listSeen(q.Viewer)
	args := append([]any{q.Viewer.AccountID}, seen.args...)
	where.WriteString(` WHERE t.account_id = ?` + seen.where())
	add := func(cond string, v any) {
		where.WriteString(" AND " + cond)
		args = append(args, v)
	}
	if q.ProjectID != 0 {
		add(`t.project_id = ?`, q.ProjectID)
	}
	if q.ParentID != 0 {
		add(`t.parent_id = ?`, q.ParentID)
	}
	if q.AuthorEmail != "" {
		add(`t.author_id IN (SELECT id FROM persons WHERE email = ?)`, q.AuthorEmail)
	}
	switch q.AssigneeEmail {
	case "":
	case "NOONE":
		add(`t.assignee_id = ?`, taskd.NobodyID)
	case "ANY":
		add(`t.assignee_id = ?`, taskd.AnyoneID)
	default:
		add(`t.assignee_id IN (SELECT id FROM persons WHERE email = ?)`, q.AssigneeEmail)
	}
	if q.TaskID != 0 {
		where.WriteString(` AND (t.id = ? OR t.parent_id = ? OR t.parent_id IN (SELECT s.id FROM tasks s WHERE s.parent_id = ?))`)
		args = append(args, q.TaskID, q.TaskID, q.TaskID)
	}
	if q.ActiveProjects {
		// A unary + keeps the planner on the account's index, in id order, so
		// that a LIMIT stops the scan early (SQLite would read every project's
		// tasks and sort them).
		add(`+t.project_id IN (SELECT id FROM projects WHERE account_id = ? AND status = 'active')`, q.Viewer.AccountID)
	}
	if q.Filter != nil {
		cond, fargs := db.filterSQL(q.Filter, taskFilter)
		where.WriteString(` AND ` + cond)
		args = append(args, fargs...)
	}
	if q.Text != "" {
		pattern := "%" + escapeLike(q.Text) + "%"
		pre, pargs := db.trigramCandidates(q.Text, searchBoth)
		where.WriteString(` AND ` + pre + `(t.name ` + db.d.ilike + ` ? ESCAPE '\' OR t.text ` + db.d.ilike + ` ? ESCAPE '\')`)
		args = append(append(args, pargs...), pattern, pattern)
	}
	if q.SubscriberID != 0 {
		add(`t.id IN (SELECT task_id FROM task_subscribers WHERE person_id = ?)`, q.SubscriberID)
	}
	if q.TagID != 0 {
		add(`t.id IN (SELECT task_id FROM task_tags WHERE tag_id = ?)`, q.TagID)
	}
	if q.UntaggedIn != 0 {
		add(`t.id NOT IN (SELECT tt.task_id FROM task_tags tt JOIN tags g ON g.id = tt.tag_id WHERE g.group_id = ?)`, q.UntaggedIn)
	}
	if q.NoDateEnd {
		where.WriteString(` AND t.date_end = ''`)
	}
	return where.String(), args
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ProjectVersion returns the version of a project's task list, which every
// change to its tasks increases; not found ("project") for a project the
// viewer does not see.
func (db *DB) ProjectVersion(ctx context.Context, viewer taskd.Viewer, projectID int64) (int64, error) {
	var v int64
	seen := projectSeen(viewer, "pr.id")
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT pr.version FROM projects pr WHERE pr.account_id = ? AND pr.id = ?`+seen.where()),
		append([]any{viewer.AccountID, projectID}, seen.args...)...).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, taskd.NotFound("project")
	}
	if err != nil {
		return 0, taskd.Internal("project version", err)
	}
	return v, nil
}

// Task returns one task the viewer sees; not found ("task") otherwise.
func (db *DB) Task(ctx context.Context, v taskd.Viewer, id int64) (taskd.Task, error) {
	return db.task(ctx, db.reader, v, id, false)
}

func (db *DB) task(ctx context.Context, q querier, v taskd.Viewer, id int64, lock bool) (taskd.Task, error) {
	seen := taskSeen(v, "t")
	query := `SELECT ` + taskColumns + ` WHERE t.account_id = ? AND t.id = ?` + seen.where()
	if lock && db.d.forUpdate != "" {
		query += db.d.forUpdate + ` OF t`
	}
	t, err := scanTask(q.QueryRowContext(ctx, db.d.q(query), append([]any{v.AccountID, id}, seen.args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return t, taskd.NotFound("task")
	}
	if err != nil {
		return t, taskd.Internal("task", err)
	}
	return t, nil
}

// applyTask copies the input's set fields onto t, resolving the assignee.
func (db *DB) applyTask(ctx context.Context, tx querier, t *taskd.Task, in taskd.TaskInput) error {
	if in.Name != nil {
		t.Name = *in.Name
	}
	if in.Text != nil {
		t.Text = *in.Text
	}
	if in.Priority != nil {
		t.Priority = *in.Priority
	}
	if err := taskd.SetDate("datestart", &t.DateStart, in.DateStart); err != nil {
		return err
	}
	if err := taskd.SetDate("dateend", &t.DateEnd, in.DateEnd); err != nil {
		return err
	}
	if in.AssigneeEmail != nil {
		p, err := db.resolvePerson(ctx, tx, t.AccountID, *in.AssigneeEmail, true)
		if err != nil {
			return err
		}
		t.Assignee = p
	}
	if in.MaxMinutes != nil {
		t.MaxMinutes = *in.MaxMinutes
	}
	if in.MaxCents != nil {
		t.MaxCents = *in.MaxCents
	}
	return taskd.CheckDateRange(t.DateStart, t.DateEnd)
}

// emitTask writes a task's event. Its project's version, which keys the
// cached task lists, goes up with it: a trigger on events does that
// (migration 0009), on PostgreSQL at commit, so the project's row is locked
// only while the transaction commits.
func (db *DB) emitTask(ctx context.Context, tx querier, by taskd.Actor, action string, t taskd.Task, before, after map[string]any) error {
	return db.emitChange(ctx, tx, by, action, taskd.ObjectTask, t.ID, t.Page(), t.Project, subject{task: t.ID}, before, after)
}

// CreateTask adds a task, or a subtask when parentID is set (a task or a
// subtask: taskd.CanAddSubtask), and writes post_task. Codes: 4 unknown
// project, 21 archived project, 5 unknown parent, parent in another
// project or a sub-subtask as parent, 8 parent done.
func (db *DB) CreateTask(ctx context.Context, by taskd.Actor, projectID, parentID int64, in taskd.TaskInput) (taskd.Task, error) {
	t := taskd.Task{AccountID: by.AccountID, ProjectID: projectID, ParentID: parentID, Status: taskd.StatusActive,
		Priority: DefaultPriority, Author: by.Person, Assignee: taskd.Nobody, DateAdded: db.importedAdded(in.Import, by, taskd.ImportTask)}
	err := db.change(ctx, by, "create task", func(tx querier) error {
		p, err := db.project(ctx, tx, by.Viewer(), projectID, false)
		if err != nil {
			return err
		}
		if p.Status != taskd.ProjectActive {
			return taskd.Conflict(taskd.ReasonProjectArchived, "project", "Project is archived")
		}
		t.Project = p.Ref()
		if p.Assignee.ID != 0 {
			t.Assignee = p.Assignee // the project's default; email_user_to overrides it
		}
		var parent any
		if parentID != 0 {
			pt, err := db.task(ctx, tx, by.Viewer(), parentID, true)
			if err != nil {
				return taskd.NotFound("parent")
			}
			if pt.ProjectID != projectID {
				return taskd.Invalid("parent", "Parent task is in another project")
			}
			if err := taskd.CanAddSubtask(pt); err != nil {
				return err
			}
			parent, t.GrandparentID = parentID, pt.ParentID
		}
		if err := db.applyTask(ctx, tx, &t, in); err != nil {
			return err
		}
		subs := subscribersOf(t.Author, t.Assignee)
		if err := db.insertTask(ctx, tx, &t, parent, &subs); err != nil {
			return err
		}
		if err := db.hide(ctx, tx, "task_viewers", "task_id", t.ID, t.AccountID, in.Hidden); err != nil {
			return err
		}
		if err := db.attach(ctx, tx, by, in.Files, taskd.OwnerTask, t.ID, t.ProjectID, t.ID); err != nil {
			return err
		}
		fields := wire.TaskFields(t)
		if in.Tags != nil { // the event says which tags the task was made with, as update_task's does
			_, tags, err := db.replaceTags(ctx, tx, t.AccountID, taskd.TagsOfTasks, t.ID, *in.Tags)
			if err != nil {
				return err
			}
			fields["tags"] = tags
		}
		values, err := db.newFieldValues(ctx, tx, t.AccountID, taskd.ObjectTask, t.ID, in.Fields)
		if err != nil {
			return err
		}
		if err := db.subscribeNew(ctx, tx, t, &subs); err != nil {
			return err
		}
		if err := db.subscribeAll(ctx, tx, t, in.Subscribe); err != nil {
			return err
		}
		// A new task has no followers but its author, its assignee and
		// those subscribed here: with none of them but the author, nobody
		// is told, and the query is saved.
		if len(in.Subscribe) > 0 || (t.Assignee.ID >= taskd.FirstPersonID && t.Assignee.ID != by.Person.ID) {
			if err := db.notify(ctx, tx, by, t, taskd.NoticeCreated(by, t), nil); err != nil {
				return err
			}
		}
		// A new task at the top with no viewers listed is seen by all who
		// see its project: its event needs no look at the viewers.
		s := subject{task: t.ID, open: parentID == 0 && len(in.Hidden) == 0}
		if err := db.writeImported(ctx, tx, by, taskd.ImportTask, t.ID, in.Import); err != nil {
			return err
		}
		return db.emitChange(ctx, tx, by, taskd.ActionPost, taskd.ObjectTask, t.ID, t.Page(), t.Project, s, nil, withFields(fields, values))
	})
	return t, err
}

// UpdateTask changes a task's fields and writes update_task when anything changed.
func (db *DB) UpdateTask(ctx context.Context, by taskd.Actor, id int64, in taskd.TaskInput) (taskd.Task, error) {
	var t taskd.Task
	err := db.change(ctx, by, "update task", func(tx querier) error {
		var err error
		t, err = db.updateTask(ctx, tx, by, id, in)
		return err
	})
	return t, err
}

// updateTask is UpdateTask in the change's transaction tx.
func (db *DB) updateTask(ctx context.Context, tx querier, by taskd.Actor, id int64, in taskd.TaskInput) (taskd.Task, error) {
	t, err := db.task(ctx, tx, by.Viewer(), id, true)
	if err != nil {
		return t, err
	}
	err = func() error {
		before, assignee := wire.TaskFields(t), t.Assignee.ID
		if err := db.applyTask(ctx, tx, &t, in); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE tasks SET name = ?, text = ?, priority = ?, assignee_id = ?,
			date_start = ?, date_end = ?, max_minutes = ?, max_cents = ? WHERE id = ? AND account_id = ?`),
			t.Name, t.Text, t.Priority, t.Assignee.ID, t.DateStart, t.DateEnd, t.MaxMinutes, t.MaxCents, t.ID, t.AccountID)
		if err != nil {
			return err
		}
		after := wire.TaskFields(t)
		if in.Tags != nil {
			oldTags, newTags, err := db.replaceTags(ctx, tx, t.AccountID, taskd.TagsOfTasks, t.ID, *in.Tags)
			if err != nil {
				return err
			}
			before["tags"], after["tags"] = oldTags, newTags
		}
		if in.Fields != nil {
			if before["custom_fields"], after["custom_fields"], err = db.setFieldValues(ctx, tx, t.AccountID, taskd.ObjectTask, t.ID, in.Fields); err != nil {
				return err
			}
		}
		if t.Assignee.ID != assignee {
			if err := db.subscribeAll(ctx, tx, t, []string{t.Assignee.Email}); err != nil {
				return err
			}
			if err := db.notify(ctx, tx, by, t, taskd.NoticeAssigned(by, t), nil); err != nil {
				return err
			}
		}
		return db.emitTask(ctx, tx, by, taskd.ActionUpdate, t, before, after)
	}()
	return t, err
}

// setStatus writes a task's new status and its close or reopen event.
func (db *DB) setStatus(ctx context.Context, tx querier, by taskd.Actor, t *taskd.Task, status string) error {
	before := wire.TaskFields(*t)
	t.Status, t.DateClosed = status, db.now().UTC()
	action := taskd.ActionClose
	if status == taskd.StatusActive {
		t.DateClosed, action = time.Time{}, taskd.ActionReopen
	}
	_, err := tx.ExecContext(ctx, db.d.q(`UPDATE tasks SET status = ?, closed_at = ? WHERE id = ? AND account_id = ?`),
		t.Status, ms(t.DateClosed), t.ID, t.AccountID)
	if err != nil {
		return err
	}
	if err := db.notify(ctx, tx, by, *t, taskd.NoticeStatus(by, status == taskd.StatusDone), nil); err != nil {
		return err
	}
	return db.emitTask(ctx, tx, by, action, *t, before, wire.TaskFields(*t))
}

// CompleteTask marks a task done and writes close_task. Codes: 5, 12 already
// done, 13 active subtasks, 10 (time) no time logged where the project
// requires it (taskd.CheckTimeLogged).
func (db *DB) CompleteTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error) {
	var t taskd.Task
	err := db.change(ctx, by, "complete task", func(tx querier) error {
		var err error
		if t, err = db.task(ctx, tx, by.Viewer(), id, true); err != nil {
			return err
		}
		var active int
		err = tx.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM tasks WHERE parent_id = ? AND status = 'active'`), t.ID).Scan(&active)
		if err != nil {
			return err
		}
		if err := taskd.CanComplete(t, active); err != nil {
			return err
		}
		if err := db.checkTimeLogged(ctx, tx, by.Viewer(), t); err != nil {
			return err
		}
		return db.setStatus(ctx, tx, by, &t, taskd.StatusDone)
	})
	return t, err
}

// checkTimeLogged applies the project's time_require to t: the minutes
// logged on t and, for a task, on its subtasks, by anyone, whoever may see
// the lines.
func (db *DB) checkTimeLogged(ctx context.Context, tx querier, v taskd.Viewer, t taskd.Task) error {
	p, err := db.project(ctx, tx, v, t.ProjectID, false)
	if err != nil || !p.Options.TimeRequire {
		return err
	}
	var minutes int64
	err = tx.QueryRowContext(ctx, db.d.q(`SELECT CAST(COALESCE(SUM(minutes), 0) AS BIGINT) FROM costs
		WHERE account_id = ? AND (task_id = ? OR top_task_id = ?)`), t.AccountID, t.ID, t.ID).Scan(&minutes)
	if err != nil {
		return err
	}
	return taskd.CheckTimeLogged(p, minutes)
}

// ReopenTask makes a done task active again and writes reopen_task. Codes: 5,
// 12 already active, 14 parent done. The parent is locked before the subtask,
// the same order every parent/child rule uses, so the rules hold under
// concurrent changes.
func (db *DB) ReopenTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error) {
	var t taskd.Task
	err := db.change(ctx, by, "reopen task", func(tx querier) error {
		var err error
		if t, err = db.task(ctx, tx, by.Viewer(), id, false); err != nil {
			return err
		}
		parentStatus := ""
		if t.ParentID != 0 {
			parent, err := db.task(ctx, tx, by.Viewer(), t.ParentID, true)
			if err != nil {
				return err
			}
			parentStatus = parent.Status
		}
		if t, err = db.task(ctx, tx, by.Viewer(), id, true); err != nil {
			return err
		}
		if err := taskd.CanReopen(t, parentStatus); err != nil {
			return err
		}
		return db.setStatus(ctx, tx, by, &t, taskd.StatusActive)
	})
	return t, err
}

// DeleteTask deletes a task with its whole subtree and their comments,
// writing delete_task for each task below it, the deepest first, and
// then for the task.
func (db *DB) DeleteTask(ctx context.Context, by taskd.Actor, id int64) error {
	return db.change(ctx, by, "delete task", func(tx querier) error {
		t, err := db.task(ctx, tx, by.Viewer(), id, true)
		if err != nil {
			return err
		}
		below, err := allOnce(ctx, tx, db.d.q(`SELECT `+taskColumns+` WHERE t.account_id = ?
			AND (t.parent_id = ? OR t.parent_id IN (SELECT s.id FROM tasks s WHERE s.parent_id = ?)) ORDER BY t.id`),
			scanTask, by.AccountID, t.ID, t.ID)
		if err != nil {
			return err
		}
		// The events first: they record whether each task was hidden
		// (events.hidden) while its viewers are still listed.
		for _, k := range deepestFirst(taskd.BuildTree(append([]taskd.Task{t}, below...))) {
			if err := db.emitTask(ctx, tx, by, taskd.ActionDelete, k, wire.TaskFields(k), nil); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM tasks WHERE id = ? AND account_id = ?`), t.ID, t.AccountID)
		return err
	})
}

// deepestFirst lists a tree's tasks each after its subtasks, in order.
func deepestFirst(tree []taskd.Task) []taskd.Task {
	var out []taskd.Task
	for _, t := range tree {
		out = append(out, deepestFirst(t.Children)...)
		t.Children = nil
		out = append(out, t)
	}
	return out
}

// subscribeAll subscribes the account's members with the e-mails to the
// task; the pseudo-people and blanks are skipped, and an e-mail that is
// no member's is not found ("member").
func (db *DB) subscribeAll(ctx context.Context, tx querier, t taskd.Task, emails []string) error {
	for _, e := range emails {
		if e == "" || e == taskd.Nobody.Email || e == taskd.Anyone.Email {
			continue
		}
		m, err := db.memberByEmail(ctx, tx, t.AccountID, e)
		if err != nil {
			return err
		}
		if err := db.subscribe(ctx, tx, t.ID, m.ID, true); err != nil {
			return err
		}
	}
	return nil
}
