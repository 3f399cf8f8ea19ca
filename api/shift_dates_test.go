package api_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/api"
)

// dates reads a task's date_start and date_end through get_task.
func (a *account) dates(id string) (start, end string) {
	a.t.Helper()
	d := a.ok("action", "get_task", "id_task", id).data()
	start, _ = d["date_start"].(string)
	end, _ = d["date_end"].(string)
	return start, end
}

// resave sends a task's own dates back through update_task, as its edit
// form does, and fails the test when update_task refuses them.
func (a *account) resave(id string) {
	a.t.Helper()
	s, e := a.dates(id)
	if r := a.call("action", "update_task", "id_task", id, "datestart", s, "dateend", e); r.code() != -1 {
		a.t.Errorf("update_task refuses task %s's own dates %q..%q after a shift: %v", id, s, e, r)
	}
}

// refusedShift checks that r is shift_dependent_tasks' refusal: code 11 on
// days, naming the task (#id and name) and the bound.
func refusedShift(t *testing.T, r response, id, name, bound string) {
	t.Helper()
	msg, _ := r.Body["message"].(string)
	if r.HTTP != 200 || r.code() != int(api.CodeInvalidValue) || r.Body["message_details"] != "days" {
		t.Errorf("the shift: %v, want code 11 on days", r)
	}
	for _, want := range []string{"#" + id, name, bound, "Nothing was shifted"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not say %q", msg, want)
		}
	}
}

// TestShiftPastTheLastDate (issue 46): a dependent due
// in 2999 moved ten years later would leave the dates update_task takes;
// shift_dependent_tasks refuses (11, days) naming the task and the last
// date, and moves nothing. Up to 2999-12-31 it moves, one day more not.
func TestShiftPastTheLastDate(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		first := a.id("action", "post_task", "id_project", pid, "title", "first", "dateend", "01.03.2026")
		late := a.id("action", "post_task", "id_project", pid, "title", "Far future", "datestart", "01.06.2999", "dateend", "30.06.2999")
		a.ok("action", "add_task_relation", "id_task_from", first, "id_task_to", late)

		refusedShift(t, a.call("action", "shift_dependent_tasks", "id_task", first, "days", "3650"), late, "Far future", "2999-12-31")
		if s, e := a.dates(late); s != "2999-06-01" || e != "2999-06-30" {
			t.Errorf("after the refusal: %s..%s, want 2999-06-01..2999-06-30", s, e)
		}
		// The last day is taken, the day after it is not.
		if r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", "184"); r.code() != -1 {
			t.Fatalf("shifting to 2999-12-31: %v", r)
		}
		if s, e := a.dates(late); s != "2999-12-02" || e != "2999-12-31" {
			t.Errorf("after 184 days: %s..%s, want 2999-12-02..2999-12-31", s, e)
		}
		a.resave(late)
		refusedShift(t, a.call("action", "shift_dependent_tasks", "id_task", first, "days", "1"), late, "Far future", "2999-12-31")
		if _, e := a.dates(late); e != "2999-12-31" {
			t.Errorf("after the refused day: due %s, want 2999-12-31", e)
		}
	})
}

// TestShiftBackwardsRepeatedly (issue 46): shifting a
// dependent ten years earlier again and again stops at the first date:
// each shift taken leaves dates update_task takes back; the one that would
// pass 1900-01-01 is refused and moves nothing.
func TestShiftBackwardsRepeatedly(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		first := a.id("action", "post_task", "id_project", pid, "title", "first", "dateend", "01.03.2026")
		old := a.id("action", "post_task", "id_project", pid, "title", "Old one", "datestart", "10.03.1926", "dateend", "20.03.1926")
		a.ok("action", "add_task_relation", "id_task_from", first, "id_task_to", old)
		taken := 0
		for range 5 {
			r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", "-3650")
			if r.code() != -1 {
				refusedShift(t, r, old, "Old one", "1900-01-01")
				break
			}
			taken++
			a.resave(old)
		}
		if taken != 2 {
			t.Errorf("%d shifts of -3650 days taken from 1926, want 2", taken)
		}
		day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
		ws, we := day(1926, 3, 10).AddDate(0, 0, -7300), day(1926, 3, 20).AddDate(0, 0, -7300)
		if s, e := a.dates(old); s != ws.Format(time.DateOnly) || e != we.Format(time.DateOnly) {
			t.Errorf("after the shifts: %s..%s, want %s..%s", s, e, ws.Format(time.DateOnly), we.Format(time.DateOnly))
		}
		// To the first date, and not one day past it.
		back := int(ws.Sub(day(1900, 1, 1)).Hours() / 24)
		if r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", strconv.Itoa(-back)); r.code() != -1 {
			t.Fatalf("shifting to 1900-01-01: %v", r)
		}
		if s, _ := a.dates(old); s != "1900-01-01" {
			t.Fatalf("start %s, want 1900-01-01", s)
		}
		refusedShift(t, a.call("action", "shift_dependent_tasks", "id_task", first, "days", "-1"), old, "Old one", "1900-01-01")
	})
}

