package taskd_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

func TestBuildTree(t *testing.T) {
	t.Parallel()
	tasks := []taskd.Task{{ID: 1}, {ID: 2, ParentID: 1}, {ID: 3}, {ID: 4, ParentID: 1}, {ID: 5, ParentID: 99}}
	tree := taskd.BuildTree(tasks)
	if len(tree) != 3 || tree[0].ID != 1 || len(tree[0].Children) != 2 || tree[0].Children[1].ID != 4 || tree[1].ID != 3 || tree[2].ID != 5 {
		t.Fatalf("tree = %+v", tree)
	}
	// Three levels: sub-subtasks nest in their subtask's children; one
	// whose subtask is not in the list comes at the top level, after
	// the top-level tasks, with the orphans of its parent.
	tasks = []taskd.Task{{ID: 1}, {ID: 2, ParentID: 1}, {ID: 3, ParentID: 2, GrandparentID: 1}, {ID: 4, ParentID: 2, GrandparentID: 1},
		{ID: 5, ParentID: 50, GrandparentID: 1}, {ID: 6}, {ID: 7, ParentID: 1}, {ID: 8, ParentID: 7, GrandparentID: 1}, {ID: 9, ParentID: 50, GrandparentID: 1}}
	tree = taskd.BuildTree(tasks)
	ids := func(ts []taskd.Task) []int64 {
		var out []int64
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	if got := ids(tree); !slices.Equal(got, []int64{1, 6, 5, 9}) {
		t.Fatalf("top level = %v, want [1 6 5 9]", got)
	}
	if got := ids(tree[0].Children); !slices.Equal(got, []int64{2, 7}) {
		t.Fatalf("subtasks of 1 = %v, want [2 7]", got)
	}
	if got := ids(tree[0].Children[0].Children); !slices.Equal(got, []int64{3, 4}) {
		t.Fatalf("sub-subtasks of 2 = %v, want [3 4]", got)
	}
	if got := ids(tree[0].Children[1].Children); !slices.Equal(got, []int64{8}) {
		t.Fatalf("sub-subtasks of 7 = %v, want [8]", got)
	}
	if len(taskd.BuildTree(nil)) != 0 {
		t.Fatal("an empty list builds a tree")
	}
}

// TestThreeLevels: tasks nest task / subtask / sub-subtask (spec §2.1,
// C6): a task or a subtask may be a parent, a sub-subtask may not (the
// parent field, invalid), and a done parent is closed whatever its level.
func TestThreeLevels(t *testing.T) {
	t.Parallel()
	top := taskd.Task{ID: 1, ProjectID: 9, Status: taskd.StatusActive}
	sub := taskd.Task{ID: 2, ProjectID: 9, ParentID: 1, Status: taskd.StatusActive}
	subsub := taskd.Task{ID: 3, ProjectID: 9, ParentID: 2, GrandparentID: 1, Status: taskd.StatusActive}
	for _, c := range []struct {
		name             string
		t                taskd.Task
		level            int
		top              int64
		page, parentPage string
		mayHave          bool
	}{
		{"task", top, 1, 1, "/project/9/1/", "", true},
		{"subtask", sub, 2, 1, "/project/9/1/2/", "/project/9/1/", true},
		{"sub-subtask", subsub, 3, 1, "/project/9/2/3/", "/project/9/1/2/", false},
	} {
		if c.t.Level() != c.level || c.t.TopID() != c.top || c.t.Page() != c.page || c.t.ParentPage() != c.parentPage || c.t.CanHaveSubtasks() != c.mayHave {
			t.Errorf("%s: level %d, top %d, page %q, parent's page %q, may have subtasks %v; want %d, %d, %q, %q, %v", c.name,
				c.t.Level(), c.t.TopID(), c.t.Page(), c.t.ParentPage(), c.t.CanHaveSubtasks(), c.level, c.top, c.page, c.parentPage, c.mayHave)
		}
		err := taskd.CanAddSubtask(c.t)
		if c.mayHave != (err == nil) {
			t.Errorf("%s as parent: %v", c.name, err)
		}
	}
	err := taskd.CanAddSubtask(subsub)
	var e *taskd.Error
	if !errors.As(err, &e) || e.Kind != taskd.KindInvalid || e.Field != "parent" || !strings.Contains(e.Message, "three levels") {
		t.Errorf("a sub-subtask as parent: %#v, want invalid parent saying three levels is the most", err)
	}
	sub.Status = taskd.StatusDone
	if err := taskd.CanAddSubtask(sub); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Errorf("a done subtask as parent: %v, want a conflict (task closed)", err)
	}
	if err := taskd.CanComplete(sub, 0); err == nil {
		t.Error("a done subtask completes again")
	}
	sub.Status = taskd.StatusActive
	if err := taskd.CanComplete(sub, 1); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Errorf("a subtask with an active sub-subtask completes: %v", err)
	}
	subsub.Status = taskd.StatusDone
	if err := taskd.CanReopen(subsub, taskd.StatusDone); taskd.ErrorKind(err) != taskd.KindConflict {
		t.Errorf("a sub-subtask of a done subtask reopens: %v", err)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"a", "acme", "acme-2", strings.Repeat("a", 40)} {
		if err := taskd.ValidateSlug(s); err != nil {
			t.Errorf("slug %q refused: %v", s, err)
		}
	}
	for _, s := range []string{"", "-a", "a-", "Acme", "a_b", "a/b", strings.Repeat("a", 41), "ä"} {
		if err := taskd.ValidateSlug(s); err == nil {
			t.Errorf("slug %q accepted", s)
		}
	}
	if e, err := taskd.NormalizeEmail("  Bob@Example.COM "); err != nil || e != "bob@example.com" {
		t.Errorf("NormalizeEmail = %q, %v", e, err)
	}
	for _, s := range []string{"", "bob", "bob@", "@x.y", "a b@x.y", "a@b", "<a@b.c>"} {
		if _, err := taskd.NormalizeEmail(s); err == nil {
			t.Errorf("email %q accepted", s)
		}
	}
}

