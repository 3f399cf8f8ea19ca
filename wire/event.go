package wire

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/taskd/taskd"
)

// The events of changes, as get_events and webhooks carry them: the store
// writes them with the change, in the API's spelling of every field.

// ChangeEvent builds the event of a change. before is nil for a creation and
// after is nil for a deletion; for updates only the changed fields appear in
// new and old. ok is false when an update changed nothing.
func ChangeEvent(actor taskd.Actor, at time.Time, action, objType string, id int64, page string,
	project taskd.ProjectRef, before, after map[string]any) (ev taskd.Event, ok bool) {
	ev = newEvent(actor, at, action, objType, id, page, project)
	switch {
	case before == nil:
		ev.New = after
	case after == nil:
		ev.Old = before
	default:
		for k, v := range after {
			if old, has := before[k]; !has || old != v {
				ev.New[k] = v
				if has {
					ev.Old[k] = old
				}
			}
		}
		for k, old := range before {
			if _, has := after[k]; !has { // a field cleared, a budget: null
				ev.New[k], ev.Old[k] = nil, old
			}
		}
		if len(ev.New) == 0 {
			return ev, false
		}
	}
	return ev, true
}

func newEvent(actor taskd.Actor, at time.Time, action, objType string, id int64, page string, project taskd.ProjectRef) taskd.Event {
	return taskd.Event{
		Name:      action + "_" + objType,
		Action:    action,
		Object:    taskd.EventObject{Type: objType, ID: id, Page: page},
		DateAdded: FormatDateTime(at),
		UserFrom:  actor.Person,
		New:       map[string]any{},
		Old:       map[string]any{},
		Project:   &project,
		AccountID: actor.AccountID,
		ProjectID: project.ID,
		Time:      at,
	}
}

// TaskFields are the fields of a task as events report them.
func TaskFields(t taskd.Task) map[string]any {
	f := map[string]any{
		"name": t.Name, "text": t.Text, "status": t.Status,
		"priority": strconv.Itoa(t.Priority), "user_to": t.Assignee,
		"date_start": t.DateStart, "date_end": t.DateEnd,
	}
	if t.ParentID != 0 {
		f["id_parent"] = strconv.FormatInt(t.ParentID, 10)
	}
	budgetFields(f, t.MaxMinutes, t.MaxCents)
	return f
}

// ProjectFields are the fields of a project as events report them; an
// option of logging time (time_require, time_today, timer_only) is "1"
// while it is on and absent while off.
func ProjectFields(p taskd.Project) map[string]any {
	f := map[string]any{
		"name": p.Name, "text": p.Text, "status": p.Status, "user_to": p.Manager,
		"date_start": p.DateStart, "date_end": p.DateEnd,
	}
	budgetFields(f, p.MaxMinutes, p.MaxCents)
	for name, on := range map[string]bool{"time_require": p.Options.TimeRequire, "time_today": p.Options.TimeToday,
		"timer_only": p.Options.TimerOnly} {
		if on { // as a budget: present when on, "" in new when turned off
			f[name] = "1"
		}
	}
	return f
}

// CommentFields are the fields of a comment as events report them.
func CommentFields(c taskd.Comment) map[string]any {
	return map[string]any{"text": c.Text}
}

// budgetFields adds max_time and max_money when set, as the API writes
// them on objects: bare numbers (20, 1.5, 50.5).
func budgetFields(f map[string]any, minutes, cents int64) {
	if minutes != 0 {
		f["max_time"] = json.Number(FormatHours(minutes))
	}
	if cents != 0 {
		f["max_money"] = json.Number(FormatUnits(cents))
	}
}
