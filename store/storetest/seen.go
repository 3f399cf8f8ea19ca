package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testSeenEvents: the events of a hidden task, of its subtask and of a
// hidden comment are seen by whom the objects are, and stay so once they
// are deleted (events.hidden); a limited role sees only its teams'
// projects' events; every event since the time comes back, however many.
func testSeenEvents(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	ann := member(t, f, "ann", taskd.RoleUser)
	ben := member(t, f, "ben", taskd.RoleUser)
	gus := member(t, f, "gus", taskd.RoleGuest)
	since := f.Clock.Now().Add(-time.Minute)
	p := newProject(t, f)
	other := newProject(t, f)
	must(s.SetProjectMembers(ctx, owner, p.ID, []string{gus.Person.Email}, true))(t)
	secret := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Secret-task"), Hidden: []string{ann.Person.Email}}))(t)
	must(s.CreateTask(ctx, owner, p.ID, secret.ID, taskd.TaskInput{Name: new("Secret-sub")}))(t)
	open := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Open-task")}))(t)
	note := must(s.CreateHiddenComment(ctx, owner, open.ID, "Note-for-ben", []string{ben.Person.Email}))(t)
	must(s.CreateTask(ctx, owner, other.ID, 0, taskd.TaskInput{Name: new("Elsewhere")}))(t)
	seen := func(a taskd.Actor) string {
		t.Helper()
		var b strings.Builder
		for _, e := range must(s.Events(ctx, viewerOf(t, f, a.Person.ID), since, 0))(t) {
			b.Write(e.Body)
		}
		return b.String()
	}
	check := func(when string, cases []seenCase) {
		t.Helper()
		for _, c := range cases {
			got := seen(c.who)
			for _, m := range c.sees {
				if !strings.Contains(got, m) {
					t.Errorf("%s: %s does not see the events of %s", when, c.who.Person.Name, m)
				}
			}
			for _, m := range c.hidden {
				if strings.Contains(got, m) {
					t.Errorf("%s: %s sees the events of %s", when, c.who.Person.Name, m)
				}
			}
		}
	}
	check("while they exist", []seenCase{
		{owner, []string{"Secret-task", "Secret-sub", "Note-for-ben", "Elsewhere"}, nil},
		{ann, []string{"Secret-task", "Secret-sub", "Open-task"}, []string{"Note-for-ben"}},
		{ben, []string{"Open-task", "Note-for-ben", "Elsewhere"}, []string{"Secret-task", "Secret-sub"}},
		{gus, []string{"Open-task"}, []string{"Secret-task", "Secret-sub", "Note-for-ben", "Elsewhere"}},
	})
	// Deleted, who was listed went with them: their events are the key's.
	noErr(t, s.DeleteComment(ctx, owner, note.ID))
	noErr(t, s.DeleteTask(ctx, owner, secret.ID))
	check("once deleted", []seenCase{
		{owner, []string{"Open-task", "Elsewhere"}, []string{"Secret-task", "Secret-sub", "Note-for-ben"}},
		{ann, []string{"Open-task"}, []string{"Secret-task", "Secret-sub", "Note-for-ben"}},
		{ben, []string{"Open-task"}, []string{"Secret-task", "Secret-sub", "Note-for-ben"}},
	})
	key := must(s.Events(ctx, taskd.AccountViewer(f.Account.ID), since, 0))(t)
	var all strings.Builder
	for _, e := range key {
		all.Write(e.Body)
	}
	for _, m := range []string{"Secret-task", "Secret-sub", "Note-for-ben", "Elsewhere"} {
		if !strings.Contains(all.String(), m) {
			t.Errorf("the key does not see the events of %s", m)
		}
	}
}

// seenCase is what one person sees of the events and what not.
type seenCase struct {
	who          taskd.Actor
	sees, hidden []string
}
