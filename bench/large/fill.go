package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver
)

// scale is the size of the account the scenario builds.
type scale struct {
	tasks, projects, bigProject, events, costs int
}

func scaleOf(tasks int) scale {
	return scale{tasks: tasks, projects: 200, bigProject: tasks / 5, events: tasks * 10, costs: tasks * 2}
}

// filled is what fill made, for the measurements.
type filled struct {
	bigProject int64 // the project of tasks/5 tasks
	tasks      int
}

// fill writes the account's projects, tasks, events and cost lines
// straight into the database in large transactions: rows, not API calls
// (the filling is not measured). Every 4th top-level task has 3
// subtasks, every 3rd childless task is done, one task name in 97 holds
// "Report"; events are spread over the last 60 days and cost lines over
// the last year.
func fill(ctx context.Context, driver, dsn string, accountID int64, sc scale) (filled, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return filled{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	pg := driver == "pgx"
	q := func(s string) string { return s }
	if pg {
		q = numbered
	}
	var p taskd.Person
	err = db.QueryRowContext(ctx, q(`SELECT p.id, p.email, p.first_name, p.last_name FROM members m JOIN persons p ON p.id = m.person_id
		WHERE m.account_id = ? AND m.role = 'owner'`), accountID).Scan(&p.ID, &p.Email, &p.FirstName, &p.LastName)
	if err != nil {
		return filled{}, fmt.Errorf("owner: %w", err)
	}
	owner := p.Ref()
	var first int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM projects`).Scan(&first); err != nil {
		return filled{}, err
	}
	var firstTask int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM tasks`).Scan(&firstTask); err != nil {
		return filled{}, err
	}
	now := time.Now().UTC()
	nowMS := now.UnixMilli()

	// SQLite's trigger bumps a project's version per event: dropped while
	// filling (PostgreSQL's is skipped with session_replication_role).
	var trigger string
	if !pg {
		if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'events_bump_project_version'`).Scan(&trigger); err != nil {
			return filled{}, fmt.Errorf("trigger: %w", err)
		}
		if _, err := db.ExecContext(ctx, `DROP TRIGGER events_bump_project_version`); err != nil {
			return filled{}, err
		}
	}

	b := &bulk{db: db, q: q, pg: pg}
	// Projects: the first is the big one.
	projects := make([]int64, sc.projects)
	for i := range projects {
		projects[i] = first + 1 + int64(i)
		name := fmt.Sprintf("Project %d", i+1)
		if i == 0 {
			name = "Big project"
		}
		if err := b.add(ctx, "projects (id, account_id, name, status, author_id, created_at)", projects[i], accountID, name, "active", owner.ID, nowMS); err != nil {
			return filled{}, err
		}
	}
	if err := b.flush(ctx); err != nil {
		return filled{}, err
	}

	// Tasks: the big project's share, then the rest spread evenly.
	type taskInfo struct{ id, project, top int64 }
	tasks := make([]taskInfo, 0, sc.tasks)
	id := firstTask
	perProject := func(p int) int {
		if p == 0 {
			return sc.bigProject
		}
		rest := sc.tasks - sc.bigProject
		n := rest / (sc.projects - 1)
		if p <= rest%(sc.projects-1) {
			n++
		}
		return n
	}
	text := strings.Repeat("Some words about the work to do. ", 3)
	for p, pid := range projects {
		n := perProject(p)
		made := 0
		for k := 0; made < n; k++ {
			id++
			top := id
			name := fmt.Sprintf("Task %d", id)
			if id%97 == 0 {
				name = fmt.Sprintf("Report %d", id)
			}
			kids := 0
			if k%4 == 0 && n-made >= 4 {
				kids = 3
			}
			status, closed := "active", int64(0)
			if kids == 0 && id%3 == 0 {
				status, closed = "done", nowMS
			}
			if err := b.add(ctx, "tasks (id, account_id, project_id, parent_id, name, text, status, priority, author_id, assignee_id, date_end, created_at, closed_at)",
				id, accountID, pid, nil, name, text, status, int(id%11), owner.ID, owner.ID, "", nowMS-int64(sc.tasks-len(tasks))*1000, closed); err != nil {
				return filled{}, err
			}
			tasks = append(tasks, taskInfo{id, pid, top})
			made++
			for range kids {
				id++
				status := "active"
				if id%3 == 0 {
					status = "done"
				}
				if err := b.add(ctx, "tasks (id, account_id, project_id, parent_id, name, text, status, priority, author_id, assignee_id, date_end, created_at, closed_at)",
					id, accountID, pid, top, fmt.Sprintf("Subtask %d", id), "", status, 1, owner.ID, 1, "", nowMS, 0); err != nil {
					return filled{}, err
				}
				tasks = append(tasks, taskInfo{id, pid, top})
				made++
			}
		}
	}
	if err := b.flush(ctx); err != nil {
		return filled{}, err
	}

	// Events: update_task of the tasks in turn, over the last 60 days.
	span := 60 * 24 * time.Hour
	for i := range sc.events {
		t := tasks[i%len(tasks)]
		at := now.Add(-span + time.Duration(int64(span)/int64(sc.events)*int64(i)))
		task := taskd.Task{ID: t.id, ProjectID: t.project, Project: taskd.ProjectRef{ID: t.project, Name: "Project"}}
		ev, _ := wire.ChangeEvent(taskd.Actor{AccountID: accountID, Person: owner, Role: taskd.RoleOwner}, at, taskd.ActionUpdate, taskd.ObjectTask,
			t.id, task.Page(), task.Project, map[string]any{"priority": 1}, map[string]any{"priority": i % 11})
		body, err := json.Marshal(ev)
		if err != nil {
			return filled{}, err
		}
		if err := b.add(ctx, "events (account_id, project_id, name, created_at, body, task_id, hidden, fanned)",
			accountID, t.project, ev.Name, at.UnixMilli(), string(body), t.id, 0, 1); err != nil {
			return filled{}, err
		}
	}
	if err := b.flush(ctx); err != nil {
		return filled{}, err
	}

	// Cost lines: two per task over the last year.
	for i := range sc.costs {
		t := tasks[i%len(tasks)]
		day := now.AddDate(0, 0, -(i % 365)).Format("2006-01-02")
		if err := b.add(ctx, "costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, comment, day, created_at)",
			accountID, t.project, t.id, t.top, owner.ID, 30+i%90, (i%7)*100, "Work", day, nowMS); err != nil {
			return filled{}, err
		}
	}
	if err := b.flush(ctx); err != nil {
		return filled{}, err
	}

	if pg {
		for _, table := range []string{"projects", "tasks", "events", "costs"} {
			if _, err := db.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+table+`', 'id'), (SELECT MAX(id) FROM `+table+`))`); err != nil {
				return filled{}, fmt.Errorf("sequence of %s: %w", table, err)
			}
		}
		if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
			return filled{}, err
		}
	} else {
		// No ANALYZE: taskd never writes SQLite's statistics, so its
		// databases have none, and the planner's choices measured here are
		// those of a real one. Statistics taken before a newer binary's
		// migration would also leave its new indexes without any, which
		// no real database has either.
		if _, err := db.ExecContext(ctx, trigger); err != nil {
			return filled{}, fmt.Errorf("trigger: %w", err)
		}
	}
	return filled{bigProject: projects[0], tasks: len(tasks)}, nil
}

