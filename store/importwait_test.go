package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// waitSite is an account an import writes into, as an Imported actor.
type waitSite struct {
	t     *testing.T
	db    *store.DB
	acct  taskd.Account
	owner taskd.Actor
	imp   taskd.Actor // the owner, marked Imported
}

func newWaitSite(t *testing.T, db *store.DB) *waitSite {
	acct, owner := storetest.NewAccount(t, db, "wait")
	imp := owner
	imp.Imported = true
	return &waitSite{t: t, db: db, acct: acct, owner: owner, imp: imp}
}

// made is the record of an import's creation of the source object
// family/id, keeping roles on it for the people of waits.
func (s *waitSite) made(family, id string, waits ...taskd.WaitingRole) *taskd.ImportRecord {
	return &taskd.ImportRecord{Key: taskd.ImportKey{AccountID: s.acct.ID, Source: "https://source.example/a/x",
		Family: family, SourceID: id}, Fingerprint: "fingerprint", Waiting: waits}
}

// registered is a person registered in another account, invited here.
func (s *waitSite) registered(email string, role taskd.Role, by int64) (taskd.Person, taskd.Invitation) {
	s.t.Helper()
	ctx := context.Background()
	other, _ := storetest.NewAccount(s.t, s.db, "elsewhere")
	p, err := s.db.AddMember(ctx, other.ID, taskd.NewPerson{Email: email, PasswordHash: "x"}, taskd.RoleUser)
	if err != nil {
		s.t.Fatal(err)
	}
	inv, err := s.db.Invite(ctx, taskd.InviteInput{AccountID: s.acct.ID, Person: taskd.NewPerson{Email: email}, Role: role, By: by})
	if err != nil {
		s.t.Fatal(err)
	}
	return p, inv
}

func (s *waitSite) waiting() []string {
	s.t.Helper()
	w, err := s.db.WaitingForTest(context.Background(), s.acct.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return w
}

func (s *waitSite) task(rec *taskd.ImportRecord, name string, hidden ...string) taskd.Task {
	s.t.Helper()
	projects, err := s.db.Projects(context.Background(), s.owner.Viewer(), "")
	if err != nil || len(projects) == 0 {
		s.t.Fatalf("projects %v %v", projects, err)
	}
	t, err := s.db.CreateTask(context.Background(), s.imp, projects[0].ID, 0, taskd.TaskInput{Name: &name, Hidden: hidden, Import: rec})
	if err != nil {
		s.t.Fatal(err)
	}
	return t
}

func wait(email string, roles ...string) []taskd.WaitingRole {
	var out []taskd.WaitingRole
	for _, r := range roles {
		out = append(out, taskd.WaitingRole{Email: email, Role: r})
	}
	return out
}

// must is v, failing the test on err: must(f())(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func emailsOf(refs []taskd.PersonRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Email)
	}
	return out
}

