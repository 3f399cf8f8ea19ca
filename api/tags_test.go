package api_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testsite"
)

// TestTags: the tag actions of spec §10 as the PHP SDK
// (GET) and the Python SDK (JSON lists) send them: groups and tags made
// once per title, filters, one status per group, plus and minus by title
// or id, the tags field on tasks and projects, an update_task event, and
// another account's tags out of reach.
func TestTags(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
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
			// Its post_task event says which tags it was made with.
			var made map[string]any
			for _, e := range a.ok("action", "get_events", "period", "1h").list() {
				ev := e.(map[string]any)
				if obj := ev["object"].(map[string]any); ev["event"] == "post_task" && obj["id"] == t2id {
					made, _ = ev["new"].(map[string]any)["tags"].(map[string]any)
				}
			}
			if len(made) != 2 || !slices.Contains(slices.Collect(maps.Values(made)), "Copy") {
				t.Fatalf("the post_task event's tags = %v", made)
			}
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

// TestTagsWithToken: the tag actions on the OAuth path:
// a token with tags_write makes groups and tags and sets them, acting as
// its person; tags_read alone reads them and is refused the writes; a
// reader's token with tags_write is refused too, by the role.
func TestTagsWithToken(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
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

// TestTagOrderRenamesAndDeletions: taskd's extensions for the tags
// themselves (issue 33): groups and tags keep the order
// they were made in or that sort_* gives, renames keep a tag on its tasks
// without events, deleting a status in use asks what becomes of its tasks
// (the count in the error) and each task changed is an update_task event,
// a group's deletion takes its tags off, project tags work alike, and
// another account's tags are out of reach.
func TestTagOrderRenamesAndDeletions(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		titles := func(list []any) string {
			var out []string
			for _, x := range list {
				out = append(out, x.(map[string]any)["title"].(string))
			}
			return strings.Join(out, ",")
		}
		ids := map[string]string{}
		tagsOf := func(a *account, tid string) map[string]any {
			m, _ := a.ok("action", "get_task", "id_task", tid).data()["tags"].(map[string]any)
			return m
		}
		// updates are the update_task events of a task that carry tags.
		updates := func(a *account, tid string) []map[string]any {
			var out []map[string]any
			for _, e := range a.ok("action", "get_events", "period", "1h").list() {
				e := e.(map[string]any)
				if e["event"] == "update_task" && e["object"].(map[string]any)["id"] == tid && e["new"].(map[string]any)["tags"] != nil {
					out = append(out, e)
				}
			}
			return out
		}
		var pid, t1, t2 string

		if !t.Run("groups and tags keep the order they were made in, not the alphabet's", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "add_task_tag_groups", "type", "status", "access", "public", "title", "Stage")
			a.ok("action", "add_task_tag_groups", "type", "label", "access", "public", "title", "Kind")
			if got := titles(a.ok("action", "get_task_tag_groups").list()); got != "Stage,Kind" {
				t.Fatalf("groups = %s", got)
			}
			for _, tg := range a.ok("action", "add_task_tags", "group", "Stage", "title", "To do, Doing, Review, Done").list() {
				ids[tg.(map[string]any)["title"].(string)] = tg.(map[string]any)["id"].(string)
			}
			for _, tg := range a.ok("action", "add_task_tags", "group", "Kind", "title", "Bug,Feature").list() {
				ids[tg.(map[string]any)["title"].(string)] = tg.(map[string]any)["id"].(string)
			}
			if got := titles(a.ok("action", "get_task_tags", "group", "Stage").list()); got != "To do,Doing,Review,Done" {
				t.Fatalf("tags = %s", got)
			}
			if got := titles(a.ok("action", "get_task_tags").list()); got != "To do,Doing,Review,Done,Bug,Feature" {
				t.Fatalf("every tag = %s", got)
			}
		}) {
			return
		}

		if !t.Run("sort_task_tags and sort_task_tag_groups put them in the order given, the rest after", func(t *testing.T) {
			a := a.in(t)
			r := a.ok("action", "sort_task_tags", "group", "Stage", "order", "Done, "+ids["To do"])
			if got := titles(r.list()); got != "Done,To do,Doing,Review" {
				t.Fatalf("sort_task_tags answers %s", got)
			}
			if g := r.list()[0].(map[string]any)["group"].(map[string]any); g["title"] != "Stage" {
				t.Fatalf("a sorted tag's group: %v", g)
			}
			if got := titles(a.ok("action", "get_task_tags", "group", "Stage").list()); got != "Done,To do,Doing,Review" {
				t.Fatalf("get_task_tags after the sort = %s", got)
			}
			a.ok("action", "add_task_tags", "group", "Stage", "title", "Blocked")
			if got := titles(a.ok("action", "get_task_tags", "group", "Stage").list()); got != "Done,To do,Doing,Review,Blocked" {
				t.Fatalf("a new tag is not last: %s", got)
			}
			a.ok("action", "sort_task_tags", "group", "Stage", "order", "To do,Doing,Review,Done,Blocked")
			if got := titles(a.ok("action", "sort_task_tag_groups", "order", "Kind").list()); got != "Kind,Stage" {
				t.Fatalf("sort_task_tag_groups answers %s", got)
			}
			if got := titles(a.ok("action", "get_task_tags").list()); got != "Bug,Feature,To do,Doing,Review,Done,Blocked" {
				t.Fatalf("tags follow their groups' order: %s", got)
			}
			a.ok("action", "sort_task_tag_groups", "order", "Stage,Kind")
			if r := a.fails(api.CodeInvalidValue, "action", "sort_task_tags", "group", "Stage", "order", "Doing,Bug"); r.Body["message_details"] != "Bug" {
				t.Fatalf("a tag of another group in the order: %v", r)
			}
			a.fails(api.CodeFieldRequired, "action", "sort_task_tags", "group", "Stage", "order", " , ")
			a.fails(api.CodeInvalidValue, "action", "sort_task_tags", "group", "Nope", "order", "Doing")
			a.fails(api.CodeInvalidValue, "action", "sort_task_tag_groups", "order", "Nope")
		}) {
			return
		}

		if !t.Run("a rename keeps the tag on its tasks and writes no event", func(t *testing.T) {
			a := a.in(t)
			pid = a.id("action", "post_project", "title", "P")
			t1 = a.id("action", "post_task", "id_project", pid, "title", "One", "tags", "Doing,Bug")
			t2 = a.id("action", "post_task", "id_project", pid, "title", "Two", "tags", "Doing")
			a.id("action", "post_task", "id_project", pid, "title", "Three", "tags", "Review")
			before := len(updates(a, t1))
			r := a.ok("action", "update_task_tag", "tag", "Doing", "title", " In progress ")
			if d := r.data(); d["id"] != ids["Doing"] || d["title"] != "In progress" || d["group"].(map[string]any)["title"] != "Stage" {
				t.Fatalf("update_task_tag answers %v", d)
			}
			if got := tagsOf(a, t1); got[ids["Doing"]] != "In progress" {
				t.Fatalf("the task's tags after the rename: %v", got)
			}
			if n := len(updates(a, t1)); n != before {
				t.Errorf("a rename wrote %d update_task events, want none", n-before)
			}
			a.ok("action", "update_task_tag", "tag", ids["Doing"], "title", "In progress") // by id; the same title is no change
			if r := a.fails(api.CodeConflict, "action", "update_task_tag", "tag", "In progress", "title", "Review"); r.Body["message_details"] != "title" {
				t.Fatalf("a rename to a title the group has: %v", r)
			}
			a.fails(api.CodeInvalidValue, "action", "update_task_tag", "tag", "Review", "title", "a, b")
			a.fails(api.CodeFieldRequired, "action", "update_task_tag", "tag", "Review", "title", " ")
			a.fails(api.CodeFieldRequired, "action", "update_task_tag", "title", "x")
			a.fails(api.CodeInvalidValue, "action", "update_task_tag", "tag", "Nope", "title", "x")
			if g := a.ok("action", "update_task_tag_group", "group", "Stage", "title", "Phase").data(); g["title"] != "Phase" || g["type"] != "status" {
				t.Fatalf("update_task_tag_group answers %v", g)
			}
			a.fails(api.CodeConflict, "action", "update_task_tag_group", "group", "Phase", "title", "Kind")
			a.fails(api.CodeInvalidValue, "action", "update_task_tag_group", "group", "Stage", "title", "x") // renamed away
			if got := titles(a.ok("action", "get_task_tag_groups").list()); got != "Phase,Kind" {
				t.Fatalf("groups after the rename: %s", got)
			}
		}) {
			return
		}

		if !t.Run("deleting a status in use asks what becomes of its tasks", func(t *testing.T) {
			a := a.in(t)
			r := a.fails(api.CodeFieldRequired, "action", "delete_task_tag", "tag", "In progress")
			if r.Body["message_details"] != "move_to" || !strings.Contains(r.Body["message"].(string), "2 tasks have the status In progress") {
				t.Fatalf("deleting a status in use without move_to: %v", r)
			}
			if got := tagsOf(a, t1); got[ids["Doing"]] != "In progress" {
				t.Fatalf("a refused deletion changed the task: %v", got)
			}
			if r := a.fails(api.CodeInvalidValue, "action", "delete_task_tag", "tag", "In progress", "move_to", "Bug"); r.Body["message_details"] != "Bug" {
				t.Fatalf("moving to a tag of another group: %v", r)
			}
			a.fails(api.CodeInvalidValue, "action", "delete_task_tag", "tag", "In progress", "move_to", ids["Doing"]) // itself
			before := len(updates(a, t1))
			a.ok("action", "delete_task_tag", "tag", "In progress", "move_to", "Review")
			for _, tid := range []string{t1, t2} {
				if got := tagsOf(a, tid); got[ids["Review"]] != "Review" || got[ids["Doing"]] != nil {
					t.Fatalf("task %s after the move: %v", tid, got)
				}
			}
			evs := updates(a, t1)
			if len(evs) != before+1 {
				t.Fatalf("%d update_task events for the move, want 1", len(evs)-before)
			}
			last := evs[len(evs)-1]
			if old := last["old"].(map[string]any)["tags"].(map[string]any); old[ids["Doing"]] != "In progress" {
				t.Errorf("the event's old tags: %v", last)
			}
			if neu := last["new"].(map[string]any)["tags"].(map[string]any); neu[ids["Review"]] != "Review" || len(neu) != 2 {
				t.Errorf("the event's new tags: %v", last)
			}
			a.ok("action", "delete_task_tag", "tag", "Review", "move_to", "NONE")
			if got := tagsOf(a, t2); len(got) != 0 {
				t.Fatalf("a status taken off left %v", got)
			}
			if len(updates(a, t2)) < 2 {
				t.Errorf("taking the status off wrote no update_task event")
			}
			a.ok("action", "delete_task_tag", "tag", "Blocked") // no task has it: nothing to ask
			a.ok("action", "delete_task_tag", "tag", "Bug")     // a label: its tasks just lose it
			if got := tagsOf(a, t1); len(got) != 0 {
				t.Fatalf("the deleted label stays on the task: %v", got)
			}
			if got := titles(a.ok("action", "get_task_tags").list()); got != "To do,Done,Feature" {
				t.Fatalf("tags left: %s", got)
			}
		}) {
			return
		}

		if !t.Run("deleting a group takes its tags off the tasks", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "update_task_tags", "id_task", t1, "plus", "Done,Feature")
			before := len(updates(a, t1))
			a.ok("action", "delete_task_tag_group", "group", "Phase")
			if got := tagsOf(a, t1); len(got) != 1 || got[ids["Done"]] != nil {
				t.Fatalf("the task's tags after its group went: %v", got)
			}
			if len(updates(a, t1)) != before+1 {
				t.Errorf("deleting the group wrote no update_task event")
			}
			if got := titles(a.ok("action", "get_task_tag_groups").list()); got != "Kind" {
				t.Fatalf("groups left: %s", got)
			}
			a.fails(api.CodeInvalidValue, "action", "delete_task_tag_group", "group", "Phase")
		}) {
			return
		}

		if !t.Run("project tags are renamed, sorted and deleted alike", func(t *testing.T) {
			a := a.in(t)
			a.ok("action", "add_project_tag_groups", "type", "status", "access", "public", "title", "Health")
			a.ok("action", "add_project_tags", "group", "Health", "title", "Green,Red")
			a.ok("action", "update_project_tags", "id_project", pid, "plus", "Red")
			if got := titles(a.ok("action", "sort_project_tags", "group", "Health", "order", "Red").list()); got != "Red,Green" {
				t.Fatalf("sort_project_tags = %s", got)
			}
			a.ok("action", "update_project_tag", "tag", "Red", "title", "At risk")
			r := a.fails(api.CodeFieldRequired, "action", "delete_project_tag", "tag", "At risk")
			if !strings.Contains(r.Body["message"].(string), "1 project has the status At risk") {
				t.Fatalf("deleting a project status in use: %v", r)
			}
			a.ok("action", "delete_project_tag", "tag", "At risk", "move_to", "Green")
			if tg := a.ok("action", "get_project", "id_project", pid).data()["tags"].(map[string]any); len(tg) != 1 || !strings.Contains(fmt.Sprint(tg), "Green") {
				t.Fatalf("the project's tags after the move: %v", tg)
			}
			a.ok("action", "update_project_tag_group", "group", "Health", "title", "State")
			a.ok("action", "sort_project_tag_groups", "order", "State")
			a.ok("action", "delete_project_tag_group", "group", "State")
			if p := a.ok("action", "get_project", "id_project", pid).data(); p["tags"] != nil {
				t.Fatalf("the project keeps the tags of a deleted group: %v", p["tags"])
			}
		}) {
			return
		}

		t.Run("another account's tags and groups are out of reach", func(t *testing.T) {
			a := a.in(t)
			b := s.newAccount(t)
			feature := ids["Feature"]
			kind := a.ok("action", "get_task_tag_groups").list()[0].(map[string]any)["id"]
			for _, call := range [][]string{
				{"action", "update_task_tag", "tag", feature, "title", "Mine"},
				{"action", "delete_task_tag", "tag", feature, "move_to", "none"},
				{"action", "update_task_tag_group", "group", testsite.JSONNumber(kind), "title", "Mine"},
				{"action", "delete_task_tag_group", "group", testsite.JSONNumber(kind)},
				{"action", "sort_task_tags", "group", testsite.JSONNumber(kind), "order", feature},
			} {
				b.fails(api.CodeInvalidValue, call...)
			}
			if got := titles(a.ok("action", "get_task_tags").list()); got != "Feature" {
				t.Fatalf("the other account's call changed the tags: %s", got)
			}
		})
	})
}

