package api

import (
	"slices"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
	"github.com/taskd/taskd/wire"
)

// costOut is a cost line (spec §2.5): time "H:MM", money "0.00", the date
// YYYY-MM-DD and is_timer a boolean.
type costOut struct {
	ID       string          `json:"id"`
	Comment  string          `json:"comment"`
	Time     string          `json:"time"`
	Money    string          `json:"money"`
	Date     string          `json:"date"`
	IsTimer  bool            `json:"is_timer"`
	UserFrom taskd.PersonRef `json:"user_from"`
	Task     taskOut         `json:"task"`
}

// sumOut is a total of time and money.
type sumOut struct {
	Time  string `json:"time"`
	Money string `json:"money"`
}

func renderSum(s taskd.CostSum) sumOut {
	return sumOut{Time: wire.FormatCostTime(s.Minutes), Money: wire.FormatMoney(s.Cents)}
}

func (c *call) renderCost(x taskd.Cost) costOut {
	v := taskView{viewer: c.personID(), project: true}
	return costOut{ID: strconv.FormatInt(x.ID, 10), Comment: x.Comment, Time: wire.FormatCostTime(x.Minutes),
		Money: wire.FormatMoney(x.Cents), Date: x.Date, IsTimer: x.IsTimer, UserFrom: x.Person, Task: v.render(x.Task)}
}

// zone is where the caller's days begin: the token's person's time zone,
// else the account's.
func (c *call) zone() *time.Location {
	var personal string
	if p := c.who.person; p != nil {
		personal = p.TimeZone
	}
	return taskd.Zone(personal, c.who.account.TimeZone)
}

// costQuery reads the filters get_costs and get_costs_total share:
// id_project, id_task, datestart, dateend, is_timer and filter (C29),
// kept to what the caller may see.
func (c *call) costQuery() (taskd.CostQuery, error) {
	q := taskd.CostQuery{Viewer: c.viewer()}
	var err error
	if q.ProjectID, err = c.optID("id_project", CodeProjectInvalid); err != nil {
		return q, err
	}
	if q.ProjectID != 0 {
		if _, err := c.store.Project(c.ctx, q.Viewer, q.ProjectID); err != nil {
			return q, err
		}
	}
	if q.TaskID, err = c.optID("id_task", CodeTaskInvalid); err != nil {
		return q, err
	}
	if q.TaskID != 0 {
		if _, err := c.store.Task(c.ctx, q.Viewer, q.TaskID); err != nil {
			return q, err
		}
	}
	if q.From, err = wire.ParseDate("datestart", c.p["datestart"]); err != nil {
		return q, err
	}
	if q.To, err = wire.ParseDate("dateend", c.p["dateend"]); err != nil {
		return q, err
	}
	if err := taskd.CheckDateRange(q.From, q.To); err != nil {
		return q, err
	}
	switch c.p["is_timer"] {
	case "":
	case "1", "true":
		q.IsTimer = new(true)
	case "0", "false":
		q.IsTimer = new(false)
	default:
		return q, failf(CodeInvalidValue, "is_timer", "is_timer is 1 (lines from timers) or 0 (lines logged by hand)")
	}
	if f := c.p["filter"]; f != "" {
		if q.Filter, err = filter.ParseCosts(f); err != nil {
			return q, err
		}
	}
	return q, nil
}

// costsBody is get_costs' answer: the lines in data and their total
// beside it.
type costsBody struct {
	Status string    `json:"status"`
	Data   []costOut `json:"data"`
	Total  sumOut    `json:"total"`
}

// getCosts lists lines by date. More than taskd.MaxCostLines matching
// lines are refused rather than cut short: a total that disagrees with its
// lines would mislead.
func getCosts(c *call) (any, error) {
	q, err := c.costQuery()
	if err != nil {
		return nil, err
	}
	q.Limit = taskd.MaxCostLines + 1
	lines, err := c.store.Costs(c.ctx, q)
	if err != nil {
		return nil, err
	}
	if len(lines) > taskd.MaxCostLines {
		return nil, failf(CodeInvalidValue, "dateend", "More than %d cost lines match; narrow the dates, the project or the filter", taskd.MaxCostLines)
	}
	body := costsBody{Status: "ok", Data: make([]costOut, len(lines))}
	var total taskd.CostSum
	for i, x := range lines {
		body.Data[i] = c.renderCost(x)
		total.Add(taskd.CostSum{Minutes: x.Minutes, Cents: x.Cents, Lines: 1})
	}
	body.Total = renderSum(total)
	return body, nil
}

// totalBody is get_costs_total's answer: no data, the total at the top
// level and, with extra=projects, the projects keyed by id (C25).
type totalBody struct {
	Status   string                     `json:"status"`
	Total    sumOut                     `json:"total"`
	Projects map[string]*projectCostOut `json:"projects,omitempty"`
}

type projectCostOut struct {
	ID      string            `json:"id"`
	Name    string            `json:"name"`
	Page    string            `json:"page"`
	Time    string            `json:"time"`
	Money   string            `json:"money"`
	Monthly map[string]sumOut `json:"monthly"`
	Tasks   []taskCostOut     `json:"tasks,omitempty"`
}

