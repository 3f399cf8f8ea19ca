package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// TestTagsInPages: groups and tags are made on the tags page, set on a
// task's and a project's page, and a task moves between a board's columns
// with a form; the API sees every change, and bad input is refused.
func TestTagsInPages(t *testing.T) {
	s := newSite(t)
	acct := "/a/" + s.slug
	b := s.signedIn(ownerEmail)
	tags := b.get(s.base + acct + "/tags")
	if !strings.Contains(tags.body, "No groups yet") {
		t.Fatalf("tags page:\n%s", tags.body)
	}
	addGroup := func(kind, title, typ, access string) page {
		return b.submit(s.base, b.get(s.base+acct+"/tags"), acct+"/tags/groups", url.Values{"kind": {kind}, "title": {title}, "type": {typ}, "access": {access}})
	}
	addGroup("task", "Stage", "status", "public").location(t)
	addGroup("task", "Topics", "label", "private").location(t)
	addGroup("project", "Client", "label", "public").location(t)
	for _, bad := range []struct{ kind, title, typ, access, want string }{
		{"task", "Secret", "status", "private", "Status groups are always public"},
		{"task", "  ", "label", "public", "Name is required"},
		{"other", "X", "label", "public", "Choose tasks or projects"},
		{"task", "X", "colour", "public", "status or label"},
	} {
		if p := addGroup(bad.kind, bad.title, bad.typ, bad.access); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, bad.want) {
			t.Errorf("group %+v: %d, want 422 with %q\n%s", bad, p.status, bad.want, p.body)
		}
	}
	groupID := func(title string) string {
		m := regexp.MustCompile(`id="group(\d+)">` + title + ` `).FindStringSubmatch(b.get(s.base + acct + "/tags").body)
		if m == nil {
			t.Fatalf("no group %s", title)
		}
		return m[1]
	}
	addTag := func(group, kind, title string) {
		t.Helper()
		b.submit(s.base, b.get(s.base+acct+"/tags"), acct+"/tags", url.Values{"group": {group}, "kind": {kind}, "title": {title}}).location(t)
	}
	stage := groupID("Stage")
	addTag(stage, "task", "Doing")
	addTag(stage, "task", "Review")
	addTag(groupID("Topics"), "task", "UX")
	addTag(groupID("Client"), "project", "ACME")

	_, p := apiCall(t, s.accountURL(), s.key, "action=post_project&title=Site")
	pid := p["data"].(map[string]any)["id"].(string)
	_, tk := apiCall(t, s.accountURL(), s.key, "action=post_task&id_project="+pid+"&title=Logo")
	tid := tk["data"].(map[string]any)["id"].(string)
	tagIDs := map[string]string{}
	_, all := apiCall(t, s.accountURL(), s.key, "action=get_task_tags")
	for _, x := range all["data"].([]any) {
		tagIDs[x.(map[string]any)["title"].(string)] = x.(map[string]any)["id"].(string)
	}

	// The task page's form sets the whole set: a status and a label.
	taskURL := s.base + acct + "/project/" + pid + "/" + tid + "/"
	b.submit(s.base, b.get(taskURL), acct+"/tasks/"+tid+"/tags", url.Values{"tag": {tagIDs["Doing"], tagIDs["UX"]}}).location(t)
	apiTags := func() map[string]any {
		_, r := apiCall(t, s.accountURL(), s.key, "action=get_task&id_task="+tid)
		m, _ := r["data"].(map[string]any)["tags"].(map[string]any)
		return m
	}
	if got := apiTags(); len(got) != 2 || got[tagIDs["Doing"]] != "Doing" || got[tagIDs["UX"]] != "UX" {
		t.Fatalf("tags after the task form: %v", got)
	}
	page := b.get(taskURL)
	if !strings.Contains(page.body, `<option value="`+tagIDs["Doing"]+`" selected>Doing</option>`) || !strings.Contains(page.body, `value="`+tagIDs["UX"]+`" checked`) {
		t.Fatalf("the form does not show the task's tags:\n%s", page.body)
	}
	if bad := b.submit(s.base, page, acct+"/tasks/"+tid+"/tags", url.Values{"tag": {"999999"}}); bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, "There is no such tag") {
		t.Fatalf("an unknown tag: %d\n%s", bad.status, bad.body)
	}
	b.submit(s.base, page, acct+"/tasks/"+tid+"/tags", url.Values{"tag": {""}}).location(t)
	if got := apiTags(); len(got) != 0 {
		t.Fatalf("clearing the form left %v", got)
	}

	// The board: a column per status and one for none; a card moves with its form.
	board := s.base + acct + "/project/" + pid + "/board"
	bp := b.get(board)
	if !regexp.MustCompile(`(?s)No status <span class="muted">\(1\)</span>.*Logo.*Doing <span class="muted">\(0\)</span>.*Review`).MatchString(bp.body) {
		t.Fatalf("board:\n%s", bp.body)
	}
	to := b.submit(s.base, bp, acct+"/tasks/"+tid+"/move", url.Values{"tag": {tagIDs["Review"]}}).location(t)
	if to.Path != acct+"/project/"+pid+"/board" || to.Query().Get("group") != stage {
		t.Fatalf("a move returns to %s", to)
	}
	if got := apiTags(); len(got) != 1 || got[tagIDs["Review"]] != "Review" {
		t.Fatalf("tags after a move: %v", got)
	}
	if bp := b.get(board); !regexp.MustCompile(`(?s)Review <span class="muted">\(1\)</span>.*Logo`).MatchString(bp.body) {
		t.Fatalf("board after the move:\n%s", bp.body)
	}
	if bad := b.submit(s.base, b.get(board), acct+"/tasks/"+tid+"/move", url.Values{"tag": {tagIDs["UX"]}}); bad.status != http.StatusUnprocessableEntity {
		t.Fatalf("a move to a label: %d", bad.status)
	}
	b.submit(s.base, b.get(board), acct+"/tasks/"+tid+"/move", url.Values{"tag": {""}}).location(t)
	if got := apiTags(); len(got) != 0 {
		t.Fatalf("a move to no status left %v", got)
	}
	_, events := apiCall(t, s.accountURL(), s.key, "action=get_events&period=1d")
	body, _ := json.Marshal(events)
	if n := strings.Count(string(body), `"tags"`); n < 4 {
		t.Errorf("%d update_task events carry tags, want one per change", n)
	}

	// Project tags.
	projURL := s.base + acct + "/project/" + pid + "/"
	_, ptags := apiCall(t, s.accountURL(), s.key, "action=get_project_tags")
	acme := ptags["data"].([]any)[0].(map[string]any)["id"].(string)
	b.submit(s.base, b.get(projURL), acct+"/project/"+pid+"/tags", url.Values{"tag": {acme}}).location(t)
	if _, r := apiCall(t, s.accountURL(), s.key, "action=get_project&id_project="+pid); r["data"].(map[string]any)["tags"].(map[string]any)[acme] != "ACME" {
		t.Fatalf("project tags: %v", r)
	}

	// Readers see the board and the tags but no forms, and cannot move.
	s.addMember(s.slug, "reader@acme.example", "Rita", "Reader", taskd.RoleReader)
	apiCall(t, s.accountURL(), s.key, "action=add_project_members&id_project="+pid+"&members=reader@acme.example")
	r := s.signedIn("reader@acme.example")
	if rp := r.get(board); rp.status != 200 || strings.Contains(rp.body, "/move") || !strings.Contains(rp.body, "Logo") {
		t.Fatalf("reader's board: %d\n%s", rp.status, rp.body)
	}
	if rt := r.get(s.base + acct + "/tags"); strings.Contains(rt.body, "<form method=\"post\" action=\""+acct+"/tags") {
		t.Fatal("a reader sees the tag forms")
	}
	if rp := r.get(taskURL); strings.Contains(rp.body, "/tasks/"+tid+"/tags") || !strings.Contains(rp.body, "Logo") {
		t.Fatal("a reader sees the task's tag form")
	}
	form := url.Values{"csrf": r.get(board).form(t, "", "")["csrf"], "group": {stage}, "tag": {tagIDs["Doing"]}}
	if code := r.post(s.base+acct+"/tasks/"+tid+"/move", form).status; code != http.StatusForbidden && code != http.StatusNotFound {
		t.Fatalf("a reader's move: %d", code)
	}
}
