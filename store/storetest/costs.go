package storetest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/filter"
)

// member adds a member with the role and returns them acting.
func member(t *testing.T, f *Fixture, name string, role taskd.Role) taskd.Actor {
	t.Helper()
	p := must(f.Store.AddMember(context.Background(), f.Account.ID, taskd.NewPerson{
		Email: name + "-" + f.Account.Slug + "@example.com", PasswordHash: "x", FirstName: name}, role))(t)
	return taskd.Actor{AccountID: f.Account.ID, Person: p.Ref(), Role: role}
}

// testCosts: lines with exact time and money, a date of the actor's
// choosing, money from the hourly rate, the one policy on who changes
// whose lines, archived projects, every filter of CostQuery, and sums by
// each group.
func testCosts(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	rita := member(t, f, "rita", taskd.RoleReader)
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T")}))(t)
	sub := must(s.CreateTask(ctx, owner, p.ID, task.ID, taskd.TaskInput{Name: new("S")}))(t)
	other := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("O")}))(t)

	c1 := must(s.AddCost(ctx, owner, task.ID, taskd.CostInput{Minutes: new(int64(90)), Cents: new(int64(12345)), Comment: new("design")}))(t)
	if c1.ID == 0 || c1.Minutes != 90 || c1.Cents != 12345 || c1.Date != "2026-03-04" || c1.Person.ID != owner.Person.ID || c1.IsTimer {
		t.Fatalf("added %+v", c1)
	}
	got := must(s.Cost(ctx, taskd.AccountViewer(f.Account.ID), c1.ID))(t)
	if got.Minutes != 90 || got.Cents != 12345 || got.Comment != "design" || got.Task.Name != "T" || got.Task.Project.Name != "P" ||
		got.Person.Email != owner.Person.Email || got.Date != "2026-03-04" {
		t.Fatalf("read back %+v", got)
	}
	c2 := must(s.AddCost(ctx, uma, sub.ID, taskd.CostInput{Minutes: new(int64(30)), Date: new("2026-02-27")}))(t)
	c3 := must(s.AddCost(ctx, uma, other.ID, taskd.CostInput{Cents: new(int64(500)), Comment: new("taxi")}))(t)

	_, err := s.AddCost(ctx, owner, task.ID, taskd.CostInput{Cents: new(int64(0))})
	want(t, err, taskd.KindInvalid, "time")
	_, err = s.AddCost(ctx, rita, task.ID, taskd.CostInput{Minutes: new(int64(5))})
	want(t, err, taskd.KindForbidden, "")
	_, err = s.AddCost(ctx, owner, 999999, taskd.CostInput{Minutes: new(int64(5))})
	want(t, err, taskd.KindNotFound, "task")

	// is_rate: refused without a rate, priced with one (25.50 × 1:10 =
	// 29.75), and a reader or user cannot set rates.
	_, err = s.AddCost(ctx, uma, task.ID, taskd.CostInput{Minutes: new(int64(70)), ByRate: true})
	want(t, err, taskd.KindInvalid, "is_rate")
	want(t, s.SetRate(ctx, uma, uma.Person.ID, new(int64(2550))), taskd.KindForbidden, "")
	want(t, s.SetRate(ctx, owner, uma.Person.ID, new(int64(-1))), taskd.KindInvalid, "rate")
	want(t, s.SetRate(ctx, owner, 999999, new(int64(1))), taskd.KindNotFound, "member")
	noErr(t, s.SetRate(ctx, owner, uma.Person.ID, new(int64(2550))))
	rated := must(s.AddCost(ctx, uma, task.ID, taskd.CostInput{Minutes: new(int64(70)), Cents: new(int64(1)), ByRate: true}))(t)
	if rated.Cents != 2975 {
		t.Fatalf("70 minutes at 25.50 = %d cents, want 2975", rated.Cents)
	}

	// Who changes whose lines: the person who logged it, or an owner or
	// admin; never a reader, nor another user.
	ann := member(t, f, "ann", taskd.RoleUser)
	_, err = s.UpdateCost(ctx, ann, c2.ID, taskd.CostInput{Minutes: new(int64(1))})
	want(t, err, taskd.KindForbidden, "cost")
	want(t, s.DeleteCost(ctx, ann, c2.ID), taskd.KindForbidden, "cost")
	up := must(s.UpdateCost(ctx, uma, c2.ID, taskd.CostInput{Minutes: new(int64(45)), Comment: new("more")}))(t)
	if up.Minutes != 45 || up.Comment != "more" || up.Person.ID != uma.Person.ID || up.Date != "2026-02-27" {
		t.Fatalf("updated %+v", up)
	}
	up = must(s.UpdateCost(ctx, owner, c2.ID, taskd.CostInput{Minutes: new(int64(120)), ByRate: true}))(t)
	if up.Cents != 5100 || up.Person.ID != uma.Person.ID {
		t.Fatalf("an owner priced uma's line by uma's rate: %+v", up)
	}
	_, err = s.UpdateCost(ctx, owner, c3.ID, taskd.CostInput{Cents: new(int64(0))})
	want(t, err, taskd.KindInvalid, "time")
	_, err = s.UpdateCost(ctx, owner, 999999, taskd.CostInput{})
	want(t, err, taskd.KindNotFound, "cost")

	// Filters.
	ids := func(q taskd.CostQuery) []int64 {
		t.Helper()
		q.Viewer = taskd.AccountViewer(f.Account.ID)
		var out []int64
		for _, c := range must(s.Costs(ctx, q))(t) {
			out = append(out, c.ID)
		}
		return out
	}
	same := func(name string, got []int64, want ...int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", name, got, want)
			}
		}
	}
	same("all, by date", ids(taskd.CostQuery{}), c2.ID, c1.ID, c3.ID, rated.ID)
	same("newest first", ids(taskd.CostQuery{Newest: true}), rated.ID, c3.ID, c1.ID, c2.ID)
	same("a task with its subtask", ids(taskd.CostQuery{TaskID: task.ID}), c2.ID, c1.ID, rated.ID)
	same("a subtask", ids(taskd.CostQuery{TaskID: sub.ID}), c2.ID)
	same("a person", ids(taskd.CostQuery{PersonID: uma.Person.ID}), c2.ID, c3.ID, rated.ID)
	same("dates", ids(taskd.CostQuery{From: "2026-02-27", To: "2026-02-27"}), c2.ID)
	same("from", ids(taskd.CostQuery{From: "2026-03-01"}), c1.ID, c3.ID, rated.ID)
	same("manual", ids(taskd.CostQuery{IsTimer: new(false)}), c2.ID, c1.ID, c3.ID, rated.ID)
	same("timer", ids(taskd.CostQuery{IsTimer: new(true)}))
	same("limit", ids(taskd.CostQuery{Limit: 2, Offset: 1}), c1.ID, c3.ID)
	for expr, wantIDs := range map[string][]int64{
		"task=" + itoa(other.ID):                               {c3.ID},
		"id in (" + itoa(sub.ID) + ")":                         {c2.ID},
		"comment has 'TAX'":                                    {c3.ID},
		"comment = 'design' or comment = 'more'":               {c2.ID, c1.ID},
		"dateadd < '01.03.2026'":                               {c2.ID},
		"project=" + itoa(p.ID) + " and dateadd>='04.03.2026'": {c1.ID, c3.ID, rated.ID},
	} {
		q, err := filter.ParseCosts(expr)
		noErr(t, err)
		same(expr, ids(taskd.CostQuery{Filter: q}), wantIDs...)
	}

	// Sums, exact, by every group.
	sums := func(group string) []taskd.CostGroup {
		t.Helper()
		return must(s.CostSums(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID)}, group))(t)
	}
	if total := sums(taskd.CostByTotal); len(total) != 1 || total[0].Minutes != 90+120+70 || total[0].Cents != 12345+5100+500+2975 || total[0].Lines != 4 {
		t.Fatalf("total = %+v", total)
	}
	if top := sums(taskd.CostByTopTask); len(top) != 2 || top[0].ID != task.ID || top[0].Minutes != 280 || top[1].ID != other.ID {
		t.Fatalf("by top task = %+v", top)
	}
	if byTask := sums(taskd.CostByTask); len(byTask) != 3 || byTask[1].ID != sub.ID || byTask[1].Minutes != 120 {
		t.Fatalf("by task = %+v", byTask)
	}
	if months := sums(taskd.CostByProjectMonth); len(months) != 2 || months[0].Day != "2026-02" || months[0].Minutes != 120 ||
		months[1].Day != "2026-03" || months[1].Cents != 12345+500+2975 {
		t.Fatalf("by month = %+v", months)
	}
	if people := sums(taskd.CostByPerson); len(people) != 2 || people[1].ID != uma.Person.ID || people[1].Lines != 3 {
		t.Fatalf("by person = %+v", people)
	}
	if days := sums(taskd.CostByDay); len(days) != 2 || days[0].Day != "2026-02-27" {
		t.Fatalf("by day = %+v", days)
	}
	if none := must(s.CostSums(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID), From: "2030-01-01"}, taskd.CostByTotal))(t); len(none) != 0 {
		t.Fatalf("no lines summed to %+v", none)
	}

	// A closed task takes lines; an archived project takes none, and its
	// lines cannot change.
	must(s.CompleteTask(ctx, owner, other.ID))(t)
	must(s.AddCost(ctx, owner, other.ID, taskd.CostInput{Minutes: new(int64(10))}))(t)
	must(s.SetProjectStatus(ctx, owner, p.ID, taskd.ProjectArchive))(t)
	_, err = s.AddCost(ctx, owner, task.ID, taskd.CostInput{Minutes: new(int64(10))})
	wantConflict(t, err, taskd.ReasonProjectArchived)
	wantConflict(t, s.DeleteCost(ctx, owner, c1.ID), taskd.ReasonProjectArchived)
	must(s.SetProjectStatus(ctx, owner, p.ID, taskd.ProjectActive))(t)
	noErr(t, s.DeleteCost(ctx, uma, c3.ID))
	_, err = s.Cost(ctx, taskd.AccountViewer(f.Account.ID), c3.ID)
	want(t, err, taskd.KindNotFound, "cost")

	// Another account sees none of it.
	b, bOwner := NewAccount(t, s, "other")
	if l := must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(b.ID)}))(t); len(l) != 0 {
		t.Fatalf("another account's lines: %+v", l)
	}
	_, err = s.Cost(ctx, taskd.AccountViewer(b.ID), c1.ID)
	want(t, err, taskd.KindNotFound, "cost")
	want(t, s.DeleteCost(ctx, bOwner, c1.ID), taskd.KindNotFound, "cost")
	_, err = s.AddCost(ctx, bOwner, task.ID, taskd.CostInput{Minutes: new(int64(1))})
	want(t, err, taskd.KindNotFound, "task")
}

