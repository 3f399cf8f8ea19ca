package api_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
)

// TestOneLineParametersRefuseEachBreak: the parameters the API keeps on one
// line (a contact's name, title and group; a user's title; a project's
// folder) refuse a lone CR and a lone LF, not only the pair, as an invalid
// value (code 11).
func TestOneLineParametersRefuseEachBreak(t *testing.T) {
	t.Parallel()
	a := newServer(t, testdb.New(t, "sqlite")).newAccount(t)
	for _, c := range []struct{ field, value string }{
		{"add_contact/name", "Ann{}Lee"},
		{"add_contact/title", "Head{}of sales"},
		{"add_contact/group", "Key{}clients"},
		{"add_contact_group/title", "Key{}clients"},
		{"add_user_group/title", "Key{}clients"},
		{"add_user/title", "Head{}of sales"},
		{"post_project/company", "Big{}Client"},
	} {
		for name, br := range map[string]string{"CR": "\r", "LF": "\n"} {
			t.Run(c.field+"/"+name, func(t *testing.T) {
				r := a.call(oneLineCall(c.field, replace(c.value, br))...)
				if r.code() != int(api.CodeInvalidValue) {
					t.Fatalf("%q: %v, want code %d", replace(c.value, br), r, api.CodeInvalidValue)
				}
			})
		}
	}
}

// calls numbers the addresses of oneLineCall.
var calls atomic.Int64

// oneLineCall is the parameters of a call of action/field with the value
// in field and every other required parameter on one line.
func oneLineCall(actionField, value string) []string {
	action, field, _ := strings.Cut(actionField, "/")
	p := map[string]string{"action": action}
	switch action {
	case "add_contact":
		p["email"], p["name"] = fmt.Sprintf("contact%d@example.com", calls.Add(1)), "Ann Lee"
	case "add_user":
		p["email"] = fmt.Sprintf("invitee%d@example.com", calls.Add(1))
	case "post_project":
		p["title"] = "Launch"
	}
	p[field] = value
	var out []string
	for k, v := range p {
		out = append(out, k, v)
	}
	return out
}

// replace puts br where the value has {}.
func replace(value, br string) string { return strings.ReplaceAll(value, "{}", br) }
