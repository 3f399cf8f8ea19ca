package web

import (
	"testing"
	"time"
)

// TestDueCue: a due date in words from the viewer's today, for open tasks
// only, and none far off or unreadable.
func TestDueCue(t *testing.T) {
	t.Parallel()
	today := time.Date(2030, 3, 10, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		date, status string
		want         dueCue
	}{
		{"2030-03-08", "active", dueCue{"overdue by 2 days", "overdue"}},
		{"2030-03-09", "active", dueCue{"overdue by 1 day", "overdue"}},
		{"2030-03-10", "active", dueCue{"today", "soon"}},
		{"2030-03-11", "active", dueCue{"tomorrow", "soon"}},
		{"2030-03-12", "active", dueCue{"in 2 days", ""}},
		{"2030-03-23", "active", dueCue{"in 13 days", ""}},
		{"2030-03-24", "active", dueCue{}},
		{"2029-12-31", "active", dueCue{"overdue by 69 days", "overdue"}},
		{"2030-03-08", "done", dueCue{}},
		{"", "active", dueCue{}},
		{"31.12.2030", "active", dueCue{}},
	} {
		if got := newDueCue(today, c.date, c.status); got != c.want {
			t.Errorf("%s (%s): %+v, want %+v", c.date, c.status, got, c.want)
		}
	}
	if got := newDueCue(time.Time{}, "2030-03-10", "active"); got != (dueCue{}) {
		t.Errorf("no today: %+v", got)
	}
}
