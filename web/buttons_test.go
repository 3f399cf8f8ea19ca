package web_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// TestActionsLookLikeButtons: every control that acts (a form's submit
// button) looks like a button, never like a link: no button carries the
// class that styled one as a link, the stylesheet has no rule that does,
// and deleting, removing and revoking buttons have the danger style. The
// pages walked hold the controls that looked like links before: archive
// and activate a project, remove someone from a team, complete a task in
// a list, redeliver a webhook event, sign out, and sign in as someone else.
func TestActionsLookLikeButtons(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	recv := testsite.OKReceiver(t)
	b := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	home := b.Get(s.Base + acct + "/")
	launch := b.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"Launch"}}).Location(t).Path
	old := b.Submit(s.Base, home, acct+"/projects", url.Values{"title": {"Old"}}).Location(t).Path
	b.Submit(s.Base, b.Get(s.Base+acct+"/"), old+"archive", nil).Location(t)
	project := b.Get(s.Base + launch)
	b.Submit(s.Base, project, launch+"members", url.Values{"email": {testsite.UserEmail}}).Location(t)
	task := b.Submit(s.Base, project, launch+"tasks", url.Values{"title": {"Write"}}).Location(t)
	taskPath := launch + strings.TrimPrefix(task.Fragment, "task") + "/"

	hooks := s.Base + acct + "/settings/webhooks"
	form := b.Get(hooks).Form(t, "", "")
	form.Set("url", recv.URL+"/in")
	form["events"] = []string{"post_comment"}
	hook := s.Base + b.Post(hooks, form).Location(t).Path
	b.Post(hook+"/enable", b.Get(hook).Form(t, "", "")).Location(t)
	b.Submit(s.Base, b.Get(s.Base+taskPath), acct+"/tasks/"+strings.TrimPrefix(task.Fragment, "task")+"/comments",
		url.Values{"text": {"Draft is up"}}).Location(t)
	deadline := time.Now().Add(30 * time.Second)
	hookPage := b.Get(hook)
	for ; !strings.Contains(hookPage.Body, "post_comment #"); hookPage = b.Get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivery in the log:\n%s", hookPage.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	pages := map[string]testsite.Page{
		"projects": b.Get(s.Base + acct + "/"), "project": b.Get(s.Base + launch), "task": b.Get(s.Base + taskPath),
		"webhook": hookPage, "account selection": b.Get(s.AuthorizeURL()),
	}
	var labels []string
	for name, p := range pages {
		if p.Status != http.StatusOK {
			t.Fatalf("%s: HTTP %d\n%s", name, p.Status, p.Body)
		}
		for _, m := range buttonRE.FindAllStringSubmatch(p.Body, -1) {
			var classes []string
			if c := classRE.FindStringSubmatch(m[1]); c != nil {
				classes = strings.Fields(c[1])
			}
			label := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(m[2], "")))
			if a := ariaLabelRE.FindStringSubmatch(m[1]); a != nil { // an icon button's name
				label = html.UnescapeString(a[1])
			}
			labels = append(labels, label)
			if slices.Contains(classes, "link") {
				t.Errorf("%s: the button %q is styled as a link: %s", name, label, m[0])
			}
			for _, verb := range []string{"Delete", "Remove", "Revoke"} {
				if strings.HasPrefix(label, verb) && !slices.Contains(classes, "danger") {
					t.Errorf("%s: the button %q is not marked as dangerous: %s", name, label, m[0])
				}
			}
		}
	}
	all := strings.Join(labels, "\n")
	for _, want := range []string{"Archive Launch", "Activate Old", "Remove Uma User from the team", "Complete Write",
		"Redeliver", "Sign out", "Sign in as someone else"} {
		if !strings.Contains(all, want) {
			t.Errorf("no button %q on the pages walked; buttons:\n%s", want, all)
		}
	}

	res, err := http.Get(s.Base + "/static/taskd.css")
	if err != nil {
		t.Fatal(err)
	}
	css, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, rule := range cssRuleRE.FindAllStringSubmatch(string(css), -1) {
		selector, decl := rule[1], strings.ReplaceAll(rule[2], " ", "")
		if strings.Contains(selector, "button") && (strings.Contains(decl, "text-decoration:underline") || strings.Contains(decl, "background:none")) {
			t.Errorf("the stylesheet makes buttons look like links: %s", rule[0])
		}
	}
}

var (
	buttonRE    = regexp.MustCompile(`(?s)<button([^>]*)>(.*?)</button>`)
	classRE     = regexp.MustCompile(`class="([^"]*)"`)
	ariaLabelRE = regexp.MustCompile(`aria-label="([^"]*)"`)
	cssRuleRE   = regexp.MustCompile(`(?s)([^{}]+)\{([^}]*)\}`)
)
