package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/taskd/taskd"
)

var _ taskd.CostStore = (*DB)(nil)

// costColumns select a cost line with its task (taskColumns first) and
// its person (scanCost).
const costColumns = taskFields + `,
	c.id, c.account_id, c.person_id, COALESCE(cp.email, ''), COALESCE(cp.first_name, ''), COALESCE(cp.last_name, ''),
	c.minutes, c.cents, c.comment, c.day, c.is_timer, c.created_at
	FROM costs c JOIN tasks t ON t.id = c.task_id LEFT JOIN persons cp ON cp.id = c.person_id ` + taskJoins

func scanCost(s scanner) (taskd.Cost, error) {
	var r taskRow
	var c taskd.Cost
	var pid, timer, added int64
	var pe, pf, pl string
	err := s.Scan(append(r.dest(), &c.ID, &c.AccountID, &pid, &pe, &pf, &pl, &c.Minutes, &c.Cents, &c.Comment, &c.Date, &timer, &added)...)
	c.Task = r.task()
	c.TaskID, c.ProjectID = c.Task.ID, c.Task.ProjectID
	c.Person, c.IsTimer, c.Added = personRef(pid, pe, pf, pl), timer == 1, fromMS(added)
	return c, err
}

// costWhere is the WHERE clause of a query on costs c joined to tasks t,
// and its arguments.
func (db *DB) costWhere(q taskd.CostQuery) (string, []any) {
	var where strings.Builder
	seen := costsSeen(q.Viewer)
	args := append([]any{q.Viewer.AccountID}, seen.args...)
	where.WriteString(` WHERE c.account_id = ?` + seen.where())
	add := func(cond string, vs ...any) {
		where.WriteString(" AND " + cond)
		args = append(args, vs...)
	}
	if q.ProjectID != 0 {
		add(`c.project_id = ?`, q.ProjectID)
	}
	if q.TaskID != 0 {
		// The task's lines and those of its whole subtree: below a
		// top-level task by top_task_id, below a subtask by its children.
		add(`(c.task_id = ? OR c.top_task_id = ? OR c.task_id IN (SELECT s.id FROM tasks s WHERE s.parent_id = ?))`, q.TaskID, q.TaskID, q.TaskID)
	}
	if q.PersonID != 0 {
		add(`c.person_id = ?`, q.PersonID)
	}
	if q.From != "" {
		add(`c.day >= ?`, q.From)
	}
	if q.To != "" {
		add(`c.day <= ?`, q.To)
	}
	if q.IsTimer != nil {
		add(`c.is_timer = ?`, boolInt(*q.IsTimer))
	}
	if q.Filter != nil {
		cond, fargs := db.filterSQL(q.Filter, costFilter)
		add(cond, fargs...)
	}
	return where.String(), args
}

// Costs lists the query's lines by date, then in the order they were
// logged (newest first with Newest): at most q.Limit of them, as many as
// asked (a caller that must refuse more than taskd.MaxCostLines asks for
// one more, to see them), or taskd.MaxCostLines when q.Limit is zero.
func (db *DB) Costs(ctx context.Context, q taskd.CostQuery) ([]taskd.Cost, error) {
	where, args := db.costWhere(q)
	limit := q.Limit
	if limit <= 0 {
		limit = taskd.MaxCostLines
	}
	order := ` ORDER BY c.day, c.id`
	if q.Newest {
		order = ` ORDER BY c.day DESC, c.id DESC`
	}
	out, err := all(ctx, db.reader, "costs", db.d.q(`SELECT `+costColumns+where+order+` LIMIT ? OFFSET ?`), scanCost,
		append(args, limit, max(q.Offset, 0))...)
	if out == nil && err == nil {
		out = []taskd.Cost{}
	}
	return out, err
}

// Cost returns one line the viewer sees; not found ("cost") otherwise.
func (db *DB) Cost(ctx context.Context, v taskd.Viewer, id int64) (taskd.Cost, error) {
	return db.cost(ctx, db.reader, v, id)
}