// bulk inserts rows of one table at a time, many to a statement and many
// statements to a transaction.
type bulk struct {
	db    *sql.DB
	q     func(string) string
	pg    bool
	into  string
	width int
	args  []any
	rows  int
	tx    *sql.Tx
	inTx  int
}

const (
	rowsPerStatement   = 400
	rowsPerTransaction = 50000
)

func (b *bulk) add(ctx context.Context, into string, row ...any) error {
	if into != b.into && b.rows > 0 {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	b.into, b.width = into, len(row)
	b.args = append(b.args, row...)
	b.rows++
	if b.rows == rowsPerStatement {
		return b.statement(ctx)
	}
	return nil
}

func (b *bulk) statement(ctx context.Context) error {
	if b.rows == 0 {
		return nil
	}
	if b.tx == nil {
		var err error
		if b.tx, err = b.db.BeginTx(ctx, nil); err != nil {
			return err
		}
		if b.pg {
			if _, err := b.tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
				return err
			}
		}
	}
	row := "(?" + strings.Repeat(", ?", b.width-1) + ")"
	stmt := "INSERT INTO " + b.into + " VALUES " + row + strings.Repeat(", "+row, b.rows-1)
	if _, err := b.tx.ExecContext(ctx, b.q(stmt), b.args...); err != nil {
		return fmt.Errorf("insert into %.20s: %w", b.into, err)
	}
	b.inTx += b.rows
	b.args, b.rows = b.args[:0], 0
	if b.inTx >= rowsPerTransaction {
		return b.commit()
	}
	return nil
}

func (b *bulk) commit() error {
	if b.tx == nil {
		return nil
	}
	err := b.tx.Commit()
	b.tx, b.inTx = nil, 0
	return err
}

// flush writes what is pending and commits.
func (b *bulk) flush(ctx context.Context) error {
	if err := b.statement(ctx); err != nil {
		return err
	}
	return b.commit()
}

// numbered rewrites ? placeholders as $1, $2, … for PostgreSQL.
func numbered(s string) string {
	var out strings.Builder
	n := 0
	for _, r := range s {
		if r == '?' {
			n++
			fmt.Fprintf(&out, "$%d", n)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}