// testHiddenCosts: a person does not see the lines of a task hidden from
// them, in lists or sums.
func testHiddenCosts(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	ann := member(t, f, "ann", taskd.RoleUser)
	p := newProject(t, f)
	open := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Open")}))(t)
	secret := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Secret"), Hidden: []string{ann.Person.Email}}))(t)
	must(s.AddCost(ctx, owner, open.ID, taskd.CostInput{Minutes: new(int64(10))}))(t)
	must(s.AddCost(ctx, owner, secret.ID, taskd.CostInput{Minutes: new(int64(20))}))(t)
	// A subtask hidden under a visible task: its own rule applies.
	hiddenSub := must(s.CreateTask(ctx, owner, p.ID, open.ID, taskd.TaskInput{Name: new("Secret sub"), Hidden: []string{ann.Person.Email}}))(t)
	must(s.AddCost(ctx, owner, hiddenSub.ID, taskd.CostInput{Minutes: new(int64(30))}))(t)
	for who, wantLines := range map[int64]int{uma.Person.ID: 1, ann.Person.ID: 3, 0: 3} {
		q := taskd.CostQuery{Viewer: viewerOf(t, f, who)}
		sum := must(s.CostSums(ctx, q, taskd.CostByTotal))(t)
		if len(sum) != 1 || sum[0].Lines != wantLines || len(must(s.Costs(ctx, q))(t)) != wantLines {
			t.Fatalf("viewer %d sees %+v, want %d lines", who, sum, wantLines)
		}
	}
}

