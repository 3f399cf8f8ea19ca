package wire_test

import (
	"encoding/json"
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

// TestBudgetsInEvents: an event carries a budget as the objects do, a bare
// number (max_time in hours, max_money in units), and a cleared one as
// null.
func TestBudgetsInEvents(t *testing.T) {
	t.Parallel()
	by := taskd.Actor{AccountID: 1, Person: taskd.PersonRef{ID: 101, Email: "a@example.com", Name: "A"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := wire.TaskFields(taskd.Task{Name: "T", MaxMinutes: 90, MaxCents: 5050})
	cleared := wire.TaskFields(taskd.Task{Name: "T", MaxCents: 5050})
	ev, ok := wire.ChangeEvent(by, at, taskd.ActionUpdate, taskd.ObjectTask, 7, "/project/3/7/", taskd.ProjectRef{ID: 3}, set, cleared)
	if !ok {
		t.Fatal("clearing a budget made no event")
	}
	b, err := json.Marshal(map[string]any{"set": set, "new": ev.New, "old": ev.Old})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Set struct {
			MaxTime  any `json:"max_time"`
			MaxMoney any `json:"max_money"`
		}
		New, Old map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Set.MaxTime != 1.5 || got.Set.MaxMoney != 50.5 {
		t.Errorf("a budget in an event: max_time %#v, max_money %#v; want the numbers 1.5 and 50.5", got.Set.MaxTime, got.Set.MaxMoney)
	}
	if v, has := got.New["max_time"]; !has || v != nil || got.Old["max_time"] != 1.5 || len(got.New) != 1 {
		t.Errorf("a cleared budget: new %v, old %v; want max_time null in new, 1.5 in old", got.New, got.Old)
	}
}