// TestImportWaitingAppliedAtAcceptance: what an import wrote without an
// invited person (the author, manager and team of a project; the
// assignee, author and a subscriber of a task; the authors of a comment
// and a cost line) is theirs once they accept, in the acceptance's
// transaction, with no event written; what changed since (a task assigned
// to someone else, a task deleted) or would hide a task from its author
// (one that lists viewers but not its author) is dropped, not forced;
// nothing is left waiting.
func TestImportWaitingAppliedAtAcceptance(t *testing.T) {
	t.Parallel()
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := newWaitSite(t, testdb.New(t, backend).Open(t))
			db, v := s.db, s.owner.Viewer()
			uma := s.acct.Slug + "-uma@example.com"
			other := must(db.AddMember(ctx, s.acct.ID, taskd.NewPerson{Email: s.acct.Slug + "-otto@example.com", PasswordHash: "x"}, taskd.RoleUser))(t)
			person, inv := s.registered(uma, taskd.RoleUser, s.owner.Person.ID)

			name := "Launch"
			project := must(db.CreateProject(ctx, s.imp, taskd.ProjectInput{Name: &name,
				Import: s.made("project", "1", wait(uma, taskd.WaitProjectAuthor, taskd.WaitProjectManager, taskd.WaitProjectMember)...)}))(t)
			task := s.task(s.made("task", "1", wait(uma, taskd.WaitTaskAssignee, taskd.WaitTaskAuthor, taskd.WaitTaskSubscriber)...), "Write copy")
			taken := s.task(s.made("task", "2", wait(uma, taskd.WaitTaskAssignee)...), "Taken meanwhile")
			gone := s.task(s.made("task", "3", wait(uma, taskd.WaitTaskAssignee, taskd.WaitTaskSubscriber)...), "Deleted meanwhile")
			hidden := s.task(s.made("task", "4", wait(uma, taskd.WaitTaskAuthor)...), "Hidden", other.Email)
			listed := s.task(s.made("task", "5", wait(uma, taskd.WaitTaskAuthor)...), "Hidden, its author listed", other.Email, s.owner.Person.Email)
			comment := must(db.PostComment(ctx, s.imp, task.ID, taskd.CommentInput{Text: "Started",
				Import: s.made("comment", "1", wait(uma, taskd.WaitCommentAuthor)...)}))(t)
			minutes := int64(30)
			cost := must(db.AddCost(ctx, s.imp, task.ID, taskd.CostInput{Minutes: &minutes,
				Import: s.made("cost", "1", wait(uma, taskd.WaitCostAuthor)...)}))(t)
			if n := len(s.waiting()); n != 13 {
				t.Fatalf("%d rows wait, want 13: %v", n, s.waiting())
			}
			// Meanwhile, here: a task is assigned to someone else, another deleted.
			otto := other.Email
			must(db.UpdateTask(ctx, s.owner, taken.ID, taskd.TaskInput{AssigneeEmail: &otto}))(t)
			if err := db.DeleteTask(ctx, s.owner, gone.ID); err != nil {
				t.Fatal(err)
			}
			events := len(must(db.Events(ctx, v, time.Time{}, 0))(t))
			version := must(db.ProjectVersion(ctx, v, project.ID))(t)

			if _, err := db.AcceptInvitation(ctx, person.ID, inv.ID); err != nil {
				t.Fatal(err)
			}
			p := must(db.Project(ctx, v, project.ID))(t)
			if p.Author.Email != uma || p.Manager.Email != uma {
				t.Errorf("the project's author %s and manager %s, want %s", p.Author.Email, p.Manager.Email, uma)
			}
			if team := emailsOf(must(db.ProjectMembers(ctx, s.acct.ID, project.ID))(t)); !slices.Contains(team, uma) {
				t.Errorf("the team %v has not %s", team, uma)
			}
			got := must(db.Task(ctx, v, task.ID))(t)
			if got.Assignee.Email != uma || got.Author.Email != uma {
				t.Errorf("the task's assignee %s and author %s, want %s", got.Assignee.Email, got.Author.Email, uma)
			}
			if subs := emailsOf(must(db.Subscribers(ctx, s.acct.ID, task.ID))(t)); !slices.Contains(subs, uma) {
				t.Errorf("subscribers %v, want %s among them", subs, uma)
			}
			if c := must(db.Comment(ctx, v, comment.ID))(t); c.Author.Email != uma {
				t.Errorf("the comment's author %s", c.Author.Email)
			}
			if c := must(db.Cost(ctx, v, cost.ID))(t); c.Person.Email != uma {
				t.Errorf("the cost line's person %s", c.Person.Email)
			}
			if got := must(db.Task(ctx, v, taken.ID))(t); got.Assignee.Email != otto {
				t.Errorf("a task assigned meanwhile went to %s", got.Assignee.Email)
			}
			// The author of a task that lists its viewers sees it: moved
			// from an author left off the list, it would hide the task
			// from them; from one on it (as the import writes), they
			// still see it.
			if got := must(db.Task(ctx, s.imp.Viewer(), hidden.ID))(t); got.Author.Email != s.owner.Person.Email {
				t.Errorf("the author of a task hidden from its author became %s", got.Author.Email)
			}
			if got := must(db.Task(ctx, s.imp.Viewer(), listed.ID))(t); got.Author.Email != uma {
				t.Errorf("the author of a hidden task that lists its author is %s, want %s", got.Author.Email, uma)
			}
			if _, err := db.Task(ctx, v, listed.ID); err != nil {
				t.Errorf("the owner, listed, no longer sees the hidden task: %v", err)
			}
			if w := s.waiting(); len(w) != 0 {
				t.Errorf("left waiting: %v", w)
			}
			if n := len(must(db.Events(ctx, v, time.Time{}, 0))(t)); n != events {
				t.Errorf("the acceptance wrote %d events", n-events)
			}
			if after := must(db.ProjectVersion(ctx, v, project.ID))(t); after == version {
				t.Errorf("the project's version stayed %d: its cached task list names nobody", after)
			}
		})
	}
}