// taskCostOut is a task's total (the Python SDK's cost_task).
type taskCostOut struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Page     string `json:"page"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
	Time     string `json:"time"`
	Money    string `json:"money"`
}

func getCostsTotal(c *call) (any, error) {
	q, err := c.costQuery()
	if err != nil {
		return nil, err
	}
	total, err := c.store.CostSums(c.ctx, q, taskd.CostByTotal)
	if err != nil {
		return nil, err
	}
	body := totalBody{Status: "ok", Total: renderSum(taskd.CostSum{})}
	if len(total) == 1 {
		body.Total = renderSum(total[0].CostSum)
	}
	// extra=projects is ignored for one task; tasks and tasks_top_level
	// apply only with it (spec §8).
	if !c.extra("projects") || q.TaskID != 0 {
		return body, nil
	}
	if body.Projects, err = c.projectCosts(q); err != nil {
		return nil, err
	}
	group := ""
	switch {
	case c.extra("tasks_top_level"):
		group = taskd.CostByTopTask
	case c.extra("tasks"):
		group = taskd.CostByTask
	}
	if group != "" {
		if err := c.taskCosts(q, group, body.Projects); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// projectCosts totals the query's lines by project and month.
func (c *call) projectCosts(q taskd.CostQuery) (map[string]*projectCostOut, error) {
	months, err := c.store.CostSums(c.ctx, q, taskd.CostByProjectMonth)
	if err != nil {
		return nil, err
	}
	projects, err := c.store.Projects(c.ctx, q.Viewer, "")
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]taskd.Project, len(projects))
	for _, p := range projects {
		byID[p.ID] = p
	}
	out := map[string]*projectCostOut{}
	sums := map[string]taskd.CostSum{}
	for _, m := range months {
		key := strconv.FormatInt(m.ID, 10)
		po := out[key]
		if po == nil {
			p := byID[m.ID]
			po = &projectCostOut{ID: key, Name: p.Name, Page: taskd.ProjectPage(m.ID), Monthly: map[string]sumOut{}}
			out[key] = po
		}
		po.Monthly[m.Day] = renderSum(m.CostSum)
		s := sums[key]
		s.Add(m.CostSum)
		sums[key] = s
	}
	for key, po := range out {
		s := renderSum(sums[key])
		po.Time, po.Money = s.Time, s.Money
	}
	return out, nil
}

// taskCosts adds each project's tasks with their totals, by task id.
func (c *call) taskCosts(q taskd.CostQuery, group string, projects map[string]*projectCostOut) error {
	sums, err := c.store.CostSums(c.ctx, q, group)
	if err != nil {
		return err
	}
	tasks := make(map[int64]taskd.Task, len(sums))
	for chunk := range slices.Chunk(sums, 1000) {
		ids := make([]int64, len(chunk))
		for i, g := range chunk {
			ids[i] = g.ID
		}
		list, err := c.store.Tasks(c.ctx, taskd.TaskQuery{Viewer: q.Viewer, Limit: len(ids),
			Filter: taskd.QueryCond{Field: taskd.FieldID, Op: "in", Ints: ids}})
		if err != nil {
			return err
		}
		for _, t := range list {
			tasks[t.ID] = t
		}
	}
	for _, g := range sums {
		t, found := tasks[g.ID]
		if !found {
			continue
		}
		po := projects[strconv.FormatInt(t.ProjectID, 10)]
		if po == nil {
			continue
		}
		s := renderSum(g.CostSum)
		po.Tasks = append(po.Tasks, taskCostOut{ID: strconv.FormatInt(t.ID, 10), Name: t.Name, Page: t.Page(), Status: t.Status,
			Priority: strconv.Itoa(t.Priority), Time: s.Time, Money: s.Money})
	}
	return nil
}

// costActor is who logs a line: the token's person, or with the
// administrative key the member named by email_user_from, which is then
// required (spec §8).
func (c *call) costActor() (taskd.Actor, error) {
	if c.who.person == nil && c.p["email_user_from"] == "" {
		return taskd.Actor{}, fail(CodeFieldRequired, "email_user_from")
	}
	return c.actor()
}

func addCosts(c *call) (any, error) {
	tid, err := c.id("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	in, err := wire.ParseCostInput(c.opt)
	if err != nil {
		return nil, err
	}
	// Without a date the store dates the line today for its person, in
	// their time zone (else the account's), as time_today reads it.
	by, err := c.costActor()
	if err != nil {
		return nil, err
	}
	x, err := c.store.AddCost(c.ctx, by, tid, in)
	if err != nil {
		return nil, err
	}
	return okBody{Status: "ok", ID: strconv.FormatInt(x.ID, 10)}, nil
}

func updateCosts(c *call) (any, error) {
	id, err := c.id("id_costs", CodeNotFound)
	if err != nil {
		return nil, err
	}
	in, err := wire.ParseCostInput(c.opt)
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.UpdateCost(c.ctx, by, id, in); err != nil {
		return nil, err
	}
	return ok(nil), nil
}

func deleteCosts(c *call) (any, error) {
	id, by, err := c.target("id_costs", CodeNotFound)
	if err != nil {
		return nil, err
	}
	return ok(nil), c.store.DeleteCost(c.ctx, by, id)
}
