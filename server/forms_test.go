package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd/web"
	"github.com/taskd/taskd/webhook"
)

var pathValueRE = regexp.MustCompile(`\{[a-z]+\}`)

// TestEveryFormNeedsItsToken walks every POST route the pages register and
// sends it, signed in, without the form token, with another browser's
// token, and with a good token from another site: each is refused before
// anything happens. A route added without s.form fails here.
func TestEveryFormNeedsItsToken(t *testing.T) {
	s := newSite(t)
	pages, err := web.New(web.Config{Store: s.setup, Hooks: webhook.NewService(s.setup, s.sealer, nil, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	owner := s.signedIn(ownerEmail)
	good := owner.get(s.base+"/login").form(t, "", "").Get("csrf")
	foreign := s.browser().get(s.base+"/login").form(t, "", "").Get("csrf")
	if good == "" || foreign == "" || good == foreign {
		t.Fatalf("form tokens %q and %q", good, foreign)
	}
	posts := 0
	for _, pattern := range pages.Patterns() {
		path, ok := strings.CutPrefix(pattern, "POST ")
		if !ok {
			continue
		}
		posts++
		path = strings.ReplaceAll(path, "{slug}", s.slug)
		path = pathValueRE.ReplaceAllString(path, "1")
		for name, form := range map[string]url.Values{
			"no token":              {"title": {"x"}},
			"another browser's one": {"title": {"x"}, "csrf": {foreign}},
			"an empty one":          {"title": {"x"}, "csrf": {""}},
		} {
			if p := owner.post(s.base+path, form); p.status != http.StatusForbidden || !strings.Contains(p.body, "The form has expired") {
				t.Errorf("POST %s with %s: HTTP %d", path, name, p.status)
			}
		}
		req, _ := http.NewRequest("POST", s.base+path, strings.NewReader(url.Values{"csrf": {good}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := owner.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s from another site: HTTP %d", path, res.StatusCode)
		}
	}
	if posts < 20 {
		t.Fatalf("only %d POST routes found", posts)
	}
	// Nothing those requests named was changed: the account still works
	// with its key, and the owner is still signed in.
	if status, _ := apiCall(t, s.accountURL(), s.key, "action=get_projects"); status != 200 {
		t.Fatalf("the account key after the refused forms: %d", status)
	}
	if p := owner.get(s.base + "/a/" + s.slug + "/"); p.status != http.StatusOK {
		t.Fatalf("the owner after the refused forms: %d", p.status)
	}
}
