package taskd

import (
	"encoding/json"
	"strconv"
	"time"
)

// Event actions (compat) and object types.
const (
	ActionPost   = "post"
	ActionUpdate = "update"
	ActionClose  = "close"
	ActionReopen = "reopen"
	ActionDelete = "delete"

	ObjectTask    = "task"
	ObjectComment = "comment"
	ObjectProject = "project"
)

// WebhookEvents are the event identifiers add_webhook accepts (spec).
var WebhookEvents = []string{
	"post_task", "update_task", "close_task", "delete_task",
	"post_comment", "update_comment", "delete_comment",
	"post_project", "update_project",
}

// Event is one change in an account, written to the outbox in the same
// transaction as the change. Its JSON form is the element of get_events and
// of a webhook payload.
type Event struct {
	ID        int64          `json:"-"`     // assigned by the store; see StoredEvent.JSON
	Name      string         `json:"event"` // e.g. update_task
	Action    string         `json:"action"`
	Object    EventObject    `json:"object"`
	DateAdded string         `json:"date_added"`
	UserFrom  PersonRef      `json:"user_from"`
	New       map[string]any `json:"new"`
	Old       map[string]any `json:"old"`
	Project   *ProjectRef    `json:"project,omitempty"`

	AccountID int64     `json:"-"`
	ProjectID int64     `json:"-"`
	Time      time.Time `json:"-"`
}

// EventObject names the changed object.
type EventObject struct {
	Type string `json:"type"`
	ID   int64  `json:"id,string"`
	Page string `json:"page"`
}

// MarshalJSON renders {"id","email","name"} with the id as a string (compat).
func (p PersonRef) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID    string `json:"id"`
		Email string `json:"email"`
		Name  string `json:"name"`
	}{strconv.FormatInt(p.ID, 10), p.Email, p.Name})
}

// MarshalJSON renders {"id","name","page"} with the id as a string (compat).
func (p ProjectRef) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Page string `json:"page"`
	}{strconv.FormatInt(p.ID, 10), p.Name, ProjectPage(p.ID)})
}

func newEvent(actor Actor, at time.Time, action, objType string, id int64, page string, project ProjectRef) Event {
	return Event{
		Name:      action + "_" + objType,
		Action:    action,
		Object:    EventObject{Type: objType, ID: id, Page: page},
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

// ProjectFields are the fields of a project as events report them.
func ProjectFields(p Project) map[string]any {
	f := map[string]any{
		"name": p.Name, "text": p.Text, "status": p.Status, "user_to": p.Manager,
		"date_start": p.DateStart, "date_end": p.DateEnd,
	}
	budgetFields(f, p.MaxMinutes, p.MaxCents)
	return f
}

// budgetFields adds max_time and max_money, as the API writes them, when
// set.
func budgetFields(f map[string]any, minutes, cents int64) {
	if minutes != 0 {
		f["max_time"] = FormatHours(minutes)
	}
	if cents != 0 {
		f["max_money"] = FormatUnits(cents)
	}
}

// TaskFields are the fields of a task as events report them.
func TaskFields(t Task) map[string]any {
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

// CommentFields are the fields of a comment as events report them.
func CommentFields(c Comment) map[string]any {
	return map[string]any{"text": c.Text}
}

// ChangeEvent builds the event of a change. before is nil for a creation and
// after is nil for a deletion; for updates only the changed fields appear in
// new and old. ok is false when an update changed nothing.
func ChangeEvent(actor Actor, at time.Time, action, objType string, id int64, page string,
	project ProjectRef, before, after map[string]any) (ev Event, ok bool) {
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
			if _, has := after[k]; !has { // a field cleared, such as a budget
				ev.New[k], ev.Old[k] = "", old
			}
		}
		if len(ev.New) == 0 {
			return ev, false
		}
	}
	return ev, true
}

// ParsePeriod reads get_events' period: 1m..360m, 1h..72h or 1d..30d.
func ParsePeriod(s string) (time.Duration, error) {
	bad := Invalid("period", "Period must be 1m..360m, 1h..72h or 1d..30d")
	if len(s) < 2 || len(s) > 4 {
		return 0, bad
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 1 || s[0] == '+' || s[0] == '0' {
		return 0, bad
	}
	switch s[len(s)-1] {
	case 'm':
		if n <= 360 {
			return time.Duration(n) * time.Minute, nil
		}
	case 'h':
		if n <= 72 {
			return time.Duration(n) * time.Hour, nil
		}
	case 'd':
		if n <= 30 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	return 0, bad
}
