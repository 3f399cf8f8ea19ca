package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestTagsWithToken: the tag actions on the OAuth path, on both databases:
// a token with tags_write makes groups and tags and sets them, acting as
// its person; tags_read alone reads them and is refused the writes; a
// reader's token with tags_write is refused too, by the role.
func TestTagsWithToken(t *testing.T) {
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		person := func(name string, role taskd.Role) taskd.Person {
			p, err := s.DB.AddMember(context.Background(), acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, role)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		uma, rita := person("uma", taskd.RoleUser), person("rita", taskd.RoleReader)
		writer := tokenFor(t, s, a, uma, taskd.RoleUser, "tags_read", "tags_write", "tasks_read")
		readOnly := tokenFor(t, s, a, uma, taskd.RoleUser, "tags_read")
		readerRole := tokenFor(t, s, a, rita, taskd.RoleReader, "tags_read", "tags_write")
		as := func(token string, pairs ...string) response {
			return a.do(http.MethodGet, a.URL+"/a/"+a.Slug+"/api/oauth2?"+query(pairs...), "", "", http.Header{"Authorization": {"Bearer " + token}})
		}
		pid := a.id("action", "post_project", "title", "P")
		tid := a.id("action", "post_task", "id_project", pid, "title", "T")

		if r := as(writer, "action", "add_task_tag_groups", "type", "status", "access", "public", "title", "Stage"); r.code() != -1 {
			t.Fatalf("add_task_tag_groups with a token: %s", r)
		}
		if r := as(writer, "action", "add_task_tags", "group", "Stage", "title", "Doing,Done"); r.code() != -1 || len(r.list()) != 2 {
			t.Fatalf("add_task_tags with a token: %s", r)
		}
		if r := as(writer, "action", "update_task_tags", "id_task", tid, "plus", "Doing"); r.code() != -1 {
			t.Fatalf("update_task_tags with a token: %s", r)
		}
		if r := as(writer, "action", "get_task", "id_task", tid); !strings.Contains(r.Raw, `"Doing"`) {
			t.Fatalf("the task's tags through the token: %s", r)
		}
		if r := as(readOnly, "action", "get_task_tags"); r.code() != -1 || len(r.list()) != 2 {
			t.Fatalf("get_task_tags with tags_read: %s", r)
		}
		if r := as(readOnly, "action", "update_task_tags", "id_task", tid, "plus", "Done"); r.code() == -1 {
			t.Fatalf("tags_read alone changed tags: %s", r)
		}
		if r := as(readerRole, "action", "add_task_tags", "group", "Stage", "title", "Blocked"); r.code() == -1 {
			t.Fatalf("a reader's token made a tag: %s", r)
		}
		events := a.ok("action", "get_events", "period", "1d").Raw
		if !strings.Contains(events, `"update_task"`) || !strings.Contains(events, uma.Email) {
			t.Errorf("the token's tag change is not an update_task event by its person: %s", events)
		}
		if got := a.ok("action", "get_task", "id_task", tid).data()["tags"]; got == nil {
			t.Errorf("the administrative path does not see the token's tags")
		}
	})
}
