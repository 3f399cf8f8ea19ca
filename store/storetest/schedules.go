package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testSchedules: every member has the default week until one is set; a
// change sets the weekdays and dates it names and keeps the rest; a date
// given no hours goes back to its weekday's; the dates read are those
// asked for; only owners and admins change schedules, and an e-mail of no
// member (another account's among them) changes nothing of the whole
// call; a schedule ends with the membership.
func testSchedules(t *testing.T, f *Fixture) {
	ctx, s, owner := t.Context(), f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	ada := member(t, f, "ada", taskd.RoleAdmin)
	acct := f.Account.ID

	all := must(s.Schedules(ctx, acct, "2026-03-01", "2026-03-31"))(t)
	if len(all) != 3 || all[uma.Person.ID].Week != taskd.DefaultWeek || len(all[uma.Person.ID].Days) != 0 {
		t.Fatalf("schedules before any was set: %+v", all)
	}
	if m := all[uma.Person.ID].Minutes("2026-03-07"); m != 0 { // a Saturday
		t.Fatalf("a default Saturday has %d minutes, want 0", m)
	}
	if m := all[uma.Person.ID].Minutes("2026-03-09"); m != 480 { // a Monday
		t.Fatalf("a default Monday has %d minutes, want 480", m)
	}

	var change taskd.ScheduleChange
	change.Email = uma.Person.Email
	change.Week[time.Friday] = new(int64(240))
	change.Week[time.Saturday] = new(int64(120))
	change.Days = map[string]*int64{"2026-03-09": new(int64(0)), "2026-03-14": new(int64(360)), "2026-04-01": new(int64(60))}
	noErr(t, s.SetSchedules(ctx, ada, []taskd.ScheduleChange{change}))
	got := must(s.Schedules(ctx, acct, "2026-03-01", "2026-03-31"))(t)[uma.Person.ID]
	wantWeek := taskd.DefaultWeek
	wantWeek[time.Friday], wantWeek[time.Saturday] = 240, 120
	if got.Week != wantWeek || len(got.Days) != 2 || got.Days["2026-03-09"] != 0 || got.Days["2026-03-14"] != 360 {
		t.Fatalf("after the change: %+v, want the week %v and two dates of March", got, wantWeek)
	}
	for day, want := range map[string]int64{"2026-03-06": 240, "2026-03-07": 120, "2026-03-09": 0, "2026-03-14": 360, "2026-03-10": 480} {
		if m := got.Minutes(day); m != want {
			t.Errorf("%s: %d minutes, want %d", day, m, want)
		}
	}
	if other := must(s.Schedules(ctx, acct, "2026-03-01", "2026-03-31"))(t)[owner.Person.ID]; other.Week != taskd.DefaultWeek {
		t.Fatalf("the owner's schedule changed with uma's: %+v", other)
	}

	// A second change keeps what it does not name; a date given no hours
	// goes back to its weekday's.
	var again taskd.ScheduleChange
	again.Email = uma.Person.Email
	again.Week[time.Monday] = new(int64(420))
	again.Days = map[string]*int64{"2026-03-14": nil}
	noErr(t, s.SetSchedules(ctx, owner, []taskd.ScheduleChange{again}))
	got = must(s.Schedules(ctx, acct, "2026-03-01", "2026-04-30"))(t)[uma.Person.ID]
	wantWeek[time.Monday] = 420
	if got.Week != wantWeek || len(got.Days) != 2 || got.Days["2026-04-01"] != 60 || got.Minutes("2026-03-14") != 120 {
		t.Fatalf("after the second change: %+v", got)
	}

	// Seven changes at once, each of another weekday of a week not set
	// yet: every one holds.
	eve := member(t, f, "eve", taskd.RoleUser)
	var wg sync.WaitGroup
	for day := range 7 {
		wg.Go(func() {
			var ch taskd.ScheduleChange
			ch.Email = eve.Person.Email
			ch.Week[day] = new(int64(60 * (day + 1)))
			if err := s.SetSchedules(ctx, owner, []taskd.ScheduleChange{ch}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := must(s.Schedules(ctx, acct, "2026-03-01", "2026-03-01"))(t)[eve.Person.ID].Week; got != [7]int64{60, 120, 180, 240, 300, 360, 420} {
		t.Fatalf("after seven changes at once: %v", got)
	}

	// Who may: owners and admins; a user may not, not even their own.
	want(t, s.SetSchedules(ctx, uma, []taskd.ScheduleChange{again}), taskd.KindForbidden, "")
	// Bounds: a day holds 0 to 24 hours; a date is a day.
	bad := taskd.ScheduleChange{Email: uma.Person.Email}
	bad.Week[time.Sunday] = new(int64(24*60 + 1))
	want(t, s.SetSchedules(ctx, owner, []taskd.ScheduleChange{bad}), taskd.KindInvalid, "sun")
	want(t, s.SetSchedules(ctx, owner, []taskd.ScheduleChange{{Email: uma.Person.Email,
		Days: map[string]*int64{"2026-02-30": new(int64(60))}}}), taskd.KindInvalid, "2026-02-30")

	// One e-mail of no member, here another account's owner, and nothing
	// of the call is changed.
	_, stranger := NewAccount(t, s, "other")
	both := []taskd.ScheduleChange{{Email: ada.Person.Email, Days: map[string]*int64{"2026-03-02": new(int64(0))}},
		{Email: stranger.Person.Email, Days: map[string]*int64{"2026-03-02": new(int64(0))}}}
	err := s.SetSchedules(ctx, owner, both)
	want(t, err, taskd.KindNotFound, "member")
	if v := taskd.AsError(err).Value; v != stranger.Person.Email {
		t.Fatalf("the refusal names %q, want the stranger's e-mail", v)
	}
	if got := must(s.Schedules(ctx, acct, "2026-03-01", "2026-03-31"))(t)[ada.Person.ID]; len(got.Days) != 0 {
		t.Fatalf("a refused call changed ada's schedule: %+v", got)
	}
	if theirs := must(s.Schedules(ctx, stranger.AccountID, "2026-03-01", "2026-03-31"))(t); len(theirs) != 1 ||
		len(theirs[stranger.Person.ID].Days) != 0 {
		t.Fatalf("the other account's schedules: %+v", theirs)
	}

	// The schedule ends with the membership: someone added again starts
	// from the default week.
	must(s.RemoveMember(ctx, owner, uma.Person.ID))(t)
	if _, ok := must(s.Schedules(ctx, acct, "2026-03-01", "2026-04-30"))(t)[uma.Person.ID]; ok {
		t.Fatal("a removed member still has a schedule")
	}
	must(s.AddMember(ctx, acct, taskd.NewPerson{Email: uma.Person.Email, PasswordHash: "x"}, taskd.RoleUser))(t)
	if back := must(s.Schedules(ctx, acct, "2026-03-01", "2026-04-30"))(t)[uma.Person.ID]; back.Week != taskd.DefaultWeek || len(back.Days) != 0 {
		t.Fatalf("a member added again kept their old schedule: %+v", back)
	}
}

// testProjectOptions: the options of logging time are kept and changed
// one by one; timer_only refuses time given by hand, added or changed,
// and takes a timer's; time_today refuses time on another day than the
// person's today, in their zone; time_require refuses to complete a task
// without time logged on it or its subtasks; lines of money alone and
// unchanged time pass; the rules hold for owners too.
func testProjectOptions(t *testing.T, f *Fixture) {
	ctx, s, owner := t.Context(), f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)

	p := must(s.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Support"),
		Options: taskd.OptionsInput{TimerOnly: new(true)}}))(t)
	if p.Options != (taskd.ProjectOptions{TimerOnly: true}) {
		t.Fatalf("created with %+v", p.Options)
	}
	if read := must(s.Project(ctx, owner.Viewer(), p.ID))(t); read.Options != p.Options {
		t.Fatalf("read back %+v", read.Options)
	}
	task := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T")}))(t)

	// timer_only.
	_, err := s.AddCost(ctx, uma, task.ID, taskd.CostInput{Minutes: new(int64(30))})
	want(t, err, taskd.KindInvalid, "time")
	_, err = s.AddCost(ctx, owner, task.ID, taskd.CostInput{Minutes: new(int64(30)), Cents: new(int64(100))})
	want(t, err, taskd.KindInvalid, "time")
	money := must(s.AddCost(ctx, uma, task.ID, taskd.CostInput{Cents: new(int64(900)), Comment: new("taxi")}))(t)
	if _, _, err := s.StartTimer(ctx, uma, task.ID, time.UTC); err != nil {
		t.Fatal(err)
	}
	f.Clock.Advance(25 * time.Minute)
	timed := must(s.StopTimer(ctx, uma, 0, "fixing", time.UTC))(t)
	if timed.Minutes != 25 || !timed.IsTimer {
		t.Fatalf("the timer's line: %+v", timed)
	}
	must(s.UpdateCost(ctx, uma, timed.ID, taskd.CostInput{Comment: new("fixed"), Minutes: new(int64(25))}))(t) // same time
	_, err = s.UpdateCost(ctx, uma, timed.ID, taskd.CostInput{Minutes: new(int64(90))})
	want(t, err, taskd.KindInvalid, "time")
	_, err = s.UpdateCost(ctx, owner, money.ID, taskd.CostInput{Minutes: new(int64(10))})
	want(t, err, taskd.KindInvalid, "time")

	// Options change one at a time; the others stay.
	p = must(s.UpdateProject(ctx, owner, p.ID, taskd.ProjectInput{Options: taskd.OptionsInput{TimerOnly: new(false), TimeToday: new(true)}}))(t)
	p = must(s.UpdateProject(ctx, owner, p.ID, taskd.ProjectInput{Name: new("Support desk")}))(t)
	if p.Options != (taskd.ProjectOptions{TimeToday: true}) {
		t.Fatalf("after two updates: %+v", p.Options)
	}

	// time_today, in the person's zone: at 10:30 UTC on 4 March it is
	// already 5 March in Kiritimati (UTC+14), where uma lives.
	must(s.SetProfile(ctx, uma.Person.ID, "uma", "", taskd.Profile{TimeZone: "Pacific/Kiritimati"}))(t)
	_, err = s.AddCost(ctx, uma, task.ID, taskd.CostInput{Minutes: new(int64(15)), Date: new("2026-03-04")})
	want(t, err, taskd.KindInvalid, "date")
	hers := must(s.AddCost(ctx, uma, task.ID, taskd.CostInput{Minutes: new(int64(15))}))(t)
	if hers.Date != "2026-03-05" {
		t.Fatalf("a line without a date is dated %s, want uma's today 2026-03-05", hers.Date)
	}
	mine := must(s.AddCost(ctx, owner, task.ID, taskd.CostInput{Minutes: new(int64(15)), Date: new("2026-03-04")}))(t)
	_, err = s.AddCost(ctx, owner, task.ID, taskd.CostInput{Minutes: new(int64(15)), Date: new("2026-03-05")})
	want(t, err, taskd.KindInvalid, "date")
	must(s.AddCost(ctx, owner, task.ID, taskd.CostInput{Cents: new(int64(100)), Date: new("2026-02-01")}))(t) // money alone
	_, err = s.UpdateCost(ctx, owner, mine.ID, taskd.CostInput{Date: new("2026-03-03")})
	want(t, err, taskd.KindInvalid, "date")
	// An owner changing uma's line: uma's today counts.
	must(s.UpdateCost(ctx, owner, hers.ID, taskd.CostInput{Minutes: new(int64(20))}))(t)
	// Yesterday's line (the timer's, 4 March, uma's yesterday): a new
	// comment passes, new time does not.
	must(s.UpdateCost(ctx, uma, timed.ID, taskd.CostInput{Comment: new("again")}))(t)
	_, err = s.UpdateCost(ctx, uma, timed.ID, taskd.CostInput{Minutes: new(int64(30))})
	want(t, err, taskd.KindInvalid, "date")

	// time_require: no time on the task and its subtasks, no completion,
	// for the owner too; time on a subtask counts for its parent.
	p2 := must(s.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Billable"), Options: taskd.OptionsInput{TimeRequire: new(true)}}))(t)
	parent := must(s.CreateTask(ctx, owner, p2.ID, 0, taskd.TaskInput{Name: new("Parent")}))(t)
	sub := must(s.CreateTask(ctx, owner, p2.ID, parent.ID, taskd.TaskInput{Name: new("Sub")}))(t)
	must(s.AddCost(ctx, owner, sub.ID, taskd.CostInput{Cents: new(int64(500))}))(t) // money is no time
	_, err = s.CompleteTask(ctx, owner, sub.ID)
	wantConflict(t, err, taskd.ReasonTimeRequired)
	want(t, err, taskd.KindConflict, "time")
	must(s.AddCost(ctx, uma, sub.ID, taskd.CostInput{Minutes: new(int64(5))}))(t)
	must(s.CompleteTask(ctx, owner, sub.ID))(t)
	must(s.CompleteTask(ctx, uma, parent.ID))(t)
	// Turned off, the rule is gone.
	must(s.UpdateProject(ctx, owner, p2.ID, taskd.ProjectInput{Options: taskd.OptionsInput{TimeRequire: new(false)}}))(t)
	bare := must(s.CreateTask(ctx, owner, p2.ID, 0, taskd.TaskInput{Name: new("Bare")}))(t)
	must(s.CompleteTask(ctx, owner, bare.ID))(t)

	// update_project events carry the options that changed.
	evs := must(s.Events(ctx, owner.Viewer(), f.Clock.Now().Add(-time.Hour), p2.ID))(t)
	last := string(evs[len(evs)-3].Body) // update_project, then post_task and close_task of Bare
	if !strings.Contains(last, `"new":{"time_require":null}`) || !strings.Contains(last, `"old":{"time_require":"1"}`) {
		t.Fatalf("the event of turning time_require off: %s", last)
	}
}
