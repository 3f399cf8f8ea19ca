package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestErrorPagesKeepTheHeader: an error page speaks plainly, not in HTTP's
// words, and keeps the signed-in person's header so they can go on.
func TestErrorPagesKeepTheHeader(t *testing.T) {
	s := testsite.New(t)
	b := s.SignedIn(testsite.OwnerEmail)
	p := b.Get(s.AccountURL() + "/project/999999/")
	if p.Status != http.StatusNotFound {
		t.Fatalf("a missing project: HTTP %d", p.Status)
	}
	for _, want := range []string{"<h1>Nothing here</h1>", "There is no such project, or you cannot see it.", testsite.OwnerEmail, `action="/logout"`} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the 404 page lacks %q:\n%s", want, p.Body)
		}
	}
	if strings.Contains(p.Body, "Not Found") {
		t.Errorf("the 404 page speaks HTTP:\n%s", p.Body)
	}
	if p := s.Browser().Get(s.Base + "/nowhere"); p.Status != http.StatusNotFound || !strings.Contains(p.Body, "Nothing here") || strings.Contains(p.Body, `action="/logout"`) {
		t.Errorf("a stranger's 404: HTTP %d\n%s", p.Status, p.Body)
	}
}
