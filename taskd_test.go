package taskd_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"01.03.2026", "2026-03-01", true},
		{"2026-03-01", "2026-03-01", true},
		{"29.02.2024", "2024-02-29", true},
		{"29.02.2026", "", false},
		{"1.3.2026", "", false},
		{"01.03.26", "", false},
		{"01.03.1800", "", false},
		{"2026-3-1", "", false},
		{"01/03/2026", "", false},
		{"31.12.2999", "2999-12-31", true},
	} {
		got, err := taskd.ParseDate("datestart", tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDate(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && (taskd.ErrorKind(err) != taskd.KindInvalid || taskd.AsError(err).Field != "datestart") {
			t.Errorf("ParseDate(%q) error = %v", tc.in, err)
		}
	}
}

// TestImpossibleDates: a date in the right shape that is no day says why,
// rather than asking for the format it already has.
func TestImpossibleDates(t *testing.T) {
	for in, want := range map[string]string{
		"31.02.2026": "There is no 31.02.2026: February 2026 has 28 days",
		"29.02.2026": "There is no 29.02.2026: February 2026 has 28 days",
		"31.04.2026": "There is no 31.04.2026: April 2026 has 30 days",
		"2024-02-30": "There is no 2024-02-30: February 2024 has 29 days",
		"01.13.2026": "There is no 01.13.2026: a month is 01 to 12",
		"00.01.2026": "There is no 00.01.2026: January 2026 has 31 days",
		"01.03.1800": "A date's year is 1900 to 2999",
		"1.3.2026":   "Date must be DD.MM.YYYY",
		"aa.bb.cccc": "Date must be DD.MM.YYYY",
	} {
		_, err := taskd.ParseDate("dateend", in)
		if e := taskd.AsError(err); err == nil || e.Message != want || e.Field != "dateend" {
			t.Errorf("ParseDate(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	good := map[string]time.Duration{"1m": time.Minute, "360m": 6 * time.Hour, "1h": time.Hour, "72h": 72 * time.Hour,
		"1d": 24 * time.Hour, "30d": 30 * 24 * time.Hour}
	for in, want := range good {
		if got, err := taskd.ParsePeriod(in); err != nil || got != want {
			t.Errorf("ParsePeriod(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "m", "0m", "361m", "73h", "31d", "01h", "+1h", "-1h", "1w", "1.5h", "99999d", "1H"} {
		if _, err := taskd.ParsePeriod(in); taskd.ErrorKind(err) != taskd.KindInvalid {
			t.Errorf("ParsePeriod(%q) accepted or wrong code: %v", in, err)
		}
	}
}

func TestParsePriority(t *testing.T) {
	t.Parallel()
	for i := 0; i <= 10; i++ {
		if got, err := taskd.ParsePriority(strconv.Itoa(i)); err != nil || got != i {
			t.Errorf("priority %d: %v %v", i, got, err)
		}
	}
	for _, in := range []string{"", "-1", "11", "007", "00", "05", "1.0", "x", " 1", "+1", "٣"} {
		if _, err := taskd.ParsePriority(in); taskd.ErrorKind(err) != taskd.KindInvalid {
			t.Errorf("ParsePriority(%q) = %v", in, err)
		}
	}
}

func TestBuildTree(t *testing.T) {
	t.Parallel()
	tasks := []taskd.Task{{ID: 1}, {ID: 2, ParentID: 1}, {ID: 3}, {ID: 4, ParentID: 1}, {ID: 5, ParentID: 99}}
	tree := taskd.BuildTree(tasks)
	if len(tree) != 3 || tree[0].ID != 1 || len(tree[0].Children) != 2 || tree[0].Children[1].ID != 4 || tree[1].ID != 3 || tree[2].ID != 5 {
		t.Fatalf("tree = %+v", tree)
	}
}

func TestChangeEvent(t *testing.T) {
	t.Parallel()
	by := taskd.Actor{AccountID: 1, Person: taskd.PersonRef{ID: 101, Email: "a@example.com", Name: "A"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	before := map[string]any{"name": "a", "priority": "1", "user_to": taskd.Nobody}
	after := map[string]any{"name": "b", "priority": "1", "user_to": taskd.Anyone}
	ev, ok := taskd.ChangeEvent(by, at, taskd.ActionUpdate, taskd.ObjectTask, 7, "/project/3/7/", taskd.ProjectRef{ID: 3, Name: "P"}, before, after)
	if !ok || ev.Name != "update_task" || len(ev.New) != 2 || ev.Old["name"] != "a" || ev.New["user_to"] != taskd.Anyone || ev.DateAdded != "2026-01-02 03:04" {
		t.Fatalf("event = %+v", ev)
	}
	if _, ok := taskd.ChangeEvent(by, at, taskd.ActionUpdate, taskd.ObjectTask, 7, "", taskd.ProjectRef{}, before, before); ok {
		t.Fatal("an update that changed nothing made an event")
	}
	stored := taskd.StoredEvent{ID: 42, Body: []byte(`{"event":"x"}`)}
	if got := string(stored.JSON()); got != `{"id":"42","event":"x"}` {
		t.Fatalf("JSON = %s", got)
	}
	if got := string((taskd.StoredEvent{ID: 1, Body: []byte(`{}`)}).JSON()); got != `{"id":"1"}` {
		t.Fatalf("empty body JSON = %s", got)
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

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"01.03.2026", "2026-03-01", "72h", "10", "a@b.cd", "post_task, close_task", "1,2,3", "tasks_read administrative"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := taskd.ParseDate("d", s); err == nil && d != "" {
			if again, err := taskd.ParseDate("d", d); err != nil || again != d {
				t.Fatalf("ParseDate(%q) = %q does not round-trip", s, d)
			}
		}
		if d, err := taskd.ParsePeriod(s); err == nil && (d < time.Minute || d > 30*24*time.Hour) {
			t.Fatalf("ParsePeriod(%q) = %v out of range", s, d)
		}
		if p, err := taskd.ParsePriority(s); err == nil && (p < 0 || p > 10) {
			t.Fatalf("ParsePriority(%q) = %d", s, p)
		}
		if e, err := taskd.NormalizeEmail(s); err == nil && e != strings.ToLower(e) {
			t.Fatalf("NormalizeEmail(%q) = %q", s, e)
		}
		if list, err := taskd.ParseEmails("members", s); err == nil {
			if again, err := taskd.ParseEmails("members", strings.Join(list, ",")); err != nil || !slices.Equal(again, list) {
				t.Fatalf("ParseEmails(%q) = %v does not round-trip", s, list)
			}
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