func (db *DB) cost(ctx context.Context, q querier, v taskd.Viewer, id int64) (taskd.Cost, error) {
	seen := taskSeen(v, "t")
	c, err := scanCost(q.QueryRowContext(ctx, db.d.q(`SELECT `+costColumns+` WHERE c.account_id = ? AND c.id = ?`+seen.where()),
		append([]any{v.AccountID, id}, seen.args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return c, taskd.NotFound("cost")
	}
	if err != nil {
		return c, taskd.Internal("cost", err)
	}
	return c, nil
}

// costGroups are, for each group of CostSums, the key columns (an id
// and a day or month) and what they group by.
var costGroups = map[string]struct{ key, by string }{
	taskd.CostByTotal:   {`0, ''`, ``},
	taskd.CostByProject: {`c.project_id, ''`, `c.project_id`},
	// Months are folded from days (monthly): grouped by the index's
	// columns, the sums need no sort.
	taskd.CostByProjectMonth: {`c.project_id, c.day`, `c.project_id, c.day`},
	taskd.CostByPerson:       {`c.person_id, ''`, `c.person_id`},
	taskd.CostByDay:          {`0, c.day`, `c.day`},
	taskd.CostByTask:         {`c.task_id, ''`, `c.task_id`},
	taskd.CostByTopTask:      {`c.top_task_id, ''`, `c.top_task_id`},
}

// CostSums totals the query's lines by group, in the order of the keys.
// The sums are SQL integer sums: exact.
func (db *DB) CostSums(ctx context.Context, q taskd.CostQuery, group string) ([]taskd.CostGroup, error) {
	g, ok := costGroups[group]
	if !ok {
		return nil, taskd.Invalid("group", "Unknown group %q", group)
	}
	query, args := db.costSumsSQL(q, g.key, g.by)
	out, err := all(ctx, db.reader, "cost sums", db.d.q(query), func(s scanner) (taskd.CostGroup, error) {
		var g taskd.CostGroup
		return g, s.Scan(&g.ID, &g.Day, &g.Minutes, &g.Cents, &g.Lines)
	}, args...)
	if group == taskd.CostByTotal && len(out) == 1 && out[0].Lines == 0 {
		out = out[:0]
	}
	if group == taskd.CostByProjectMonth {
		out = monthly(out)
	}
	return out, err
}

// monthly folds sums by project and day, in that order, into sums by
// project and month (YYYY-MM).
func monthly(days []taskd.CostGroup) []taskd.CostGroup {
	var out []taskd.CostGroup
	for _, d := range days {
		d.Day = d.Day[:min(len(d.Day), 7)]
		if n := len(out); n > 0 && out[n-1].ID == d.ID && out[n-1].Day == d.Day {
			out[n-1].Add(d.CostSum)
			continue
		}
		out = append(out, d)
	}
	return out
}

// costSumsSQL is the query of CostSums and its arguments.
func (db *DB) costSumsSQL(q taskd.CostQuery, key, by string) (string, []any) {
	where, args := db.costWhere(q)
	query := `SELECT ` + key + `, CAST(COALESCE(SUM(c.minutes), 0) AS BIGINT), CAST(COALESCE(SUM(c.cents), 0) AS BIGINT), COUNT(*)
		FROM costs c` + where
	if by != "" {
		query += ` GROUP BY ` + by + ` ORDER BY ` + by
	}
	return query, args
}

// AddCost logs a line on a task for by's person, dated today in the
// person's zone unless the input gives a date; with ByRate its money is
// the person's hourly rate times the time. The project's options of
// logging time hold (taskd.CheckCostOptions).
func (db *DB) AddCost(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CostInput) (taskd.Cost, error) {
	var c taskd.Cost
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return c, err
	}
	err := db.tx(ctx, "add cost", func(tx querier) error {
		t, p, err := db.taskAndProject(ctx, tx, by.Viewer(), taskID)
		if err != nil {
			return err
		}
		if err := taskd.CanLogCost(p); err != nil {
			return err
		}
		today, err := db.today(ctx, tx, by.AccountID, by.Person.ID)
		if err != nil {
			return err
		}
		c = taskd.Cost{AccountID: by.AccountID, ProjectID: t.ProjectID, TaskID: t.ID, Task: t, Person: by.Person,
			Date: today, Added: db.now().UTC()}
		if err := db.applyCost(ctx, tx, &c, in); err != nil {
			return err
		}
		if err := taskd.CheckCostOptions(p, nil, c, today); err != nil {
			return err
		}
		if err := db.insertCost(ctx, tx, &c); err != nil {
			return err
		}
		return db.writeImported(ctx, tx, by, taskd.ImportCost, c.ID, in.Import)
	})
	return c, err
}

// taskAndProject reads a task the viewer sees and its project.
func (db *DB) taskAndProject(ctx context.Context, tx querier, v taskd.Viewer, taskID int64) (taskd.Task, taskd.Project, error) {
	t, err := db.task(ctx, tx, v, taskID, false)
	if err != nil {
		return t, taskd.Project{}, err
	}
	p, err := db.project(ctx, tx, v, t.ProjectID, false)
	return t, p, err
}

// insertCost writes a new line, with its task's top-level task, and sets
// its id.
func (db *DB) insertCost(ctx context.Context, tx querier, c *taskd.Cost) error {
	return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id,
		minutes, cents, comment, day, is_timer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		c.AccountID, c.ProjectID, c.TaskID, c.Task.TopID(), c.Person.ID, c.Minutes, c.Cents, c.Comment, c.Date, boolInt(c.IsTimer),
		ms(c.Added)).Scan(&c.ID)
}

