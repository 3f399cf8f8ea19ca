package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// TestGuestOnNoTeamSeesNothing: a guest who is on no team sees no project,
// no task, no comment and no event, and a webhook acting for them gets no
// delivery, while the same changes reach a webhook of the key (the
// control). A guest sees their teams' projects only; with no team, that is
// none.
func TestGuestOnNoTeamSeesNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		e := newEnv(t, d, true)
		ctx := context.Background()
		guest, err := e.db.AddMember(ctx, e.account.ID, taskd.NewPerson{Email: "gus-" + e.account.Slug + "@example.com",
			PasswordHash: "x", FirstName: "Gus"}, taskd.RoleGuest)
		if err != nil {
			t.Fatal(err)
		}
		hook := func(by int64) taskd.Webhook {
			t.Helper()
			w, err := e.db.CreateWebhook(ctx, taskd.Webhook{AccountID: e.account.ID, URL: "http://hooks.example/",
				Events: []string{"post_task", "post_comment", "post_project"}, By: by, Secret: []byte("sealed")})
			if err == nil {
				err = e.db.EnableWebhook(ctx, e.account.ID, w.ID, by)
			}
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		guestHook, keyHook := hook(guest.ID), hook(0)
		tk := e.newTask(e.project.ID, "Plan")
		if _, err := e.db.CreateComment(ctx, e.by, tk.ID, "A note"); err != nil {
			t.Fatal(err)
		}
		e.newProject("Second")

		v := taskd.PersonViewer(e.account.ID, guest.ID, taskd.RoleGuest)
		if ps, err := e.db.Projects(ctx, v, ""); err != nil || len(ps) != 0 {
			t.Errorf("projects: %d, %v; want none", len(ps), err)
		}
		if ts, err := e.db.Tasks(ctx, taskd.TaskQuery{Viewer: v}); err != nil || len(ts) != 0 {
			t.Errorf("tasks: %d, %v; want none", len(ts), err)
		}
		if _, err := e.db.Task(ctx, v, tk.ID); !taskd.IsNotFound(err) {
			t.Errorf("the task by its id: %v; want not found", err)
		}
		if cs, err := e.db.Comments(ctx, v, tk.ID); len(cs) != 0 || (err != nil && !taskd.IsNotFound(err)) {
			t.Errorf("the task's comments: %d, %v; want none", len(cs), err)
		}
		if evs, err := e.db.Events(ctx, v, time.Time{}, 0); err != nil || len(evs) != 0 {
			t.Errorf("events: %d, %v; want none", len(evs), err)
		}
		for {
			if n, err := e.db.FanOut(ctx, 200); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				break
			}
		}
		if dels, _, err := e.db.NextDeliveries(ctx, guestHook.ID, 100); err != nil || len(dels) != 0 {
			t.Errorf("the guest's webhook: %d deliveries, %v; want none", len(dels), err)
		}
		if dels, _, err := e.db.NextDeliveries(ctx, keyHook.ID, 100); err != nil || len(dels) != 3 {
			t.Errorf("the key's webhook: %d deliveries, %v; want the task, the comment and the project", len(dels), err)
		}
	})
}