// TestTagsOfAnObjectInTheirOrder: a task's and a project's tags field,
// {"id": "title"}, lists the tags in their order (the groups', then each
// group's), not in the order of their ids' text, which sorting the
// object's keys would give.
func TestTagsOfAnObjectInTheirOrder(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		a.ok("action", "add_task_tag_groups", "type", "label", "access", "public", "title", "Topics")
		// Ten tags, so that "10" comes before "2" as text; then sorted
		// backwards.
		var titles, ids []string
		for i := range 10 {
			titles = append(titles, fmt.Sprintf("T%02d", i))
		}
		for _, tag := range a.ok("action", "add_task_tags", "group", "Topics", "title", strings.Join(titles, ",")).list() {
			ids = append(ids, fmt.Sprint(tag.(map[string]any)["id"]))
		}
		slices.Reverse(ids)
		a.ok("action", "sort_task_tags", "group", "Topics", "order", strings.Join(ids, ","))
		pid := a.id("action", "post_project", "title", "Order")
		tid := a.id("action", "post_task", "id_project", pid, "title", "Tagged", "tags", strings.Join(ids, ","))
		want := make([]string, len(ids))
		for i, id := range ids {
			want[i] = fmt.Sprintf("%q:%q", id, titles[len(titles)-1-i])
		}
		raw := a.ok("action", "get_task", "id_task", tid).Raw
		if !strings.Contains(raw, `"tags":{`+strings.Join(want, ",")+`}`) {
			t.Errorf("the task's tags are not in their order %v:\n%s", ids, raw)
		}
		a.ok("action", "add_project_tag_groups", "type", "label", "access", "public", "title", "Kinds")
		var pids []string
		for _, tag := range a.ok("action", "add_project_tags", "group", "Kinds", "title", "K0,K1,K2,K3,K4,K5,K6,K7,K8,K9,K10").list() {
			pids = append(pids, fmt.Sprint(tag.(map[string]any)["id"]))
		}
		a.ok("action", "update_project_tags", "id_project", pid, "plus", strings.Join(pids, ","))
		raw = a.ok("action", "get_project", "id_project", pid).Raw
		var pwant []string
		for i, id := range pids {
			pwant = append(pwant, fmt.Sprintf("%q:%q", id, fmt.Sprintf("K%d", i)))
		}
		if !strings.Contains(raw, `"tags":{`+strings.Join(pwant, ",")+`}`) {
			t.Errorf("the project's tags are not in their order:\n%s", raw)
		}
	})
}