// TestImportWaitingDroppedWithTheInvitation: what waits for someone goes
// when they decline, when the account cancels their invitation and when
// it is cancelled because its inviter may no longer grant it; invited
// again and accepting, they get nothing of it. A wait written for someone
// who is a member by then is applied at once; for someone neither invited
// nor a member, nothing is kept.
func TestImportWaitingDroppedWithTheInvitation(t *testing.T) {
	t.Parallel()
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := newWaitSite(t, testdb.New(t, backend).Open(t))
			db, v := s.db, s.owner.Viewer()
			admin := must(db.AddMember(ctx, s.acct.ID, taskd.NewPerson{Email: s.acct.Slug + "-adam@example.com", PasswordHash: "x"}, taskd.RoleAdmin))(t)
			declines, cancelled, demoted := s.acct.Slug+"-dee@example.com", s.acct.Slug+"-cat@example.com", s.acct.Slug+"-dem@example.com"
			dee, deeInv := s.registered(declines, taskd.RoleUser, s.owner.Person.ID)
			_, catInv := s.registered(cancelled, taskd.RoleUser, s.owner.Person.ID)
			s.registered(demoted, taskd.RoleAdmin, admin.ID)
			name := "Launch"
			must(db.CreateProject(ctx, s.imp, taskd.ProjectInput{Name: &name, Import: s.made("project", "1")}))(t)
			var waits []taskd.WaitingRole
			for _, e := range []string{declines, cancelled, demoted} {
				waits = append(waits, wait(e, taskd.WaitTaskAssignee, taskd.WaitTaskSubscriber)...)
			}
			task := s.task(s.made("task", "1", waits...), "Write copy")
			if n := len(s.waiting()); n != 6 {
				t.Fatalf("waiting %v", s.waiting())
			}
			left := func(want ...string) {
				t.Helper()
				var got []string
				for _, w := range s.waiting() {
					if e, _, _ := strings.Cut(w, " "); !slices.Contains(got, e) {
						got = append(got, e)
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("waiting for %v, want %v", got, want)
				}
			}

			if err := db.DeclineInvitation(ctx, dee.ID, deeInv.ID); err != nil {
				t.Fatal(err)
			}
			left(cancelled, demoted)
			if err := db.CancelInvitation(ctx, s.acct.ID, catInv.ID); err != nil {
				t.Fatal(err)
			}
			left(demoted)
			if _, err := db.SetRole(ctx, s.owner, admin.ID, taskd.RoleUser); err != nil {
				t.Fatal(err)
			}
			left()
			if w := s.waiting(); len(w) != 0 {
				t.Fatalf("waiting after every invitation ended: %v", w)
			}

			// Invited again and accepting: nothing was kept.
			again := must(db.Invite(ctx, taskd.InviteInput{AccountID: s.acct.ID, Person: taskd.NewPerson{Email: declines}, Role: taskd.RoleUser, By: s.owner.Person.ID}))(t)
			if _, err := db.AcceptInvitation(ctx, dee.ID, again.ID); err != nil {
				t.Fatal(err)
			}
			if got := must(db.Task(ctx, v, task.ID))(t); got.Assignee.ID != taskd.NobodyID {
				t.Errorf("a declined assignment was applied: %s", got.Assignee.Email)
			}

			// Written for a member (who accepted meanwhile): applied at once;
			// for someone not invited: not kept.
			second := s.task(s.made("task", "2", append(wait(declines, taskd.WaitTaskAssignee), wait(cancelled, taskd.WaitTaskAssignee)...)...), "Second")
			if got := must(db.Task(ctx, v, second.ID))(t); got.Assignee.Email != declines {
				t.Errorf("a wait for a member went to %q", got.Assignee.Email)
			}
			if w := s.waiting(); len(w) != 0 {
				t.Errorf("kept for someone not invited: %v", w)
			}
		})
	}
}
