package storetest

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testNotifications: a change to a task is noted for its assignee and
// subscribers, never for the one who made it, nor for people who turned
// notifications off or may not see the project (a guest off its team);
// each person's notes become one digest per account, taken once even by
// eight senders at once.
func testNotifications(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	add := func(name string, role taskd.Role) taskd.Person {
		return must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: strings.ToLower(name) + "-" + f.Account.Slug + "@example.com", PasswordHash: "h", FirstName: name}, role))(t)
	}
	ann, ben, quiet, guest := add("Ann", taskd.RoleUser), add("Ben", taskd.RoleUser), add("Quiet", taskd.RoleUser), add("Guest", taskd.RoleGuest)
	noErr(t, s.SetNotify(ctx, quiet.ID, false))
	p := must(s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Site")}))(t)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Logo"), AssigneeEmail: new(ann.Email),
		Subscribe: []string{ben.Email, quiet.Email, guest.Email}}))(t)
	annActor := taskd.Actor{AccountID: f.Account.ID, Person: ann.Ref(), Role: taskd.RoleUser}
	must(s.CreateComment(ctx, annActor, task.ID, "Done soon"))(t)
	must(s.CompleteTask(ctx, by, task.ID))(t)

	due := must(s.DigestsDue(ctx, f.Clock.Now().Add(time.Second), 10))(t)
	got := map[int64]bool{}
	for _, id := range due {
		got[id] = true
	}
	if len(due) != 3 || !got[ann.ID] || !got[ben.ID] || !got[by.Person.ID] {
		t.Fatalf("people with notes: %v (ann %d, ben %d, owner %d)", due, ann.ID, ben.ID, by.Person.ID)
	}
	if later := must(s.DigestsDue(ctx, f.Clock.Now().Add(-time.Second), 10))(t); len(later) != 0 {
		t.Fatalf("notes due before their window: %v", later)
	}
	var digests []taskd.Digest
	var mu sync.Mutex
	var sent atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			n, err := s.SendDigests(ctx, ben.ID, func(d taskd.Digest) (taskd.QueuedMail, error) {
				mu.Lock()
				digests = append(digests, d)
				mu.Unlock()
				return taskd.QueuedMail{To: d.Person.Email, Subject: "digest", Body: []byte("x")}, nil
			})
			if err != nil {
				t.Error(err)
			}
			sent.Add(int64(n))
		})
	}
	wg.Wait()
	if sent.Load() != 1 || len(digests) != 1 {
		t.Fatalf("%d digests sent for one person's notes", sent.Load())
	}
	d := digests[0]
	if d.Account.ID != f.Account.ID || len(d.Lines) != 3 || d.Lines[0].Line != "Olga Owner created the task, assigned to Ann" ||
		d.Lines[1].Line != "Ann commented: Done soon" || d.Lines[2].Line != "Olga Owner completed the task" || d.Lines[0].TaskPage != task.Page() {
		t.Fatalf("digest: %+v", d)
	}
	// Ann made the comment: she hears of the rest only.
	n := must(s.SendDigests(ctx, ann.ID, func(d taskd.Digest) (taskd.QueuedMail, error) {
		if len(d.Lines) != 2 {
			t.Errorf("Ann's digest: %+v", d.Lines)
		}
		return taskd.QueuedMail{To: d.Person.Email, Subject: "digest", Body: []byte("x")}, nil
	}))(t)
	if n != 1 {
		t.Fatalf("Ann's digests: %d", n)
	}

	// A hidden task is told only to those who may see it; a hidden
	// comment only to the people it is for.
	secret := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Secret"), AssigneeEmail: new(ann.Email),
		Subscribe: []string{ben.Email}, Hidden: []string{ann.Email}}))(t)
	must(s.CreateHiddenComment(ctx, by, task.ID, "for Ann", []string{ann.Email}))(t)
	due = must(s.DigestsDue(ctx, f.Clock.Now().Add(time.Second), 10))(t)
	if !slices.Contains(due, ann.ID) || slices.Contains(due, ben.ID) {
		t.Fatalf("people told of a hidden task or comment: %v (ann %d, ben %d)", due, ann.ID, ben.ID)
	}
	if _, err := s.Task(ctx, viewerOf(t, f, ben.ID), secret.ID); !taskd.IsNotFound(err) {
		t.Fatalf("Ben sees the task hidden for Ann: %v", err)
	}
	if _, err := s.Task(ctx, viewerOf(t, f, ann.ID), secret.ID); err != nil {
		t.Fatalf("Ann does not see the task hidden for her: %v", err)
	}
}
