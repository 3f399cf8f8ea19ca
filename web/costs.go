package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// costRoutes are the addresses of cost lines, timers, members' rates and a
// project's budget.
func (s *Server) costRoutes() []route {
	return []route{
		{"POST /a/{slug}/tasks/{task}/costs", s.form(s.inAccount(taskd.PermWork, s.taskChange("costs", s.addCost)))},
		{"POST /a/{slug}/costs/{cost}/update", s.form(s.inAccount(taskd.PermWork, s.costChange(false)))},
		{"POST /a/{slug}/costs/{cost}/delete", s.form(s.inAccount(taskd.PermWork, s.costChange(true)))},
		{"POST /a/{slug}/tasks/{task}/timer", s.form(s.inAccount(taskd.PermWork, s.startTimer))},
		{"POST /a/{slug}/timer/stop", s.form(s.inAccount(taskd.PermWork, s.stopTimer(false)))},
		{"POST /a/{slug}/timer/discard", s.form(s.inAccount(taskd.PermWork, s.stopTimer(true)))},
		{"POST /a/{slug}/people/{person}/rate", s.form(s.inAccount(taskd.PermManagePeople, s.setRate))},
		{"POST /a/{slug}/project/{project}/budget", s.form(s.inAccount(taskd.PermWork, s.setBudget))},
	}
}

// costFuncs are the template functions of cost lines, timers, rates and
// budgets: amounts and times as the wire writes them.
func costFuncs() template.FuncMap {
	return template.FuncMap{
		"canChange":   func(by taskd.Actor, c taskd.Cost) bool { return taskd.CanChangeCost(by, c) == nil },
		"hm":          wire.FormatCostTime,
		"hours":       wire.FormatHours,
		"optionsText": optionsText,
		"money":       wire.FormatMoney,
		"amount":      func(cents int64, currency string) string { return wire.FormatMoney(cents) + " " + currency },
		"clock":       clockOf,
		"rate":        rateText,
		"minus":       func(a, b int64) int64 { return a - b },
	}
}

// costsView is the time and money part of a task's page: its lines (with
// its subtasks'), their total, the budget, and the viewer's timer.
type costsView struct {
	Lines  []taskd.Cost
	Total  taskd.CostSum
	Budget *budgetView // nil when the task has no budget
	// Timer is the viewer's running timer, wherever it runs; nil when none.
	Timer *taskd.Timer
	// CanLog: the viewer may log time here (work, an active project);
	// CanTime: and start a timer (the task is active too).
	CanLog, CanTime bool
	// HasRate: the viewer has an hourly rate to price time by.
	HasRate bool
	Today   string // YYYY-MM-DD in the viewer's zone, the date's default
	// Options are the project's rules of logging time: the form leaves
	// out what they refuse, and says what they ask.
	Options taskd.ProjectOptions
}

// optionsText says the rules a project's options of logging time set, ""
// when it has none.
func optionsText(o taskd.ProjectOptions) string {
	var rules []string
	if o.TimerOnly {
		rules = append(rules, "time is logged only with the timer")
	}
	if o.TimeToday && !o.TimerOnly {
		rules = append(rules, "time is logged for today only")
	}
	if o.TimeRequire {
		rules = append(rules, "a task is marked done only once time is logged on it")
	}
	if len(rules) == 0 {
		return ""
	}
	return "In this project " + strings.Join(rules, "; ") + "."
}

// budgetView is spending against a budget (max_time, max_money).
type budgetView struct {
	Spent                taskd.CostSum
	MaxMinutes, MaxCents int64
	Currency             string // the account's, beside the amounts
}

// newBudget returns the budget view of the limits; nil when neither is set.
func newBudget(spent taskd.CostSum, maxMinutes, maxCents int64, currency string) *budgetView {
	if maxMinutes == 0 && maxCents == 0 {
		return nil
	}
	return &budgetView{Spent: spent, MaxMinutes: maxMinutes, MaxCents: maxCents, Currency: currency}
}

// TimePercent and MoneyPercent are the share of the budget spent, in
// whole percent (over 100 when overspent).
func (b *budgetView) TimePercent() int64  { return percent(b.Spent.Minutes, b.MaxMinutes) }
func (b *budgetView) MoneyPercent() int64 { return percent(b.Spent.Cents, b.MaxCents) }