// TestRatesAndTimers: a rate prices minutes to the nearest cent, halves
// up; a stopped timer records whole minutes, at least one and at most a
// cost line's bound.
func TestRatesAndTimers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ rate, minutes, want int64 }{{4000, 90, 6000}, {2550, 70, 2975}, {100, 1, 2}, {1, 30, 1}, {1, 29, 0}} {
		if got := taskd.RateMoney(c.rate, c.minutes); got != c.want {
			t.Errorf("RateMoney(%d, %d) = %d, want %d", c.rate, c.minutes, got, c.want)
		}
	}
	for d, want := range map[time.Duration]int64{0: 1, 29 * time.Second: 1, 90 * time.Second: 2, 89*time.Second + 999*time.Millisecond: 1, 1e6 * time.Hour: taskd.MaxCostMinutes} {
		if got := taskd.TimerMinutes(d); got != want {
			t.Errorf("TimerMinutes(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestStoredEventJSON(t *testing.T) {
	t.Parallel()
	stored := taskd.StoredEvent{ID: 42, Body: []byte(`{"event":"x"}`)}
	if got := string(stored.JSON()); got != `{"id":"42","event":"x"}` {
		t.Fatalf("JSON = %s", got)
	}
	if got := string((taskd.StoredEvent{ID: 1, Body: []byte(`{}`)}).JSON()); got != `{"id":"1"}` {
		t.Fatalf("empty body JSON = %s", got)
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"a@b.cd", "post_task, close_task", "1,2,3", "tasks_read administrative"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := taskd.NormalizeEmail(s); err == nil && e != strings.ToLower(e) {
			t.Fatalf("NormalizeEmail(%q) = %q", s, e)
		}
		if evs, err := taskd.ParseWebhookEvents(s, taskd.SubscribableEvents); err == nil {
			for _, e := range evs {
				if !taskd.HasScope(taskd.SubscribableEvents, e) {
					t.Fatalf("ParseWebhookEvents(%q) accepted %q", s, e)
				}
			}
		}
		if ids, err := taskd.ParseProjectIDs(s); err == nil {
			if again, err := taskd.ParseProjectIDs(taskd.JoinIDs(ids)); err != nil || len(again) != len(ids) {
				t.Fatalf("ParseProjectIDs(%q) = %v does not round-trip", s, ids)
			}
			for _, id := range ids {
				if id <= 0 {
					t.Fatalf("ParseProjectIDs(%q) gave %d", s, id)
				}
			}
		}
		if scopes, err := taskd.ParseScope(s); err == nil {
			for _, sc := range scopes {
				if !taskd.HasScope(taskd.Scopes, sc) {
					t.Fatalf("ParseScope(%q) accepted %q", s, sc)
				}
			}
		}
		if u, err := taskd.ParseWebhookURL(s); err == nil && u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("ParseWebhookURL(%q) accepted scheme %q", s, u.Scheme)
		}
	})
}

// TestCanSetProjectStatus: a project takes the other status; its own is a
// conflict whose message reads as a sentence.
func TestCanSetProjectStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, to, want string }{
		{taskd.ProjectActive, taskd.ProjectArchive, ""},
		{taskd.ProjectArchive, taskd.ProjectActive, ""},
		{taskd.ProjectArchive, taskd.ProjectArchive, "Project is already archived"},
		{taskd.ProjectActive, taskd.ProjectActive, "Project is already active"},
	} {
		err := taskd.CanSetProjectStatus(taskd.Project{Status: tc.from}, tc.to)
		got := ""
		if err != nil {
			if e := taskd.AsError(err); e.Kind != taskd.KindConflict || e.Reason != taskd.ReasonAlreadyInState {
				t.Errorf("%s to %s: %v, want a conflict (already in state)", tc.from, tc.to, err)
			}
			got = taskd.AsError(err).Message
		}
		if got != tc.want {
			t.Errorf("%s to %s: %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}