// testTimers: one timer per person, started and stopped into a line of
// whole minutes dated the day it started, restarted on the same task
// without losing time, moved to another task with the first one's time
// recorded, discarded, and stopped by an admin for someone else.
func testTimers(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	ann := member(t, f, "ann", taskd.RoleUser)
	p := newProject(t, f)
	a := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("A")}))(t)
	b := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("B")}))(t)
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	noErr(t, err)

	_, err = s.TimerOf(ctx, f.Account.ID, uma.Person.ID)
	want(t, err, taskd.KindNotFound, "timer")
	_, err = s.StopTimer(ctx, uma, 0, "", nil)
	want(t, err, taskd.KindNotFound, "timer")
	want(t, s.DeleteTimer(ctx, uma), taskd.KindNotFound, "timer")

	tm, stopped := mustTimer(t)(s.StartTimer(ctx, uma, a.ID, kyiv))
	if stopped != nil || tm.ID == 0 || tm.Task.ID != a.ID || tm.Person.ID != uma.Person.ID || !tm.Started.Equal(f.Clock.Now()) {
		t.Fatalf("started %+v (stopped %v)", tm, stopped)
	}
	f.Clock.Advance(25 * time.Minute)
	again, stopped := mustTimer(t)(s.StartTimer(ctx, uma, a.ID, kyiv))
	if again.ID != tm.ID || stopped != nil || !again.Started.Equal(tm.Started) {
		t.Fatalf("starting the running timer again reset it: %+v", again)
	}
	f.Clock.Advance(5*time.Minute + 29*time.Second)
	moved, stopped := mustTimer(t)(s.StartTimer(ctx, uma, b.ID, kyiv))
	if stopped == nil || stopped.Minutes != 30 || !stopped.IsTimer || stopped.TaskID != a.ID || moved.Task.ID != b.ID {
		t.Fatalf("moving the timer: %+v, stopped %+v", moved, stopped)
	}
	if list := must(s.Timers(ctx, taskd.AccountViewer(f.Account.ID)))(t); len(list) != 1 || list[0].ID != moved.ID || list[0].Task.Name != "B" {
		t.Fatalf("running timers: %+v", list)
	}

	// 23:50 UTC is the next day in Kyiv: the line is dated the day the
	// timer started there.
	f.Clock.Advance(time.Date(2026, 3, 4, 23, 50, 0, 0, time.UTC).Sub(f.Clock.Now()))
	annTimer, _ := mustTimer(t)(s.StartTimer(ctx, ann, a.ID, kyiv))
	f.Clock.Advance(2*time.Hour + 30*time.Second)
	_, err = s.StopTimer(ctx, uma, annTimer.ID, "", kyiv)
	want(t, err, taskd.KindForbidden, "cost")
	byAdmin := must(s.StopTimer(ctx, owner, annTimer.ID, "stopped for ann", kyiv))(t)
	if byAdmin.Person.ID != ann.Person.ID || byAdmin.Minutes != 121 || byAdmin.Comment != "stopped for ann" ||
		byAdmin.Date != "2026-03-05" || !byAdmin.IsTimer || byAdmin.Cents != 0 {
		t.Fatalf("an admin stopped ann's timer: %+v", byAdmin)
	}
	own := must(s.StopTimer(ctx, uma, 0, "done", nil))(t)
	if own.Minutes != 14*60+50 || own.TaskID != b.ID || own.Date != "2026-03-04" { // 11:00:29 to 01:50:30, in UTC
		t.Fatalf("uma's own stop: %+v", own)
	}
	if timers := must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID), IsTimer: new(true)}))(t); len(timers) != 3 {
		t.Fatalf("timer lines: %+v", timers)
	}

	// Discarded, no line; a closed task takes no timer.
	mustTimer(t)(s.StartTimer(ctx, uma, a.ID, nil))
	noErr(t, s.DeleteTimer(ctx, uma))
	if l := must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID)}))(t); len(l) != 3 {
		t.Fatalf("a discarded timer logged a line: %d lines", len(l))
	}
	must(s.CompleteTask(ctx, owner, b.ID))(t)
	_, _, err = s.StartTimer(ctx, uma, b.ID, nil)
	wantConflict(t, err, taskd.ReasonTaskClosed)

	// Stops at once record the timer once, round after round.
	for round := range 10 {
		mustTimer(t)(s.StartTimer(ctx, uma, a.ID, nil))
		linesBefore := len(must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID)}))(t))
		var stops sync.WaitGroup
		for range 4 {
			stops.Go(func() {
				if _, err := s.StopTimer(ctx, uma, 0, "", nil); err != nil && taskd.ErrorKind(err) != taskd.KindNotFound {
					t.Error(err)
				}
			})
		}
		stops.Wait()
		if n := len(must(s.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID)}))(t)); n != linesBefore+1 {
			t.Fatalf("round %d: four stops at once logged %d lines", round, n-linesBefore)
		}
	}

	// Two starts at once leave one timer.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, _, err := s.StartTimer(ctx, ann, a.ID, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if list := must(s.Timers(ctx, taskd.AccountViewer(f.Account.ID)))(t); len(list) != 1 {
		t.Fatalf("concurrent starts left %d timers", len(list))
	}
}