// TimeBar and MoneyBar are the spent amounts for a progress bar, which
// stops at the budget.
func (b *budgetView) TimeBar() int64  { return min(b.Spent.Minutes, b.MaxMinutes) }
func (b *budgetView) MoneyBar() int64 { return min(b.Spent.Cents, b.MaxCents) }

func percent(part, whole int64) int64 {
	if whole <= 0 {
		return 0
	}
	return part * 100 / whole
}

// taskCosts reads the time and money part of a task's page.
func (s *Server) taskCosts(ctx context.Context, v *view, me member, t taskd.Task, p taskd.Project) (*costsView, error) {
	m := me.Member
	q := taskd.CostQuery{Viewer: me.viewer(), TaskID: t.ID, Newest: true}
	lines, err := s.cfg.Costs.Costs(ctx, q)
	if err != nil {
		return nil, err
	}
	cv := &costsView{Lines: lines, Timer: v.Nav.Timer, HasRate: m.Rate != nil,
		Today: s.today(v).Format(taskd.DateLayout), Options: p.Options}
	for _, l := range lines {
		cv.Total.Add(taskd.CostSum{Minutes: l.Minutes, Cents: l.Cents, Lines: 1})
	}
	cv.Budget = newBudget(cv.Total, t.MaxMinutes, t.MaxCents, me.Account.Currency)
	cv.CanLog = m.Role.Can(taskd.PermWork) && taskd.CanLogCost(p) == nil
	cv.CanTime = m.Role.Can(taskd.PermWork) && taskd.CanStartTimer(p, t) == nil
	return cv, nil
}

// projectBudget is a project's spending against its budget, of the lines
// the viewer sees; nil without one.
func (s *Server) projectBudget(ctx context.Context, me member, p taskd.Project) (*budgetView, error) {
	if p.MaxMinutes == 0 && p.MaxCents == 0 {
		return nil, nil
	}
	sums, err := s.cfg.Costs.CostSums(ctx, taskd.CostQuery{Viewer: me.viewer(), ProjectID: p.ID}, taskd.CostByTotal)
	if err != nil {
		return nil, err
	}
	var spent taskd.CostSum
	if len(sums) == 1 {
		spent = sums[0].CostSum
	}
	return newBudget(spent, p.MaxMinutes, p.MaxCents, me.Account.Currency), nil
}

// addCost is POST /a/{slug}/tasks/{task}/costs: time, money, is_rate,
// comment and date, logged as the viewer.
func (s *Server) addCost(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	in, err := wire.ParseCostInput(formParams(r))
	if err != nil {
		return "", err
	}
	_, err = s.cfg.Costs.AddCost(r.Context(), by, t.ID, in)
	return t.Page() + "#costs", err
}

// costChange edits or deletes the path's cost line, if taskd.CanChangeCost
// allows (the store checks it again in its transaction).
func (s *Server) costChange(del bool) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct, by := me.Account, me.actor()
		id, err := taskd.ParseID(r.PathValue("cost"), "cost")
		var c taskd.Cost
		if err == nil {
			c, err = s.cfg.Costs.Cost(r.Context(), me.viewer(), id)
		}
		if err == nil {
			err = taskd.CanChangeCost(by, c)
		}
		if err != nil {
			return s.failWith(w, r, err)
		}
		if del {
			err = s.cfg.Costs.DeleteCost(r.Context(), by, c.ID)
		} else {
			var in taskd.CostInput
			if in, err = wire.ParseCostInput(formParams(r)); err == nil {
				_, err = s.cfg.Costs.UpdateCost(r.Context(), by, c.ID, in)
			}
		}
		if err != nil {
			fe, ok := asFormError("cost"+strconv.FormatInt(c.ID, 10), err)
			if !ok {
				return err
			}
			return s.renderTaskByID(w, r, v, me, c.TaskID, http.StatusUnprocessableEntity, fe)
		}
		return see303(w, r, s.cfg.accountPath(acct)+c.Task.Page()+"#costs")
	}
}

// zone is where the member's days begin.
func zone(me member) *time.Location { return taskd.Zone(me.Member.TimeZone, me.Account.TimeZone) }

