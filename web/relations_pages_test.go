package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestRelationsOnTaskPage (issue 35), without
// JavaScript: the task page lists "Blocked by" and "Blocks" with links,
// adds a relation from the project's list or by a task's number, refuses
// a cycle beside the form, removes one with its button; a relation with a
// task hidden from Uma is not on her page; after the task's dates move in
// its edit form, the page offers to shift its dependents, and its button
// does.
func TestRelationsOnTaskPage(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		pid := s.APIID("action=post_project&title=Relations")
		task := func(title, extra string) string {
			return s.APIID("action=post_task&id_project=" + pid + "&title=" + url.QueryEscape(title) + extra)
		}
		a := task("Alpha task", "&datestart=02.03.2030&dateend=04.03.2030")
		b := task("Bravo task", "&datestart=05.03.2030&dateend=06.03.2030")
		c := task("Charlie task", "")
		h := task("Hotel secret-rel-p4", "&hidden="+url.QueryEscape(testsite.OwnerEmail))
		base := s.Base + "/a/" + s.Slug
		page := base + "/project/" + pid + "/"
		owner := s.SignedIn(testsite.OwnerEmail)

		add := func(on string, set url.Values) testsite.Page {
			t.Helper()
			return owner.Submit(s.Base, owner.Get(page+on+"/"), "/a/"+s.Slug+"/tasks/"+on+"/relations", set)
		}
		// Alpha blocks Bravo (from the list), Charlie blocks Alpha (by number).
		if p := add(a, url.Values{"side": {"blocks"}, "task": {b}, "type": {"finish-to-start"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("adding from the list: HTTP %d\n%s", p.Status, p.Body)
		}
		if p := add(a, url.Values{"side": {"blocked_by"}, "task_id": {"#" + c}, "type": {"start-to-start"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("adding by number: HTTP %d\n%s", p.Status, p.Body)
		}
		body := owner.Get(page + a + "/").Body
		for _, want := range []string{`<h2 id="relations">Dependencies</h2>`, `>Blocked by</h3>`, `>Blocks</h3>`,
			`href="/a/` + s.Slug + `/project/` + pid + `/` + b + `/">#` + b + ` Bravo task</a>`,
			`href="/a/` + s.Slug + `/project/` + pid + `/` + c + `/">#` + c + ` Charlie task</a>`,
			`aria-label="Remove: Blocks Bravo task"`, `<label for="relation-task-id">`} {
			if !strings.Contains(body, want) {
				t.Errorf("Alpha's page lacks %s", want)
			}
		}
		// Bravo blocks Charlie would close Charlie → Alpha → Bravo → Charlie.
		p := add(b, url.Values{"side": {"blocks"}, "task": {c}, "type": {"finish-to-start"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "would make a cycle") {
			t.Errorf("a cycle: HTTP %d, want 422 with the reason", p.Status)
		}
		if p := add(b, url.Values{"side": {"blocks"}, "task_id": {"99999"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "There is no task 99999") {
			t.Errorf("an unknown number: HTTP %d, want 422 saying so\n%s", p.Status, p.Body)
		}

		// The hidden task blocks Alpha: the owner sees it, Uma does not.
		if err := s.APIOK("action=add_task_relation&id_task_from=" + h + "&id_task_to=" + a); err["status"] != "ok" {
			t.Fatalf("add_task_relation: %v", err)
		}
		if !strings.Contains(owner.Get(page+a+"/").Body, "secret-rel-p4") {
			t.Error("the owner does not see the hidden task's relation")
		}
		uma := s.SignedIn(testsite.UserEmail)
		if body := uma.Get(page + a + "/").Body; strings.Contains(body, "secret-rel-p4") || strings.Contains(body, `#`+h+` `) {
			t.Error("Uma's page shows the relation with the task hidden from her")
		}

		// Alpha moves two days later: the page offers to shift Bravo.
		edit := owner.Get(page+a+"/").Form(t, "", "")
		edit.Set("title", "Alpha task")
		edit.Set("datestart", "2030-03-04")
		edit.Set("dateend", "2030-03-06")
		to := owner.Post(base+"/tasks/"+a+"/update", edit).Location(t)
		if to.Query().Get("shift") != "2" {
			t.Fatalf("after the dates moved, the edit returns to %s, want ?shift=2", to)
		}
		offer := owner.Get(s.Base + to.String())
		if !strings.Contains(offer.Body, "Shift 1 dependent task by 2 days later too?") {
			t.Fatalf("no offer to shift the dependents:\n%s", offer.Body)
		}
		if p := owner.Submit(s.Base, offer, "/a/"+s.Slug+"/tasks/"+a+"/shift", nil); p.Status != http.StatusSeeOther {
			t.Fatalf("shift: HTTP %d\n%s", p.Status, p.Body)
		}
		got := s.APIOK("action=get_task&id_task=" + b)["data"].(map[string]any)
		if got["date_start"] != "2030-03-07" || got["date_end"] != "2030-03-08" {
			t.Errorf("Bravo after the shift: %v..%v, want 2030-03-07..2030-03-08", got["date_start"], got["date_end"])
		}
		if p := owner.Get(page + a + "/?shift=2"); !strings.Contains(p.Body, "Shift 1 dependent") {
			t.Error("the offer is not shown for ?shift=2")
		}

		// Removing Alpha → Bravo with its button.
		alpha := owner.Get(page + a + "/")
		del := alpha.Form(t, "from", a)
		if p := owner.Post(base+"/tasks/"+a+"/relations/delete", del); p.Status != http.StatusSeeOther {
			t.Fatalf("remove: HTTP %d\n%s", p.Status, p.Body)
		}
		if strings.Contains(owner.Get(page+a+"/").Body, "Bravo task</a>") {
			t.Error("Bravo is still listed after its relation was removed")
		}
	})
}

// TestRelationCycleThroughHiddenTaskOnPage (issue 47): on Alpha's page,
// Uma, from whom Hotel is hidden, makes Alpha blocked by Bravo where
// Alpha → Hotel → Bravo already: refused beside the form as a cycle, as
// the API refuses it, without naming Hotel, and nothing is added.
func TestRelationCycleThroughHiddenTaskOnPage(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pid := s.APIID("action=post_project&title=Relations")
	task := func(title, extra string) string {
		return s.APIID("action=post_task&id_project=" + pid + "&title=" + url.QueryEscape(title) + extra)
	}
	a, b := task("Alpha task", ""), task("Bravo task", "")
	h := task("Hotel secret-cycle-p5", "&hidden="+url.QueryEscape(testsite.OwnerEmail))
	for _, rel := range [][2]string{{a, h}, {h, b}} {
		if got := s.APIOK("action=add_task_relation&id_task_from=" + rel[0] + "&id_task_to=" + rel[1]); got["status"] != "ok" {
			t.Fatalf("add_task_relation %v: %v", rel, got)
		}
	}
	uma := s.SignedIn(testsite.UserEmail)
	alpha := uma.Get(s.Base + "/a/" + s.Slug + "/project/" + pid + "/" + a + "/")
	p := uma.Submit(s.Base, alpha, "/a/"+s.Slug+"/tasks/"+a+"/relations", url.Values{"side": {"blocked_by"}, "task_id": {"#" + b}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "would make a cycle") {
		t.Fatalf("Uma closing Alpha → Hotel → Bravo → Alpha: HTTP %d, want 422 with the reason\n%s", p.Status, p.Body)
	}
	if strings.Contains(p.Body, "secret-cycle") || strings.Contains(p.Body, "#"+h+" ") {
		t.Error("the refusal shows Uma the task hidden from her")
	}
	if rels := s.APIOK("action=get_task&id_task=" + a + "&extra=relations")["data"].(map[string]any)["relations"]; testsite.JSON(rels) !=
		`{"from":[],"to":[{"task":"`+h+`","type":"finish-to-start"}]}` {
		t.Errorf("Alpha's relations after the refusal: %s", testsite.JSON(rels))
	}
}
