package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestContactPageRefusesLoneBreaks: the contacts page's fields are one
// line each (testing.md): a lone CR and a lone LF are refused, as is the
// CR LF pair, and no contact is stored; the page is the only check on
// that path.
func TestContactPageRefusesLoneBreaks(t *testing.T) {
	s := testsite.New(t)
	acct := "/a/" + s.Slug
	o := s.SignedIn(testsite.OwnerEmail)
	contacts := func() string {
		b, _ := json.Marshal(s.APIOK("action=get_contacts"))
		return string(b)
	}
	for _, field := range []string{"first_name", "folder"} {
		for _, br := range []string{"\r", "\n"} {
			email := "break-" + field + map[string]string{"\r": "-cr", "\n": "-lf"}[br] + "@supplier.example"
			page := o.Get(s.Base + acct + "/contacts")
			set := url.Values{"email": {email}, "first_name": {"Ann"}, "folder": {"Suppliers"}}
			set.Set(field, "Ann"+br+"Other")
			p := o.Submit(s.Base, page, acct+"/contacts", set)
			if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "one line") {
				t.Errorf("%s with a lone %q: HTTP %d, want 422 and the form with its error\n%s", field, br, p.Status, p.Body)
			}
			if got := contacts(); strings.Contains(got, email) {
				t.Errorf("%s with a lone %q: the contact was stored: %s", field, br, got)
			}
		}
	}
	// The control: the same form with one-line values is taken.
	page := o.Get(s.Base + acct + "/contacts")
	o.Submit(s.Base, page, acct+"/contacts", url.Values{"email": {"ann@supplier.example"}, "first_name": {"Ann"}, "folder": {"Suppliers"}}).Location(t)
	if got := contacts(); !strings.Contains(got, "ann@supplier.example") {
		t.Fatalf("a one-line contact was not stored: %s", got)
	}
}