// startTimer is POST /a/{slug}/tasks/{task}/timer: the viewer's timer on
// the task; one running elsewhere is stopped and its time logged.
func (s *Server) startTimer(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	t, ok, err := s.pathTask(w, r, me, r.PathValue("task"))
	if !ok {
		return err
	}
	if _, _, err := s.cfg.Costs.StartTimer(r.Context(), me.actor(), t.ID, zone(me)); err != nil {
		return s.timerFailed(w, r, v, me, t.ID, err)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+t.Page()+"#costs")
}

// stopTimer is POST /a/{slug}/timer/stop (comment) and discardTimer POST
// /a/{slug}/timer/discard: the viewer's timer, from any page, which the
// form's "next" names to return to.
func (s *Server) stopTimer(discard bool) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		by := me.actor()
		tm, err := s.cfg.Costs.TimerOf(r.Context(), me.Account.ID, me.Member.ID)
		if err == nil {
			if discard {
				err = s.cfg.Costs.DeleteTimer(r.Context(), by)
			} else {
				var comment string
				if comment, err = taskd.CleanCostComment(r.PostFormValue("comment")); err == nil {
					_, err = s.cfg.Costs.StopTimer(r.Context(), by, 0, comment, zone(me))
				}
			}
		}
		if taskd.IsNotFound(err) { // stopped elsewhere meanwhile: nothing to do
			err = nil
		}
		if err != nil {
			return s.timerFailed(w, r, v, me, tm.Task.ID, err)
		}
		return see303(w, r, localPath(r.PostFormValue("next")))
	}
}

// timerFailed shows a timer's refusal on its task's page.
func (s *Server) timerFailed(w http.ResponseWriter, r *http.Request, v *view, me member, taskID int64, err error) error {
	fe, ok := asFormError("timer", err)
	if !ok || taskID == 0 {
		return err
	}
	return s.renderTaskByID(w, r, v, me, taskID, http.StatusUnprocessableEntity, fe)
}

// clockOf is a timer's running time at now as H:MM:SS.
func clockOf(tm *taskd.Timer, now time.Time) string {
	s := int64(tm.Elapsed(now) / time.Second)
	return strconv.FormatInt(s/3600, 10) + ":" + two(s/60%60) + ":" + two(s%60)
}

func two(n int64) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// setRate is POST /a/{slug}/people/{person}/rate: a member's hourly rate in
// money ("" clears it), which "price by my rate" uses.
func (s *Server) setRate(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	id, err := taskd.ParseID(r.PathValue("person"), "member")
	if err != nil {
		return s.failWith(w, r, err)
	}
	var rate *int64
	if raw := r.PostFormValue("rate"); raw != "" {
		cents, perr := wire.ParseMoney(raw)
		if perr != nil {
			perr = taskd.Invalid("rate", "A rate is an amount such as 40 or 42.50")
		}
		rate, err = &cents, perr
	}
	var who taskd.Member
	if err == nil {
		if who, err = s.cfg.Accounts.Member(r.Context(), me.Account.ID, id); err == nil {
			err = s.cfg.Costs.SetRate(r.Context(), me.actor(), id, rate)
		}
	}
	if err != nil {
		fe, ok := asFormError("rate", err)
		if !ok {
			return err
		}
		return s.renderPeople(w, r, v, me, http.StatusUnprocessableEntity, fe)
	}
	msg := who.DisplayName() + " has no hourly rate now."
	if rate != nil {
		msg = who.DisplayName() + "'s hourly rate is now " + rateText(rate) + "."
	}
	s.setFlash(w, flash{Message: msg})
	return see303(w, r, s.cfg.accountPath(me.Account)+"/people")
}

// rateText is an hourly rate as money, "" when not set.
func rateText(rate *int64) string {
	if rate == nil {
		return ""
	}
	return wire.FormatMoney(*rate)
}

// setBudget is POST /a/{slug}/project/{project}/budget: max_time and
// max_money ("" clears one).
func (s *Server) setBudget(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	in, err := wire.ParseProjectInput(formParams(r))
	if err == nil {
		in = taskd.ProjectInput{MaxMinutes: in.MaxMinutes, MaxCents: in.MaxCents}
		_, err = s.cfg.Projects.UpdateProject(r.Context(), me.actor(), p.ID, in)
	}
	if err != nil {
		fe, ok := asFormError("budget", err)
		if !ok {
			return err
		}
		return s.renderProject(w, r, v, me, p, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+p.Page()+"#budget")
}
