package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestThreeLevelsInPages: the pages show task / subtask / sub-subtask
// (spec §2.1, C6). A task's page lists each subtask with its own under it;
// a subtask's page shows its parent in the breadcrumb and a form that
// makes a sub-subtask; a sub-subtask's page shows both levels above it and
// no such form; the project page, My tasks and the board nest or name the
// parent as they do for subtasks; completing and deleting come back to the
// page the row was on.
func TestThreeLevelsInPages(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	b := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	pid := s.APIID("action=post_project&title=Levels")
	top := s.APIID("action=post_task&id_project=" + pid + "&title=Plan")
	sub := s.APIID("action=post_task&id_project=" + pid + "&id_parent=" + top + "&title=Outline")
	sub2 := s.APIID("action=post_task&id_project=" + pid + "&id_parent=" + top + "&title=Budget")
	leaf := s.APIID("action=post_task&id_project=" + pid + "&id_parent=" + sub + "&title=Intro&email_user_to=" + url.QueryEscape(testsite.OwnerEmail))
	s.APIID("action=post_task&id_project=" + pid + "&title=Later")
	projPath := acct + "/project/" + pid + "/"
	topPath, subPath, leafPath := projPath+top+"/", projPath+top+"/"+sub+"/", projPath+sub+"/"+leaf+"/"
	get := func(t *testing.T, path string) testsite.Page {
		t.Helper()
		p := b.In(t).Get(s.Base + path)
		if p.Status != http.StatusOK {
			t.Fatalf("%s: HTTP %d\n%s", path, p.Status, p.Body)
		}
		return p
	}
	rowClass := func(p testsite.Page, id string) string {
		m := regexp.MustCompile(`<li id="task` + id + `" class="([^"]*)"`).FindStringSubmatch(p.Body)
		if m == nil {
			return ""
		}
		return m[1]
	}

	t.Run("a task's page lists each subtask with its own under it", func(t *testing.T) {
		p := get(t, topPath)
		if got := rowNames(p); !slices.Equal(got, []string{"Outline", "Intro", "Budget"}) {
			t.Fatalf("subtask rows %q\n%s", got, p.Body)
		}
		if rowClass(p, leaf) != "task active sub" || rowClass(p, sub) != "task active" {
			t.Errorf("rows: the sub-subtask %q, the subtask %q", rowClass(p, leaf), rowClass(p, sub))
		}
		if p.Form(t, "id_parent", top) == nil || !strings.Contains(p.Body, `<a href="`+projPath+`">Levels</a></p>`) {
			t.Errorf("a task's page: no subtask form or a breadcrumb beyond its project:\n%s", p.Body)
		}
	})

	t.Run("a subtask's page shows its parent and makes sub-subtasks", func(t *testing.T) {
		p := get(t, subPath)
		if !strings.Contains(p.Body, `<a href="`+projPath+`">Levels</a> › <a href="`+topPath+`">Plan</a></p>`) {
			t.Errorf("breadcrumb:\n%s", p.Body)
		}
		if got := rowNames(p); !slices.Equal(got, []string{"Intro"}) || rowClass(p, leaf) != "task active" {
			t.Errorf("sub-subtask rows %q (%q)", got, rowClass(p, leaf))
		}
		to := b.Submit(s.Base, p, acct+"/project/"+pid+"/tasks", url.Values{"id_parent": {sub}, "title": {"Conclusion"}}).Location(t)
		if to.Path != subPath {
			t.Fatalf("a sub-subtask made on its parent's page returns to %s", to)
		}
		if got := rowNames(get(t, subPath)); !slices.Equal(got, []string{"Intro", "Conclusion"}) {
			t.Errorf("after adding one: %q", got)
		}
	})

	t.Run("a sub-subtask's page shows both levels above it and no subtask form", func(t *testing.T) {
		p := get(t, leafPath)
		if !strings.Contains(p.Body, `<a href="`+projPath+`">Levels</a> › <a href="`+topPath+`">Plan</a> › <a href="`+subPath+`">Outline</a></p>`) {
			t.Errorf("breadcrumb:\n%s", p.Body)
		}
		if strings.Contains(p.Body, "New subtask") || strings.Contains(p.Body, "<h2>Subtasks</h2>") || strings.Contains(p.Body, `name="id_parent"`) {
			t.Errorf("a sub-subtask's page offers subtasks:\n%s", p.Body)
		}
		// A form made by hand is refused, and makes nothing.
		f := p.Form(t, "", "")
		f.Set("id_parent", leaf)
		f.Set("title", "Too deep")
		if r := b.Post(s.Base+acct+"/project/"+pid+"/tasks", f); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "three levels") {
			t.Errorf("a subtask of a sub-subtask: HTTP %d\n%s", r.Status, r.Body)
		}
		if strings.Contains(get(t, projPath+"?status=all").Body, "Too deep") {
			t.Error("a subtask of a sub-subtask was made")
		}
	})

	t.Run("the project page nests three levels", func(t *testing.T) {
		p := get(t, projPath)
		if got := rowNames(p); !slices.Equal(got, []string{"Plan", "Outline", "Intro", "Conclusion", "Budget", "Later"}) {
			t.Fatalf("rows %q", got)
		}
		if rowClass(p, leaf) != "task active sub deep" || rowClass(p, sub) != "task active sub" {
			t.Errorf("rows: the sub-subtask %q, the subtask %q", rowClass(p, leaf), rowClass(p, sub))
		}
		// Shown alone, a sub-subtask names its parent.
		if alone := get(t, projPath+"?q=intro"); !strings.Contains(alone.Body, "in Outline") || rowClass(alone, leaf) != "task active" {
			t.Errorf("a sub-subtask shown alone:\n%s", alone.Body)
		}
	})

	t.Run("My tasks and the board name a sub-subtask's parent", func(t *testing.T) {
		if p := get(t, acct+"/my"); !slices.Contains(rowNames(p), "Intro") || !strings.Contains(p.Body, "in Outline") {
			t.Errorf("My tasks:\n%s", p.Body)
		}
		s.APIOK("action=add_task_tag_groups&type=status&access=public&title=Stage")
		if p := get(t, projPath+"board"); !strings.Contains(p.Body, ">Intro</a> <span class=\"context\">in Outline</span>") {
			t.Errorf("the board:\n%s", p.Body)
		}
	})

	t.Run("completing a sub-subtask on its grandparent's page returns there", func(t *testing.T) {
		to := b.Submit(s.Base, get(t, topPath), acct+"/tasks/"+leaf+"/complete", nil).Location(t)
		if to.Path != topPath || to.Fragment != "task"+leaf {
			t.Errorf("returns to %s", to)
		}
		to = b.Submit(s.Base, get(t, subPath), acct+"/tasks/"+leaf+"/reopen", nil).Location(t)
		if to.Path != subPath || to.Fragment != "task"+leaf {
			t.Errorf("reopening on its parent's page returns to %s", to)
		}
		if p := b.Submit(s.Base, get(t, topPath), acct+"/tasks/"+sub+"/complete", nil); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "Task has children") {
			t.Errorf("completing a subtask with open sub-subtasks: HTTP %d", p.Status)
		}
	})

	t.Run("deleting a sub-subtask returns to its subtask, deleting a subtask takes its own", func(t *testing.T) {
		if to := b.Submit(s.Base, get(t, leafPath), acct+"/tasks/"+leaf+"/delete", nil).Location(t); to.Path != subPath {
			t.Errorf("deleting a sub-subtask returns to %s", to)
		}
		if to := b.Submit(s.Base, get(t, subPath), acct+"/tasks/"+sub+"/delete", nil).Location(t); to.Path != topPath {
			t.Errorf("deleting a subtask returns to %s", to)
		}
		if got := rowNames(get(t, projPath+"?status=all")); !slices.Equal(got, []string{"Plan", "Budget", "Later"}) {
			t.Errorf("left: %q (subtask %s)", got, sub2)
		}
	})
}