// TestShiftRefusedAsAWhole (issue 46): in a chain
// first → b → c → last where only the last would leave the dates, the
// shift is refused naming it, and neither b nor c moved, nor any event
// was written.
func TestShiftRefusedAsAWhole(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		first := a.id("action", "post_task", "id_project", pid, "title", "first", "dateend", "01.03.2026")
		b := a.id("action", "post_task", "id_project", pid, "title", "b", "datestart", "02.03.2026", "dateend", "05.03.2026")
		c := a.id("action", "post_task", "id_project", pid, "title", "c", "dateend", "09.03.2026")
		last := a.id("action", "post_task", "id_project", pid, "title", "The last", "datestart", "01.12.2999")
		a.ok("action", "add_task_relation", "id_task_from", first, "id_task_to", b)
		a.ok("action", "add_task_relation", "id_task_from", b, "id_task_to", c)
		a.ok("action", "add_task_relation", "id_task_from", c, "id_task_to", last, "type", "start-to-start")
		events := len(a.ok("action", "get_events", "period", "1h").list())

		refusedShift(t, a.call("action", "shift_dependent_tasks", "id_task", first, "days", "31"), last, "The last", "2999-12-31")
		for id, want := range map[string][2]string{b: {"2026-03-02", "2026-03-05"}, c: {"", "2026-03-09"}, last: {"2999-12-01", ""}} {
			if s, e := a.dates(id); s != want[0] || e != want[1] {
				t.Errorf("task %s after the refusal: %q..%q, want %q..%q", id, s, e, want[0], want[1])
			}
		}
		if n := len(a.ok("action", "get_events", "period", "1h").list()); n != events {
			t.Errorf("%d events after the refusal, want %d: a refused shift writes none", n, events)
		}
		// Thirty days is still taken, whole.
		if r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", "30"); len(r.list()) != 3 {
			t.Errorf("shifting by 30: %v, want the three tasks moved", r)
		}
	})
}

// TestShiftDays (issue 46): whatever days says,
// shift_dependent_tasks answers with a documented error or moves within
// the bounds: never 99 nor an HTTP error, and nothing moves on a refusal.
func TestShiftDays(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		first := a.id("action", "post_task", "id_project", pid, "title", "first", "dateend", "01.03.2026")
		next := a.id("action", "post_task", "id_project", pid, "title", "next", "datestart", "02.03.2026", "dateend", "05.03.2026")
		a.ok("action", "add_task_relation", "id_task_from", first, "id_task_to", next)
		for _, c := range []struct {
			days string
			code api.Code
		}{
			{"99999999999999999999", api.CodeInvalidValue}, {"-99999999999999999999", api.CodeInvalidValue},
			{"9223372036854775807", api.CodeInvalidValue}, {"-9223372036854775808", api.CodeInvalidValue},
			{"2147483648", api.CodeInvalidValue}, {"3651", api.CodeInvalidValue}, {"-3651", api.CodeInvalidValue},
			{"1e3", api.CodeInvalidValue}, {"1.5", api.CodeInvalidValue}, {"0x10", api.CodeInvalidValue},
			{"", api.CodeFieldRequired}, {" ", api.CodeFieldRequired},
		} {
			r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", c.days)
			if r.HTTP != 200 || r.code() != int(c.code) {
				t.Errorf("days=%q: %v, want code %d", c.days, r, c.code)
			}
			if s, e := a.dates(next); s != "2026-03-02" || e != "2026-03-05" {
				t.Fatalf("days=%q moved the task to %s..%s", c.days, s, e)
			}
		}
		for _, days := range []string{"+2", " -2 ", "0", "-0"} {
			if r := a.call("action", "shift_dependent_tasks", "id_task", first, "days", days); r.code() != -1 {
				t.Errorf("days=%q: %v, want it taken", days, r)
			}
		}
		if s, e := a.dates(next); s != "2026-03-02" || e != "2026-03-05" {
			t.Errorf("after +2 and -2: %s..%s, want where it was", s, e)
		}
	})
}
