package taskd_test

import (
	"encoding/json"
	"testing"

	"github.com/taskd/taskd"
)

// TestEventBodyReadsAnEventAsWritten: an Event marshalled as the outbox
// stores it reads back through DecodeEventBody with its name, object, who
// made it, its changes and its project; a body that is not JSON is an
// error.
func TestEventBodyReadsAnEventAsWritten(t *testing.T) {
	e := taskd.Event{Name: "update_task", Action: taskd.ActionUpdate,
		Object:   taskd.EventObject{Type: taskd.ObjectTask, ID: 42, Page: "/project/7/42/"},
		UserFrom: taskd.PersonRef{ID: 5, Email: "olga@acme.example", Name: "Olga Owner"},
		New:      map[string]any{"name": "Write copy"}, Old: map[string]any{"name": "Draft"},
		Project: &taskd.ProjectRef{ID: 7, Name: "Launch"}}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := taskd.DecodeEventBody(data)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "update_task" || b.Object != e.Object || b.UserFrom.ID != 5 || b.UserFrom.Name != "Olga Owner" ||
		b.New["name"] != "Write copy" || b.Old["name"] != "Draft" || b.Project == nil || b.Project.ID != 7 || b.Project.Name != "Launch" {
		t.Errorf("read back: %+v", b)
	}
	if _, err := taskd.DecodeEventBody([]byte("{not json")); err == nil {
		t.Error("a body that is not JSON was read")
	}
}