// boolInt is a flag as the integer column keeps it.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// applyCost copies the input's set fields onto c; with ByRate and a time,
// the money is the person's rate times the time.
func (db *DB) applyCost(ctx context.Context, tx querier, c *taskd.Cost, in taskd.CostInput) error {
	if in.Minutes != nil {
		c.Minutes = *in.Minutes
	}
	if in.Cents != nil {
		c.Cents = *in.Cents
	}
	if in.Comment != nil {
		c.Comment = *in.Comment
	}
	if err := taskd.SetDate("date", &c.Date, in.Date); err != nil {
		return err
	}
	if in.ByRate && in.Minutes != nil {
		var rate sql.NullInt64
		if err := tx.QueryRowContext(ctx, db.d.q(`SELECT rate FROM members WHERE account_id = ? AND person_id = ?`),
			c.AccountID, c.Person.ID).Scan(&rate); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if !rate.Valid {
			return taskd.Invalid("is_rate", "%s has no hourly rate", c.Person.Name)
		}
		c.Cents = taskd.RateMoney(rate.Int64, c.Minutes)
		if c.Cents > taskd.MaxCostCents {
			return taskd.Invalid("money", "The time at this rate is more than %d", taskd.MaxCostCents/100)
		}
	}
	return taskd.CheckCostAmounts(c.Minutes, c.Cents)
}

// UpdateCost changes a line; the person who logged it stays, and the
// project's options of logging time hold for the changed line, with today
// in that person's zone.
func (db *DB) UpdateCost(ctx context.Context, by taskd.Actor, id int64, in taskd.CostInput) (taskd.Cost, error) {
	var c taskd.Cost
	err := db.tx(ctx, "update cost", func(tx querier) error {
		var err error
		var p taskd.Project
		if c, p, err = db.changeableCost(ctx, tx, by, id); err != nil {
			return err
		}
		before := c
		if err := db.applyCost(ctx, tx, &c, in); err != nil {
			return err
		}
		today, err := db.today(ctx, tx, c.AccountID, c.Person.ID)
		if err != nil {
			return err
		}
		if err := taskd.CheckCostOptions(p, &before, c, today); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE costs SET minutes = ?, cents = ?, comment = ?, day = ? WHERE id = ? AND account_id = ?`),
			c.Minutes, c.Cents, c.Comment, c.Date, c.ID, c.AccountID)
		return err
	})
	return c, err
}

// DeleteCost deletes a line.
func (db *DB) DeleteCost(ctx context.Context, by taskd.Actor, id int64) error {
	return db.tx(ctx, "delete cost", func(tx querier) error {
		c, _, err := db.changeableCost(ctx, tx, by, id)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM costs WHERE id = ? AND account_id = ?`), c.ID, c.AccountID)
		return err
	})
}

// changeableCost reads a line that by may change, and its project, which
// is not archived.
func (db *DB) changeableCost(ctx context.Context, tx querier, by taskd.Actor, id int64) (taskd.Cost, taskd.Project, error) {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return taskd.Cost{}, taskd.Project{}, err
	}
	c, err := db.cost(ctx, tx, by.Viewer(), id)
	if err != nil {
		return c, taskd.Project{}, err
	}
	if err := taskd.CanChangeCost(by, c); err != nil {
		return c, taskd.Project{}, err
	}
	p, err := db.project(ctx, tx, by.Viewer(), c.ProjectID, false)
	if err != nil {
		return c, p, err
	}
	return c, p, taskd.CanLogCost(p)
}

// today is the date (DateLayout) it is now for a member: in their own
// time zone, else the account's (taskd.Zone).
func (db *DB) today(ctx context.Context, q querier, accountID, personID int64) (string, error) {
	var personal, account string
	err := q.QueryRowContext(ctx, db.d.q(`SELECT COALESCE((SELECT time_zone FROM persons WHERE id = ?), ''), time_zone
		FROM accounts WHERE id = ?`), personID, accountID).Scan(&personal, &account)
	if err != nil {
		return "", err
	}
	return db.now().In(taskd.Zone(personal, account)).Format(taskd.DateLayout), nil
}

// SetRate sets a member's hourly rate (nil: none).
func (db *DB) SetRate(ctx context.Context, by taskd.Actor, personID int64, rate *int64) error {
	if err := taskd.Authorize(by, taskd.PermManagePeople); err != nil {
		return err
	}
	if rate != nil && (*rate < 0 || *rate > taskd.MaxRateCents) {
		return taskd.Invalid("rate", "A rate is 0 to %d an hour", taskd.MaxRateCents/100)
	}
	return db.tx(ctx, "set rate", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE members SET rate = ? WHERE account_id = ? AND person_id = ?`), rate, by.AccountID, personID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return taskd.NotFound("member")
		}
		return nil
	})
}
