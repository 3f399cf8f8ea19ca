package taskd

import (
	"encoding/json"
	"fmt"
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
// of a webhook payload; wire.ChangeEvent makes it, with the fields in the
// API's spelling.
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

// EventBody is what the pages read back of a stored event's JSON (an Event
// as written): its name, object, who made it, the fields it changed and
// its project. The live stream's messages and the activity feeds take
// their words from it.
type EventBody struct {
	Name     string      `json:"event"`
	Object   EventObject `json:"object"`
	UserFrom struct {
		ID   int64  `json:"id,string"`
		Name string `json:"name"`
	} `json:"user_from"`
	New     map[string]any `json:"new"`
	Old     map[string]any `json:"old"`
	Project *struct {
		ID   int64  `json:"id,string"`
		Name string `json:"name"`
	} `json:"project"`
}

// DecodeEventBody reads a stored event's JSON.
func DecodeEventBody(data []byte) (EventBody, error) {
	var b EventBody
	if err := json.Unmarshal(data, &b); err != nil {
		return EventBody{}, fmt.Errorf("reading an event: %w", err)
	}
	return b, nil
}
