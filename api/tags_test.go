package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testsite"
)

// TestTags: the tag actions of spec §10 on both databases, as the PHP SDK
// (GET) and the Python SDK (JSON lists) send them: groups and tags made
// once per title, filters, one status per group, plus and minus by title
// or id, the tags field on tasks and projects, an update_task event, and
// another account's tags out of reach.
func TestTags(t *testing.T) {
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		var (
			stage           map[string]any
			doing, pid, tid string
		)

		if !t.Run("groups are made once per title, of a status or label type, public or private", func(t *testing.T) {
			a := a.in(t)
			groups := a.ok("action", "add_task_tag_groups", "type", "status", "access", "public", "title", "Stage, Stage,Review").list()
			if len(groups) != 2 {
				t.Fatalf("add_task_tag_groups = %v", groups)
			}
			stage = groups[0].(map[string]any)
			if _, bare := stage["id"].(float64); !bare || stage["title"] != "Stage" || stage["type"] != "status" || stage["access"] != "public" {
				t.Fatalf("tag group = %v", stage)
			}
			if again := a.ok("action", "add_task_tag_groups", "type", "status", "access", "public", "title", "Stage").list(); again[0].(map[string]any)["id"] != stage["id"] {
				t.Fatal("a group was made twice")
			}
			a.fails(api.CodeInvalidValue, "action", "add_task_tag_groups", "type", "status", "access", "private", "title", "Secret stage")
			a.fails(api.CodeInvalidValue, "action", "add_task_tag_groups", "type", "colour", "access", "public", "title", "X")
			a.fails(api.CodeFieldRequired, "action", "add_task_tag_groups", "type", "label", "access", "public")
			if r := a.python("add_project_tag_groups", map[string]any{"title": "Kind", "access": "private"}); r.code() != -1 ||
				r.Body["data"].([]any)[0].(map[string]any)["type"] != "label" { // C28: no type from the Python SDK
				t.Fatalf("a project group without a type: %v", r)
			}
			a.ok("action", "add_task_tag_groups", "type", "label", "access", "private", "title", "Topics")
			if l := a.ok("action", "get_task_tag_groups", "type", "label").list(); len(l) != 1 || l[0].(map[string]any)["title"] != "Topics" {
				t.Fatalf("label groups = %v", l)
			}
			if l := a.ok("action", "get_task_tag_groups", "access", "public").list(); len(l) != 2 {
				t.Fatalf("public groups = %v", l)
			}
		}) {
			return
		}

		if !t.Run("tags are made in a group named by title or id", func(t *testing.T) {
			a := a.in(t)
			tags := a.ok("action", "add_task_tags", "group", "Stage", "title", "Todo,Doing,Done").list()
			todo := tags[0].(map[string]any)
			if len(tags) != 3 || keys(todo) != "id,title" || todo["title"] != "Todo" {
				t.Fatalf("add_task_tags = %v", tags)
			}
			doing = tags[1].(map[string]any)["id"].(string)
			a.ok("action", "add_task_tags", "group", testsite.JSONNumber(stage["id"]), "title", "Blocked") // the group by id
			a.ok("action", "add_task_tags", "group", "Topics", "title", "Copy,Design,Done")
			a.fails(api.CodeInvalidValue, "action", "add_task_tags", "group", "Nope", "title", "x")
			list := a.ok("action", "get_task_tags", "group", "Stage").list()
			if len(list) != 4 || list[0].(map[string]any)["group"].(map[string]any)["title"] != "Stage" {
				t.Fatalf("get_task_tags = %v", list)
			}
			if l := a.ok("action", "get_task_tags", "access", "private").list(); len(l) != 3 {
				t.Fatalf("private tags = %v", l)
			}
		}) {
			return
		}

		if !t.Run("plus and minus change a task's tags, one status per group, with an update_task event", func(t *testing.T) {
			a := a.in(t)
			pid = a.id("action", "post_project", "title", "P")
			tid = a.id("action", "post_task", "id_project", pid, "title", "T")
			a.ok("action", "update_task_tags", "id_task", tid) // the PHP SDK's call: nothing to do (C2)
			a.ok("action", "update_task_tags", "id_task", tid, "plus", "Todo,Copy")
			a.ok("action", "update_task_tags", "id_task", tid, "plus", doing) // a status replaces the group's other
			task := a.ok("action", "get_task", "id_task", tid).data()
			if tg := task["tags"].(map[string]any); len(tg) != 2 || tg[doing] != "Doing" {
				t.Fatalf("tags after plus = %v", task["tags"])
			}
			r := a.fails(api.CodeInvalidValue, "action", "update_task_tags", "id_task", tid, "plus", "Done") // in two groups
			if r.Body["message_details"] != "Done" {
				t.Fatalf("an ambiguous title: %v", r)
			}
			a.fails(api.CodeInvalidValue, "action", "update_task_tags", "id_task", tid, "plus", "Unknown")
			if r := a.python("update_task_tags", map[string]any{"id_task": tid, "minus": []string{"Copy", "Copy"}, "plus": []string{}}); r.code() != -1 {
				t.Fatalf("minus as a JSON list: %v", r)
			}
			if l := a.ok("action", "get_tasks", "id_project", pid).list(); len(l[0].(map[string]any)["tags"].(map[string]any)) != 1 {
				t.Fatalf("get_tasks tags = %v", l)
			}
			evs := a.ok("action", "get_events", "period", "1h").Raw
			if !strings.Contains(evs, `"update_task"`) || !strings.Contains(evs, `"tags":{"`) {
				t.Fatalf("no update_task event with tags: %s", evs)
			}
		}) {
			return
		}

		if !t.Run("tags on post_task set the first tags and on update_task the whole set", func(t *testing.T) {
			a := a.in(t)
			t2 := a.ok("action", "post_task", "id_project", pid, "title", "Tagged", "tags", "Todo, Copy").data()
			if len(t2["tags"].(map[string]any)) != 2 {
				t.Fatalf("post_task tags = %v", t2["tags"])
			}
			t2id := t2["id"].(string)
			if up := a.ok("action", "update_task", "id_task", t2id, "tags", doing).data(); len(up["tags"].(map[string]any)) != 1 || up["tags"].(map[string]any)[doing] != "Doing" {
				t.Fatalf("update_task tags = %v", up["tags"])
			}
			a.fails(api.CodeInvalidValue, "action", "update_task", "id_task", t2id, "tags", "Todo,Doing") // two statuses of one group
			a.fails(api.CodeInvalidValue, "action", "post_task", "id_project", pid, "title", "x", "tags", "Nope")
			if up := a.ok("action", "update_task", "id_task", t2id, "tags", "").data(); up["tags"] != nil {
				t.Fatalf("update_task with no tags left %v", up["tags"])
			}
		}) {
			return
		}

		if !t.Run("projects take the tags of project groups only", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "add_project_tags", "group", "Kind", "title", "Internal")
			a.ok("action", "update_project_tags", "id_project", pid, "plus", "Internal")
			if p := a.ok("action", "get_project", "id_project", pid).data(); len(p["tags"].(map[string]any)) != 1 {
				t.Fatalf("project tags = %v", p["tags"])
			}
			if p := a.ok("action", "post_project", "title", "Q", "tags", "Internal").data(); len(p["tags"].(map[string]any)) != 1 {
				t.Fatalf("post_project tags = %v", p["tags"])
			}
			a.fails(api.CodeInvalidValue, "action", "update_task_tags", "id_task", tid, "plus", "Internal") // a project tag
		}) {
			return
		}

		t.Run("another account's tags are unknown here", func(t *testing.T) {
			a := a.in(t)
			b := s.newAccount(t)
			a.fails(api.CodeInvalidValue, "action", "update_task_tags", "id_task", tid, "plus", doing+"0")
			b.fails(api.CodeTaskInvalid, "action", "update_task_tags", "id_task", tid, "plus", doing)
			bp := b.id("action", "post_project", "title", "P")
			bt := b.id("action", "post_task", "id_project", bp, "title", "T")
			b.fails(api.CodeInvalidValue, "action", "update_task_tags", "id_task", bt, "plus", doing)
			if l := b.ok("action", "get_task_tags").list(); len(l) != 0 {
				t.Fatalf("another account's tags: %v", l)
			}
		})
	})
}

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
