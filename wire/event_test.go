package wire_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

func TestChangeEvent(t *testing.T) {
	t.Parallel()
	by := taskd.Actor{AccountID: 1, Person: taskd.PersonRef{ID: 101, Email: "a@example.com", Name: "A"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	before := map[string]any{"name": "a", "priority": "1", "user_to": taskd.Nobody}
	after := map[string]any{"name": "b", "priority": "1", "user_to": taskd.Anyone}
	ev, ok := wire.ChangeEvent(by, at, taskd.ActionUpdate, taskd.ObjectTask, 7, "/project/3/7/", taskd.ProjectRef{ID: 3, Name: "P"}, before, after)
	if !ok || ev.Name != "update_task" || len(ev.New) != 2 || ev.Old["name"] != "a" || ev.New["user_to"] != taskd.Anyone || ev.DateAdded != "2026-01-02 03:04" {
		t.Fatalf("event = %+v", ev)
	}
	if _, ok := wire.ChangeEvent(by, at, taskd.ActionUpdate, taskd.ObjectTask, 7, "", taskd.ProjectRef{}, before, before); ok {
		t.Fatal("an update that changed nothing made an event")
	}
}
