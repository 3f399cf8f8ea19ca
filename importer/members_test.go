package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/testsite"
)

// membersOf are the account's members whole by e-mail: role, team and
// names first, then the rest (profile, department, rate, password).
func membersOf(t *testing.T, d *testsite.Site, accountID int64, emails ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range emails {
		m, err := d.Store.MemberByEmail(context.Background(), accountID, e)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m)
		out[e] = fmt.Sprintf("%s on %q, %s %s; %s", m.Role, m.Team, m.FirstName, m.LastName, b)
	}
	return out
}

// TestImportKeepsMembersAsTheyWere: the source has the destination's
// owner and a member as its admins, under other names, on its team
// "Takeover". After the import, and after a second run, both are exactly
// as they were (role, team, names, profile); the report says why they were
// not put on the team; the source's owner, made a member by the import,
// is put on it. (Before issue 46 the import moved both onto "Takeover".)
func TestImportKeepsMembersAsTheyWere(t *testing.T) {
	t.Parallel()
	client := hostileSource(t)
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		acct, _, _ := home(t, d, "home")
		dst := importer.Dest{Account: acct, Store: d.Store}
		before := membersOf(t, d, acct.ID, dora, edna)
		for _, round := range []string{"the import", "a second run"} {
			sum, err := importer.Run(ctx, client, dst, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "Dora and Edna after "+round, membersOf(t, d, acct.ID, dora, edna), before)
			var kept []string
			for _, s := range sum.Skipped {
				if s.Family == importer.FamilyTeams && strings.Contains(s.Reason, "was a member here before the import") {
					kept = append(kept, strings.Fields(s.Reason)[0])
				}
			}
			slices.Sort(kept)
			eq(t, "reported as kept off Takeover after "+round, kept, []string{dora, edna})
		}
		m, err := d.Store.MemberByEmail(ctx, acct.ID, boss)
		if err != nil || m.Team != "Takeover" {
			t.Errorf("the source's owner, made a member: on the team %q (%v), want Takeover", m.Team, err)
		}
	})
}
