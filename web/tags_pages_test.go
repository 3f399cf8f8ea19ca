package web_test

import (
	"encoding/json"
	"fmt"
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
	t.Parallel()
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

// TestTagsChangedInPages: the tags page splits a comma list as the API
// does, moves tags and groups up and down with plain forms (the board's
// columns follow), renames them, and deletes a status in use only once
// the form says what becomes of its tasks, showing how many carry it;
// guests see no such forms and are refused them; the project page links
// to the board at its one address.
func TestTagsChangedInPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	tagsURL := s.Base + acct + "/tags"
	b := s.SignedIn(testsite.OwnerEmail)
	// apiTitles lists the titles of the task tags or groups through the API.
	apiTitles := func(t *testing.T, action string) string {
		t.Helper()
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action="+action)
		var out []string
		for _, x := range r["data"].([]any) {
			out = append(out, x.(map[string]any)["title"].(string))
		}
		return strings.Join(out, ",")
	}
	tagID := map[string]string{}
	readIDs := func(t *testing.T) {
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_tags")
		for _, x := range r["data"].([]any) {
			tagID[x.(map[string]any)["title"].(string)] = x.(map[string]any)["id"].(string)
		}
	}
	// post sends a form of the tags page with its CSRF token.
	post := func(t *testing.T, b *testsite.Browser, path string, form url.Values) testsite.Page {
		t.Helper()
		form.Set("csrf", b.Get(tagsURL).Form(t, "", "").Get("csrf"))
		return b.Post(s.Base+acct+path, form)
	}
	var stage, pid string
	var tids []string

	if !t.Run("a comma list makes a group or a tag each, as the API does", func(t *testing.T) {
		b := b.In(t)
		post(t, b, "/tags/groups", url.Values{"kind": {"task"}, "title": {"Stage, Kind,"}, "type": {"status"}, "access": {"public"}}).Location(t)
		if got := apiTitles(t, "get_task_tag_groups"); got != "Stage,Kind" {
			t.Fatalf("groups = %s", got)
		}
		_, g := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_tag_groups")
		stage = testsite.JSONNumber(g["data"].([]any)[0].(map[string]any)["id"])
		post(t, b, "/tags", url.Values{"kind": {"task"}, "group": {stage}, "title": {"To do, Doing,Review , Done, Doing"}}).Location(t)
		if got := apiTitles(t, "get_task_tags&group=Stage"); got != "To do,Doing,Review,Done" {
			t.Fatalf("tags = %s, want the four of the list in its order", got)
		}
		readIDs(t)
		if p := post(t, b, "/tags", url.Values{"kind": {"task"}, "group": {stage}, "title": {" , "}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Name is required") {
			t.Fatalf("an empty list: %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	if !t.Run("the project page links to the board at its address", func(t *testing.T) {
		b := b.In(t)
		pid = s.APIID("action=post_project&title=Site")
		for _, tc := range [][2]string{{"One", "Doing"}, {"Two", "Doing"}, {"Three", "Review"}} {
			tid := s.APIID("action=post_task&id_project=" + pid + "&title=" + tc[0] + "&tags=" + tc[1])
			tids = append(tids, tid)
		}
		page := b.Get(s.Base + acct + "/project/" + pid + "/")
		want := `<a class="aside" href="` + acct + `/project/` + pid + `/board">Board</a>`
		if !strings.Contains(page.Body, want) {
			t.Fatalf("the project page has no %s:\n%s", want, page.Body)
		}
		if bp := b.Get(s.Base + acct + "/project/" + pid + "/board"); bp.Status != http.StatusOK {
			t.Fatalf("the board: %d", bp.Status)
		}
	}) {
		return
	}

	if !t.Run("move buttons send the order with two neighbours swapped, and the board follows", func(t *testing.T) {
		b := b.In(t)
		page := b.Get(tagsURL)
		order := func(label string) string {
			t.Helper()
			m := regexp.MustCompile(`name="order" value="([^"]*)"><button[^>]*aria-label="` + label + `"`).FindStringSubmatch(page.Body)
			if m == nil {
				t.Fatalf("no button %q on the tags page:\n%s", label, page.Body)
			}
			return m[1]
		}
		if strings.Contains(page.Body, `aria-label="Move To do up"`) || strings.Contains(page.Body, `aria-label="Move Done down"`) {
			t.Fatal("the first tag moves up or the last down")
		}
		up := order("Move Review up")
		if want := strings.Join([]string{tagID["To do"], tagID["Review"], tagID["Doing"], tagID["Done"]}, ","); up != want {
			t.Fatalf("Move Review up sends %s, want %s", up, want)
		}
		post(t, b, "/tags/sort", url.Values{"kind": {"task"}, "group": {stage}, "order": {up}}).Location(t)
		if got := apiTitles(t, "get_task_tags&group=Stage"); got != "To do,Review,Doing,Done" {
			t.Fatalf("after Move Review up: %s", got)
		}
		if bp := b.Get(s.Base + acct + "/project/" + pid + "/board"); !regexp.MustCompile(`(?s)No status.*To do.*Review.*Doing.*Done`).MatchString(bp.Body) {
			t.Fatalf("the board's columns do not follow:\n%s", bp.Body)
		}
		post(t, b, "/tags/sort", url.Values{"kind": {"task"}, "order": {order("Move the group Stage down")}}).Location(t)
		if got := apiTitles(t, "get_task_tag_groups"); got != "Kind,Stage" {
			t.Fatalf("after moving the group down: %s", got)
		}
		if p := post(t, b, "/tags/sort", url.Values{"kind": {"task"}, "group": {stage}, "order": {"99999999"}}); p.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.Body, "No tag of Stage has this id or title") {
			t.Fatalf("an order of nothing: %d\n%s", p.Status, p.Body)
		}
	}) {
		return
	}

	if !t.Run("a tag and a group are renamed", func(t *testing.T) {
		b := b.In(t)
		post(t, b, "/tags/"+tagID["Doing"]+"/update", url.Values{"title": {"In progress"}}).Location(t)
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tids[0])
		if tg := r["data"].(map[string]any)["tags"].(map[string]any); tg[tagID["Doing"]] != "In progress" {
			t.Fatalf("the task's tags after the rename: %v", tg)
		}
		p := post(t, b, "/tags/"+tagID["Doing"]+"/update", url.Values{"title": {"Review"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Stage already has a tag named Review") ||
			!strings.Contains(p.Body, `<details class="tag-edit" open>`) {
			t.Fatalf("a rename to a title the group has: %d\n%s", p.Status, p.Body)
		}
		post(t, b, "/tags/groups/"+stage+"/update", url.Values{"title": {"Phase"}}).Location(t)
		if got := apiTitles(t, "get_task_tag_groups"); got != "Kind,Phase" {
			t.Fatalf("groups after the rename: %s", got)
		}
	}) {
		return
	}

	if !t.Run("a status in use is deleted once the form says where its tasks go", func(t *testing.T) {
		b := b.In(t)
		page := b.Get(tagsURL)
		for _, want := range []string{"2 tasks have this status", `<option value="` + tagID["Review"] + `">move to Review</option>`,
			`<option value="none">lose the status</option>`, "Delete In progress"} {
			if !strings.Contains(page.Body, want) {
				t.Fatalf("the tags page does not show %q:\n%s", want, page.Body)
			}
		}
		p := post(t, b, "/tags/"+tagID["Doing"]+"/delete", url.Values{})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "2 tasks have the status In progress") {
			t.Fatalf("a deletion without a choice: %d\n%s", p.Status, p.Body)
		}
		post(t, b, "/tags/"+tagID["Doing"]+"/delete", url.Values{"move_to": {tagID["Review"]}}).Location(t)
		for _, tid := range tids[:2] {
			_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tid)
			if tg := r["data"].(map[string]any)["tags"].(map[string]any); len(tg) != 1 || tg[tagID["Review"]] != "Review" {
				t.Fatalf("task %s after the move: %v", tid, tg)
			}
		}
		_, events := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_events&period=1d")
		moved := 0
		for _, e := range events["data"].([]any) {
			e := e.(map[string]any)
			if e["event"] == "update_task" && strings.Contains(fmt.Sprint(e["old"]), "In progress") {
				moved++
			}
		}
		if moved != 2 {
			t.Errorf("%d update_task events for the 2 tasks moved", moved)
		}
		post(t, b, "/tags/"+tagID["Review"]+"/delete", url.Values{"move_to": {"none"}}).Location(t)
		if got := apiTitles(t, "get_task_tags&group=Phase"); got != "To do,Done" {
			t.Fatalf("tags left: %s", got)
		}
		post(t, b, "/tags/groups/"+stage+"/delete", url.Values{}).Location(t)
		if got := apiTitles(t, "get_task_tag_groups"); got != "Kind" {
			t.Fatalf("groups after the deletion: %s", got)
		}
	}) {
		return
	}

	t.Run("guests may add tags but see no forms to change them, and are refused", func(t *testing.T) {
		s := s.In(t)
		s.AddMember(s.Slug, "guest@acme.example", "Gia", "Guest", taskd.RoleGuest)
		g := s.SignedIn("guest@acme.example")
		page := g.Get(tagsURL)
		if page.Status != http.StatusOK || strings.Contains(page.Body, "/tags/sort") || strings.Contains(page.Body, "/update") ||
			strings.Contains(page.Body, "/delete") || !strings.Contains(page.Body, "Add tags") {
			t.Fatalf("a guest's tags page: %d\n%s", page.Status, page.Body)
		}
		_, r := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_tag_groups")
		kind := testsite.JSONNumber(r["data"].([]any)[0].(map[string]any)["id"])
		if p := post(t, g, "/tags/groups/"+kind+"/update", url.Values{"title": {"Mine"}}); p.Status != http.StatusForbidden {
			t.Fatalf("a guest's rename: %d", p.Status)
		}
		if got := apiTitles(t, "get_task_tag_groups"); got != "Kind" {
			t.Fatalf("a guest renamed the group: %s", got)
		}
	})
}
