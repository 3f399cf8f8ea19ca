package server

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestActionsLookLikeButtons: every control that acts (a form's submit
// button) looks like a button, never like a link: no button carries the
// class that styled one as a link, the stylesheet has no rule that does,
// and deleting, removing and revoking buttons have the danger style. The
// pages walked hold the controls that looked like links before: archive
// and activate a project, remove someone from a team, complete a task in
// a list, redeliver a webhook event, sign out, and sign in as someone else.
func TestActionsLookLikeButtons(t *testing.T) {
	s := newSite(t)
	recv := okReceiver(t)
	b := s.signedIn(ownerEmail)
	acct := "/a/" + s.slug
	home := b.get(s.base + acct + "/")
	launch := b.submit(s.base, home, acct+"/projects", url.Values{"title": {"Launch"}}).location(t).Path
	old := b.submit(s.base, home, acct+"/projects", url.Values{"title": {"Old"}}).location(t).Path
	b.submit(s.base, b.get(s.base+acct+"/"), old+"archive", nil).location(t)
	project := b.get(s.base + launch)
	b.submit(s.base, project, launch+"members", url.Values{"email": {userEmail}}).location(t)
	task := b.submit(s.base, project, launch+"tasks", url.Values{"title": {"Write"}}).location(t)
	taskPath := launch + strings.TrimPrefix(task.Fragment, "task") + "/"

	hooks := s.base + acct + "/settings/webhooks"
	form := b.get(hooks).form(t, "", "")
	form.Set("url", recv.URL+"/in")
	form["events"] = []string{"post_comment"}
	hook := s.base + b.post(hooks, form).location(t).Path
	b.post(hook+"/enable", b.get(hook).form(t, "", "")).location(t)
	b.submit(s.base, b.get(s.base+taskPath), acct+"/tasks/"+strings.TrimPrefix(task.Fragment, "task")+"/comments",
		url.Values{"text": {"Draft is up"}}).location(t)
	deadline := time.Now().Add(30 * time.Second)
	hookPage := b.get(hook)
	for ; !strings.Contains(hookPage.body, "post_comment #"); hookPage = b.get(hook) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivery in the log:\n%s", hookPage.body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	pages := map[string]page{
		"projects": b.get(s.base + acct + "/"), "project": b.get(s.base + launch), "task": b.get(s.base + taskPath),
		"webhook": hookPage, "account selection": b.get(s.authorizeURL()),
	}
	var labels []string
	for name, p := range pages {
		if p.status != http.StatusOK {
			t.Fatalf("%s: HTTP %d\n%s", name, p.status, p.body)
		}
		for _, m := range buttonRE.FindAllStringSubmatch(p.body, -1) {
			var classes []string
			if c := classRE.FindStringSubmatch(m[1]); c != nil {
				classes = strings.Fields(c[1])
			}
			label := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(m[2], "")))
			if a := ariaLabelRE.FindStringSubmatch(m[1]); a != nil { // an icon button's name
				label = html.UnescapeString(a[1])
			}
			labels = append(labels, label)
			if contains(classes, "link") {
				t.Errorf("%s: the button %q is styled as a link: %s", name, label, m[0])
			}
			for _, verb := range []string{"Delete", "Remove", "Revoke"} {
				if strings.HasPrefix(label, verb) && !contains(classes, "danger") {
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

	res, err := http.Get(s.base + "/static/taskd.css")
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