func mustTimer(t *testing.T) func(taskd.Timer, *taskd.Cost, error) (taskd.Timer, *taskd.Cost) {
	return func(tm taskd.Timer, c *taskd.Cost, err error) (taskd.Timer, *taskd.Cost) {
		t.Helper()
		noErr(t, err)
		return tm, c
	}
}

// testBudgets: max_time and max_money on projects and tasks, set,
// changed and cleared.
func testBudgets(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	p := must(s.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Budgeted"), MaxMinutes: new(int64(1200)), MaxCents: new(int64(5000000))}))(t)
	if got := must(s.Project(ctx, taskd.AccountViewer(f.Account.ID), p.ID))(t); got.MaxMinutes != 1200 || got.MaxCents != 5000000 {
		t.Fatalf("project budget %+v", got)
	}
	must(s.UpdateProject(ctx, owner, p.ID, taskd.ProjectInput{MaxCents: new(int64(0))}))(t)
	if got := must(s.Project(ctx, taskd.AccountViewer(f.Account.ID), p.ID))(t); got.MaxMinutes != 1200 || got.MaxCents != 0 {
		t.Fatalf("project budget after clearing money %+v", got)
	}
	task := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T"), MaxMinutes: new(int64(90))}))(t)
	must(s.UpdateTask(ctx, owner, task.ID, taskd.TaskInput{MaxCents: new(int64(150))}))(t)
	if got := must(s.Task(ctx, taskd.AccountViewer(f.Account.ID), task.ID))(t); got.MaxMinutes != 90 || got.MaxCents != 150 {
		t.Fatalf("task budget %+v", got)
	}
}

// testCostTotalsExact: 10,000 lines of random time and money, written by
// four writers at once, sum in the database to exactly what an
// independent integer sum of the same amounts gives, in total, by task
// and by month.
func testCostTotalsExact(t *testing.T, f *Fixture) {
	if testing.Short() {
		t.Skip("10,000 lines")
	}
	ctx := context.Background()
	s, owner := f.Store, f.Owner
	p := newProject(t, f)
	tasks := make([]taskd.Task, 5)
	for i := range tasks {
		tasks[i] = must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T" + itoa(int64(i)))}))(t)
	}
	const lines, writers = 10_000, 4
	type line struct {
		task           int
		minutes, cents int64
		month          int
	}
	rng := rand.New(rand.NewPCG(1, 2))
	all := make([]line, lines)
	for i := range all {
		all[i] = line{rng.IntN(len(tasks)), rng.Int64N(taskd.MaxCostMinutes) + 1, rng.Int64N(taskd.MaxCostCents + 1), rng.IntN(12) + 1}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < lines; i += writers {
				l := all[i]
				date := time.Date(2025, time.Month(l.month), 15, 0, 0, 0, 0, time.UTC).Format(taskd.DateLayout)
				if _, err := s.AddCost(ctx, owner, tasks[l.task].ID, taskd.CostInput{Minutes: &l.minutes, Cents: &l.cents, Date: &date}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var total taskd.CostSum
	byTask := map[int64]taskd.CostSum{}
	byMonth := map[string]taskd.CostSum{}
	for _, l := range all {
		one := taskd.CostSum{Minutes: l.minutes, Cents: l.cents, Lines: 1}
		total.Add(one)
		id := tasks[l.task].ID
		sum := byTask[id]
		sum.Add(one)
		byTask[id] = sum
		month := time.Date(2025, time.Month(l.month), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
		m := byMonth[month]
		m.Add(one)
		byMonth[month] = m
	}
	q := taskd.CostQuery{Viewer: taskd.AccountViewer(f.Account.ID), ProjectID: p.ID}
	if got := must(s.CostSums(ctx, q, taskd.CostByTotal))(t); len(got) != 1 || got[0].CostSum != total {
		t.Fatalf("total %+v, want %+v", got, total)
	}
	for _, g := range must(s.CostSums(ctx, q, taskd.CostByTask))(t) {
		if g.CostSum != byTask[g.ID] {
			t.Fatalf("task %d: %+v, want %+v", g.ID, g.CostSum, byTask[g.ID])
		}
	}
	months := must(s.CostSums(ctx, q, taskd.CostByProjectMonth))(t)
	if len(months) != len(byMonth) {
		t.Fatalf("%d months, want %d", len(months), len(byMonth))
	}
	for _, g := range months {
		if g.CostSum != byMonth[g.Day] {
			t.Fatalf("month %s: %+v, want %+v", g.Day, g.CostSum, byMonth[g.Day])
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
