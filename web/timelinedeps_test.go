package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestTimelineDependencies: a dependency drawn on a timeline (its POST
// with op=relate) is the tasks' relation, drawn as an arrow and said in
// words under the waiting task's name; a cycle and a task the person
// cannot see are refused with a clear message; moving a task that others
// wait for offers to shift them, and the offer's form does; a relation
// with a task hidden from the viewer is not on the viewer's timeline. On
// SQLite and PostgreSQL.
func TestTimelineDependencies(t *testing.T) { testsite.One(t, testTimelineDependencies) }

func testTimelineDependencies(t *testing.T, s *testsite.Site) {
	s, pid, ids := timelineOn(t, s)
	ctx := context.Background()
	owner := s.SignedIn(testsite.OwnerEmail)
	page := fmt.Sprintf("%s/project/%d/timeline?group=project&scale=day", s.AccountURL(), pid)
	p := owner.Get(page)
	form := p.Form(t, "op", "")
	action := ""
	for _, f := range p.Forms() {
		if _, ok := f.Fields["op"]; ok {
			action = f.Action
		}
	}
	if action == "" {
		t.Fatalf("no timeline form with op in:\n%s", p.Body)
	}
	post := func(b *testsite.Browser, fields ...string) testsite.Page {
		f := url.Values{"csrf": form["csrf"]}
		for i := 0; i < len(fields); i += 2 {
			f.Set(fields[i], fields[i+1])
		}
		return b.Post(s.Base+action, f)
	}
	id := func(name string) string { return fmt.Sprint(ids[name]) }
	arrow := func(from, to string) string {
		return fmt.Sprintf(`data-from="%s" data-to="%s" data-type="finish-to-start"`, id(from), id(to))
	}

	// Drawn from "Write the copy" to "Launch day": Launch day waits.
	got := post(owner, "op", "relate", "from", id("Write the copy"), "to", id("Launch day"))
	if loc := got.Location(t); loc.String() != action {
		t.Errorf("after drawing: went to %s, want %s", loc, action)
	}
	_, by := s.Owner()
	viewer := taskd.PersonViewer(by.AccountID, by.Person.ID, by.Role)
	blockedBy, _, err := s.Store.RelatedTasks(ctx, viewer, ids["Launch day"])
	if err != nil || len(blockedBy) != 1 || blockedBy[0].Task.ID != ids["Write the copy"] || blockedBy[0].Type != taskd.RelationFinishToStart {
		t.Fatalf("Launch day is blocked by %+v (%v)", blockedBy, err)
	}
	p = owner.Get(page)
	if !strings.Contains(p.Body, arrow("Write the copy", "Launch day")) || !strings.Contains(p.Body, `<span class="muted tl-waits">after Write the copy</span>`) ||
		!strings.Contains(p.Body, `class="tl-svg"`) {
		t.Errorf("the timeline does not show the dependency:\n%s", p.Body)
	}

	// Refused: a cycle, the same task, a task the person cannot see, and
	// hostile fields; each with the message, never a 500.
	for _, tc := range []struct{ name, from, to, want string }{
		{"cycle", id("Launch day"), id("Write the copy"), "The dependency was not added: "},
		{"itself", id("Outline"), id("Outline"), "The dependency was not added: "},
		{"no such task", "99999999", id("Outline"), "The dependency was not added: One of the tasks is gone, or you cannot see it"},
		{"not a number", "abc", id("Outline"), "The dependency was not added: Draw a dependency"},
		{"empty", "", "", "The dependency was not added: "},
	} {
		got := post(owner, "op", "relate", "from", tc.from, "to", tc.to)
		if got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Body, tc.want) {
			t.Errorf("%s: HTTP %d, want 422 with %q", tc.name, got.Status, tc.want)
		}
	}
	if got := post(owner, "op", "relate", "from", id("Write the copy"), "to", id("Launch day"), "type", "xx"); got.Status != http.StatusUnprocessableEntity {
		t.Errorf("an unknown type: HTTP %d", got.Status)
	}
	uma := s.SignedIn(testsite.UserEmail)
	uf := uma.Get(page).Form(t, "op", "")
	uf.Set("op", "relate")
	uf.Set("from", id("Secret pricing"))
	uf.Set("to", id("Fix the logo"))
	if got := uma.Post(s.Base+action, uf); got.Status != http.StatusUnprocessableEntity || strings.Contains(got.Body, "Secret pricing") {
		t.Errorf("Uma relating a task hidden from her: HTTP %d, named: %v", got.Status, strings.Contains(got.Body, "Secret pricing"))
	}

	// A relation with a hidden task is on the timeline of those who see
	// both, on no other.
	if got := post(owner, "op", "relate", "from", id("Secret pricing"), "to", id("Fix the logo")); got.Status != http.StatusSeeOther {
		t.Fatalf("relating the hidden task: HTTP %d", got.Status)
	}
	if p := owner.Get(page); !strings.Contains(p.Body, arrow("Secret pricing", "Fix the logo")) {
		t.Error("the owner's timeline lacks the dependency on the task she sees")
	}
	if p := uma.Get(page); strings.Contains(p.Body, "data-from=\""+id("Secret pricing")) || strings.Contains(p.Body, "Secret pricing") ||
		!strings.Contains(p.Body, arrow("Write the copy", "Launch day")) {
		t.Errorf("Uma's timeline shows the hidden task's dependency, or lacks the other:\n%s", p.Body)
	}

	// A relation with a task outside the window is not drawn.
	if got := post(owner, "op", "relate", "from", id("Next year's plan"), "to", id("Book the venue")); got.Status != http.StatusSeeOther {
		t.Fatalf("relating a task far later: HTTP %d", got.Status)
	}
	if p := owner.Get(page); p.Status != http.StatusOK || strings.Contains(p.Body, "data-from=\""+id("Next year's plan")) || strings.Contains(p.Body, "after Next year") {
		t.Errorf("a dependency on a task outside the window: HTTP %d, drawn", p.Status)
	}

	// Moving "Write the copy" two days later offers to shift Launch day.
	task, err := s.Store.Task(ctx, viewer, ids["Write the copy"])
	if err != nil {
		t.Fatal(err)
	}
	later := func(date string, n int) string {
		d, _ := time.Parse(taskd.DateLayout, date)
		return d.AddDate(0, 0, n).Format(taskd.DateLayout)
	}
	launch, _ := s.Store.Task(ctx, viewer, ids["Launch day"])
	got = post(owner, "task", id("Write the copy"), "datestart", later(task.DateStart, 2), "dateend", later(task.DateEnd, 2))
	loc := got.Location(t)
	if loc.Query().Get("offer") != id("Write the copy") || loc.Query().Get("shift") != "2" {
		t.Fatalf("after moving a task with a dependent: went to %s", loc)
	}
	p = owner.Get(s.Base + loc.String())
	if !strings.Contains(p.Body, `id="tl-shift"`) || !strings.Contains(p.Body, "Write the copy moved 2 days later. Shift the 1 task that depends on it too?") {
		t.Fatalf("no offer to shift on:\n%s", p.Body)
	}
	offer := p.Form(t, "op", "shift")
	if got := owner.Post(s.Base+action, offer); got.Status != http.StatusSeeOther {
		t.Fatalf("the shift: HTTP %d\n%s", got.Status, got.Body)
	}
	if moved, _ := s.Store.Task(ctx, viewer, ids["Launch day"]); moved.DateEnd != later(launch.DateEnd, 2) {
		t.Errorf("Launch day is due %s after the shift, want %s", moved.DateEnd, later(launch.DateEnd, 2))
	}
	// A task nobody waits for is moved without an offer; a hand-made
	// offer for it offers nothing; a bad shift is refused.
	outline, _ := s.Store.Task(ctx, viewer, ids["Outline"])
	if loc := post(owner, "task", id("Outline"), "datestart", later(outline.DateStart, 1), "dateend", later(outline.DateEnd, 1)).Location(t); loc.Query().Has("offer") {
		t.Errorf("an offer for a task nobody waits for: %s", loc)
	}
	if p := owner.Get(page + "&offer=" + id("Outline") + "&shift=3"); strings.Contains(p.Body, `id="tl-shift"`) {
		t.Error("a hand-made offer for a task nobody waits for shows")
	}
	if got := post(owner, "op", "shift", "task", id("Write the copy"), "days", "soon"); got.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(got.Body, "The tasks were not shifted: Days must be a whole number") {
		t.Errorf("a shift by no number: HTTP %d", got.Status)
	}
}
