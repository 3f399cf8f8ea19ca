package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// calendarStore is what the calendar's pages read beyond the families of
// Store (web.CalendarStore, issue 35).
type calendarStore interface {
	SetICalToken(ctx context.Context, personID int64, hash string) (time.Time, error)
	ICalTokenSet(ctx context.Context, personID int64) (time.Time, error)
	ICalPerson(ctx context.Context, hash string) (taskd.Person, error)
	Activity(ctx context.Context, q taskd.ActivityQuery) ([]taskd.StoredEvent, error)
}

// testCalendarFeeds: a person has one feed secret, found by its hash
// until it is replaced; the activity is the events the viewer sees,
// newest first, of a project or a person, a page at a time (issue 35).
func testCalendarFeeds(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, ok := f.Store.(calendarStore)
	if !ok {
		t.Skip("the store keeps no calendar feeds")
	}
	owner := f.Owner
	ann := member(t, f, "ann", taskd.RoleUser)

	if _, err := s.ICalTokenSet(ctx, ann.Person.ID); !taskd.IsNotFound(err) {
		t.Fatalf("a feed before any: %v", err)
	}
	must(s.SetICalToken(ctx, ann.Person.ID, "hash-one"))(t)
	if p := must(s.ICalPerson(ctx, "hash-one"))(t); p.ID != ann.Person.ID {
		t.Fatalf("hash-one is person %d, want %d", p.ID, ann.Person.ID)
	}
	must(s.SetICalToken(ctx, ann.Person.ID, "hash-two"))(t)
	if _, err := s.ICalPerson(ctx, "hash-one"); !taskd.IsNotFound(err) {
		t.Errorf("the replaced secret: %v", err)
	}
	if _, err := s.ICalPerson(ctx, "hash-three"); !taskd.IsNotFound(err) {
		t.Errorf("an unknown secret: %v", err)
	}
	if p := must(s.ICalPerson(ctx, "hash-two"))(t); p.ID != ann.Person.ID {
		t.Errorf("hash-two is person %d", p.ID)
	}
	must(s.ICalTokenSet(ctx, ann.Person.ID))(t)

	p := newProject(t, f)
	other := newProject(t, f)
	must(f.Store.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Hidden-one"), Hidden: []string{owner.Person.Email}}))(t)
	for _, name := range []string{"First", "Second", "Third"} {
		must(f.Store.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new(name)}))(t)
	}
	must(f.Store.CreateTask(ctx, ann, p.ID, 0, taskd.TaskInput{Name: new("Anns")}))(t)
	must(f.Store.CreateTask(ctx, owner, other.ID, 0, taskd.TaskInput{Name: new("Elsewhere")}))(t)
	names := func(evs []taskd.StoredEvent) string {
		var out []string
		for _, e := range evs {
			for _, n := range []string{"Hidden-one", "First", "Second", "Third", "Anns", "Elsewhere"} {
				if strings.Contains(string(e.Body), `"name":"`+n+`"`) {
					out = append(out, n)
				}
			}
		}
		return strings.Join(out, " ")
	}
	ownerV, annV := viewerOf(t, f, owner.Person.ID), viewerOf(t, f, ann.Person.ID)
	if got := names(must(s.Activity(ctx, taskd.ActivityQuery{Viewer: ownerV, ProjectID: p.ID}))(t)); got != "Anns Third Second First Hidden-one" {
		t.Errorf("the owner's activity of the project: %q", got)
	}
	if got := names(must(s.Activity(ctx, taskd.ActivityQuery{Viewer: annV, ProjectID: p.ID}))(t)); got != "Anns Third Second First" {
		t.Errorf("ann's activity of the project: %q", got)
	}
	if got := names(must(s.Activity(ctx, taskd.ActivityQuery{Viewer: ownerV, PersonID: ann.Person.ID}))(t)); got != "Anns" {
		t.Errorf("ann's changes: %q", got)
	}
	page := must(s.Activity(ctx, taskd.ActivityQuery{Viewer: ownerV, ProjectID: p.ID, Limit: 2}))(t)
	if got := names(page); got != "Anns Third" {
		t.Fatalf("the first page of 2: %q", got)
	}
	if got := names(must(s.Activity(ctx, taskd.ActivityQuery{Viewer: ownerV, ProjectID: p.ID, Limit: 2, Before: page[1].ID}))(t)); got != "Second First" {
		t.Errorf("the second page of 2: %q", got)
	}
}
