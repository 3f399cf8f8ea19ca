package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestTagsInPages: groups and tags are made on the tags page, set on a
// task's and a project's page, and a task moves between a board's columns
// with a form; the API sees every change, and bad input is refused.
func TestTagsInPages(t *testing.T) {
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	b := s.SignedIn(testsite.OwnerEmail)
	var (
		stage, pid, tid, taskURL, board string
		tagIDs                          = map[string]string{}
	)
	// apiTags reads the task's tags through the API.
	apiTags := func(t *testing.T) map[string]any {
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tid)
		m, _ := r["data"].(map[string]any)["tags"].(map[string]any)
		return m
	}

	if !t.Run("the tags page makes groups, and bad ones are refused", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		tags := b.Get(s.Base + acct + "/tags")
		if !strings.Contains(tags.Body, "No groups yet") {
			t.Fatalf("tags page:\n%s", tags.Body)
		}
		addGroup := func(kind, title, typ, access string) testsite.Page {
			return b.Submit(s.Base, b.Get(s.Base+acct+"/tags"), acct+"/tags/groups", url.Values{"kind": {kind}, "title": {title}, "type": {typ}, "access": {access}})
		}
		addGroup("task", "Stage", "status", "public").Location(t)
		addGroup("task", "Topics", "label", "private").Location(t)
		addGroup("project", "Client", "label", "public").Location(t)
		for _, bad := range []struct{ kind, title, typ, access, want string }{
			{"task", "Secret", "status", "private", "Status groups are always public"},
			{"task", "  ", "label", "public", "Name is required"},
			{"other", "X", "label", "public", "Choose tasks or projects"},
			{"task", "X", "colour", "public", "status or label"},
		} {
			if p := addGroup(bad.kind, bad.title, bad.typ, bad.access); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, bad.want) {
				t.Errorf("group %+v: %d, want 422 with %q\n%s", bad, p.Status, bad.want, p.Body)
			}
		}
	}) {
		return
	}

	if !t.Run("the tags page makes tags in the groups", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		groupID := func(title string) string {
			m := regexp.MustCompile(`id="group(\d+)">` + title + ` `).FindStringSubmatch(b.Get(s.Base + acct + "/tags").Body)
			if m == nil {
				t.Fatalf("no group %s", title)
			}
			return m[1]
		}
		addTag := func(group, kind, title string) {
			t.Helper()
			b.Submit(s.Base, b.Get(s.Base+acct+"/tags"), acct+"/tags", url.Values{"group": {group}, "kind": {kind}, "title": {title}}).Location(t)
		}
		stage = groupID("Stage")
		addTag(stage, "task", "Doing")
		addTag(stage, "task", "Review")
		addTag(groupID("Topics"), "task", "UX")
		addTag(groupID("Client"), "project", "ACME")
	}) {
		return
	}

	if !t.Run("the task page's form sets the whole set of the task's tags", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		pid = s.APIID("action=post_project&title=Site")
		tid = s.APIID("action=post_task&id_project=" + pid + "&title=Logo")
		_, all := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_tags")
		for _, x := range all["data"].([]any) {
			tagIDs[x.(map[string]any)["title"].(string)] = x.(map[string]any)["id"].(string)
		}
		taskURL = s.Base + acct + "/project/" + pid + "/" + tid + "/"
		b.Submit(s.Base, b.Get(taskURL), acct+"/tasks/"+tid+"/tags", url.Values{"tag": {tagIDs["Doing"], tagIDs["UX"]}}).Location(t)
		if got := apiTags(t); len(got) != 2 || got[tagIDs["Doing"]] != "Doing" || got[tagIDs["UX"]] != "UX" {
			t.Fatalf("tags after the task form: %v", got)
		}
		page := b.Get(taskURL)
		if !strings.Contains(page.Body, `<option value="`+tagIDs["Doing"]+`" selected>Doing</option>`) || !strings.Contains(page.Body, `value="`+tagIDs["UX"]+`" checked`) {
			t.Fatalf("the form does not show the task's tags:\n%s", page.Body)
		}
		if bad := b.Submit(s.Base, page, acct+"/tasks/"+tid+"/tags", url.Values{"tag": {"999999"}}); bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "There is no such tag") {
			t.Fatalf("an unknown tag: %d\n%s", bad.Status, bad.Body)
		}
		b.Submit(s.Base, page, acct+"/tasks/"+tid+"/tags", url.Values{"tag": {""}}).Location(t)
		if got := apiTags(t); len(got) != 0 {
			t.Fatalf("clearing the form left %v", got)
		}
	}) {
		return
	}

	// A column per status and one for none.
	if !t.Run("a card moves between the board's columns with its form", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		board = s.Base + acct + "/project/" + pid + "/board"
		bp := b.Get(board)
		if !regexp.MustCompile(`(?s)No status <span class="muted">\(1\)</span>.*Logo.*Doing <span class="muted">\(0\)</span>.*Review`).MatchString(bp.Body) {
			t.Fatalf("board:\n%s", bp.Body)
		}
		to := b.Submit(s.Base, bp, acct+"/tasks/"+tid+"/move", url.Values{"tag": {tagIDs["Review"]}}).Location(t)
		if to.Path != acct+"/project/"+pid+"/board" || to.Query().Get("group") != stage {
			t.Fatalf("a move returns to %s", to)
		}
		if got := apiTags(t); len(got) != 1 || got[tagIDs["Review"]] != "Review" {
			t.Fatalf("tags after a move: %v", got)
		}
		if bp := b.Get(board); !regexp.MustCompile(`(?s)Review <span class="muted">\(1\)</span>.*Logo`).MatchString(bp.Body) {
			t.Fatalf("board after the move:\n%s", bp.Body)
		}
		if bad := b.Submit(s.Base, b.Get(board), acct+"/tasks/"+tid+"/move", url.Values{"tag": {tagIDs["UX"]}}); bad.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a move to a label: %d", bad.Status)
		}
		b.Submit(s.Base, b.Get(board), acct+"/tasks/"+tid+"/move", url.Values{"tag": {""}}).Location(t)
		if got := apiTags(t); len(got) != 0 {
			t.Fatalf("a move to no status left %v", got)
		}
	}) {
		return
	}

	t.Run("every change of the task's tags is an event with them", func(t *testing.T) {
		s := s.In(t)
		_, events := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1d")
		body, _ := json.Marshal(events)
		if n := strings.Count(string(body), `"tags"`); n < 4 {
			t.Errorf("%d update_task events carry tags, want one per change", n)
		}
	})

	if !t.Run("the project page sets the project's tags", func(t *testing.T) {
		s, b := s.In(t), b.In(t)
		projURL := s.Base + acct + "/project/" + pid + "/"
		_, ptags := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project_tags")
		acme := ptags["data"].([]any)[0].(map[string]any)["id"].(string)
		b.Submit(s.Base, b.Get(projURL), acct+"/project/"+pid+"/tags", url.Values{"tag": {acme}}).Location(t)
		if _, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_project&id_project="+pid); r["data"].(map[string]any)["tags"].(map[string]any)[acme] != "ACME" {
			t.Fatalf("project tags: %v", r)
		}
	}) {
		return
	}

	t.Run("readers see the board and the tags but no forms, and cannot move a card", func(t *testing.T) {
		s := s.In(t)
		s.AddMember(s.Slug, "reader@acme.example", "Rita", "Reader", taskd.RoleReader)
		testsite.APICall(t, s.AccountURL(), s.Key, "action=add_project_members&id_project="+pid+"&members=reader@acme.example")
		r := s.SignedIn("reader@acme.example")
		if rp := r.Get(board); rp.Status != 200 || strings.Contains(rp.Body, "/move") || !strings.Contains(rp.Body, "Logo") {
			t.Fatalf("reader's board: %d\n%s", rp.Status, rp.Body)
		}
		if rt := r.Get(s.Base + acct + "/tags"); strings.Contains(rt.Body, "<form method=\"post\" action=\""+acct+"/tags") {
			t.Fatal("a reader sees the tag forms")
		}
		if rp := r.Get(taskURL); strings.Contains(rp.Body, "/tasks/"+tid+"/tags") || !strings.Contains(rp.Body, "Logo") {
			t.Fatal("a reader sees the task's tag form")
		}
		form := url.Values{"csrf": r.Get(board).Form(t, "", "")["csrf"], "group": {stage}, "tag": {tagIDs["Doing"]}}
		if code := r.Post(s.Base+acct+"/tasks/"+tid+"/move", form).Status; code != http.StatusForbidden && code != http.StatusNotFound {
			t.Fatalf("a reader's move: %d", code)
		}
	})
}
