package people

import (
	"testing"

	"github.com/taskd/taskd"
)

// TestInvitationFieldsRefuseEachBreak: an invitation's names, title, team
// and department are one line each: a lone CR, a lone LF and the pair are
// refused, naming the field.
func TestInvitationFieldsRefuseEachBreak(t *testing.T) {
	fields := map[string]func(*Invitation, string){
		"first_name": func(in *Invitation, v string) { in.FirstName = v },
		"last_name":  func(in *Invitation, v string) { in.LastName = v },
		"title":      func(in *Invitation, v string) { in.Title = v },
		"group":      func(in *Invitation, v string) { in.Team = v },
		"department": func(in *Invitation, v string) { in.Department = v },
	}
	for field, set := range fields {
		in := Invitation{Email: "ann@example.com", Role: taskd.RoleUser}
		set(&in, "Sales and Marketing")
		if err := in.Check(); err != nil {
			t.Fatalf("%s on one line: %v", field, err)
		}
		for name, br := range map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n"} {
			set(&in, "Sales"+br+"Marketing")
			if err := in.Check(); taskd.ErrorKind(err) != taskd.KindInvalid || taskd.AsError(err).Field != field {
				t.Errorf("%s with a %s inside: %v, want it refused naming the field", field, name, err)
			}
		}
	}
}
