package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestErrorPagesKeepTheHeader: an error page speaks plainly, not in HTTP's
// words, and keeps the signed-in person's header so they can go on.
func TestErrorPagesKeepTheHeader(t *testing.T) {
	s := newSite(t)
	b := s.signedIn(ownerEmail)
	p := b.get(s.accountURL() + "/project/999999/")
	if p.status != http.StatusNotFound {
		t.Fatalf("a missing project: HTTP %d", p.status)
	}
	for _, want := range []string{"<h1>Nothing here</h1>", "There is no such project, or you cannot see it.", ownerEmail, `action="/logout"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the 404 page lacks %q:\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, "Not Found") {
		t.Errorf("the 404 page speaks HTTP:\n%s", p.body)
	}
	if p := s.browser().get(s.base + "/nowhere"); p.status != http.StatusNotFound || !strings.Contains(p.body, "Nothing here") || strings.Contains(p.body, `action="/logout"`) {
		t.Errorf("a stranger's 404: HTTP %d\n%s", p.status, p.body)
	}
}
