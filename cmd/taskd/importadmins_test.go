package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestImportAdminsFlag: "taskd import" brings the source's owner and
// admins in as users unless --admins names them. --admins naming someone
// who is not an owner or admin of the source is refused before the account
// is made; the dry run and the summary (text and JSON) list every person
// made or invited with their role, and say which owners or admins of the
// source arrive as users, in lines of at most 80 columns. (Before issue 46
// there was no --admins, and the source's owner and admins arrived as
// admins without a word.)
func TestImportAdminsFlag(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			src := testsite.New(t) // Olga (owner@acme.example) owns it, Uma (user@acme.example) a user
			const adam, gus = "adam@acme.example", "gus@acme.example"
			src.AddMember(src.Slug, adam, "Adam", "Admin", taskd.RoleAdmin)
			src.AddMember(src.Slug, gus, "Gus", "Guest", taskd.RoleGuest)
			from := []string{"--from", src.AccountURL()}
			db := openStore(t, st)

			for _, tc := range []struct{ admins, says string }{
				{"nobody@acme.example", "nobody@acme.example is not in the source"},
				{adam + ", " + testsite.UserEmail, testsite.UserEmail + " is a user there"},
				{"not an address", `"not an address" is not an e-mail address`},
			} {
				_, errOut, err := importCLI(st, src.Key, append(from, "--account", "fresh", "--owner-email", "fresh@example.com", "--admins", tc.admins)...)
				if err == nil || !strings.Contains(err.Error(), "--admins") || !strings.Contains(err.Error(), tc.says) {
					t.Errorf("--admins %q: %v (%s), want it refused: %s", tc.admins, err, errOut, tc.says)
				}
			}
			if _, err := db.AccountBySlug(ctx, "fresh"); !taskd.IsNotFound(err) {
				t.Errorf("a refused --admins made the account: %v", err)
			}

			cliJSON(t, st, "account", "create", "--slug", "moved", "--owner-email", "dest.owner@example.com", "--owner-password", password)
			into := append(from, "--account", "moved", "--admins", strings.ToUpper(adam))
			out, errOut, err := importCLI(st, src.Key, append(into, "--dry-run")...)
			if err != nil {
				t.Fatalf("dry run: %v\n%s", err, errOut)
			}
			for _, line := range []string{
				"people the import would make members or invite, with their roles here:",
				"  made     user    " + testsite.OwnerEmail + "  (owner there)",
				"  made     user    " + testsite.UserEmail + "\n",
				"  made     admin   " + adam + "\n",
				"  made     guest   " + gus + "\n",
				"1 owner or admin of the source (marked \"there\") would arrive as a user:",
			} {
				if !strings.Contains(out, line) {
					t.Errorf("the dry run does not say %q:\n%s", line, out)
				}
			}
			// The counts and the people, below the line naming the source.
			_, counts, _ := strings.Cut(out, "\n")
			counts, _, _ = strings.Cut(counts, "skipped:")
			for l := range strings.SplitSeq(counts, "\n") {
				if len([]rune(l)) > 80 {
					t.Errorf("a line of the summary longer than 80 columns: %q", l)
				}
			}
			acct, err := db.AccountBySlug(ctx, "moved")
			if err != nil {
				t.Fatal(err)
			}
			if ms, err := db.Members(ctx, acct.ID); err != nil || len(ms) != 1 {
				t.Fatalf("members after the dry run: %+v %v", ms, err)
			}

			out, errOut, err = importCLI(st, src.Key, append(into, "--json")...)
			if err != nil {
				t.Fatalf("import: %v\n%s", err, errOut)
			}
			// The JSON's names, as a script reads them.
			var sum struct {
				People []struct {
					Email, How, Role string
					SourceRole       string `json:"source_role"`
					Demoted          bool
				}
			}
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			listed := map[string]string{}
			for _, p := range sum.People {
				listed[p.Email] = p.How + " " + p.Role + " " + p.SourceRole
				if p.Demoted {
					listed[p.Email] += " demoted"
				}
			}
			want := map[string]string{testsite.OwnerEmail: "made user owner demoted", testsite.UserEmail: "made user user",
				adam: "made admin admin", gus: "made guest guest"}
			for e, w := range want {
				if listed[e] != w {
					t.Errorf("the summary's %s: %q, want %q (%+v)", e, listed[e], w, sum.People)
				}
			}
			roles := map[string]taskd.Role{}
			ms, err := db.Members(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				roles[m.Email] = m.Role
			}
			for e, r := range map[string]taskd.Role{"dest.owner@example.com": taskd.RoleOwner, testsite.OwnerEmail: taskd.RoleUser,
				testsite.UserEmail: taskd.RoleUser, adam: taskd.RoleAdmin, gus: taskd.RoleGuest} {
				if roles[e] != r {
					t.Errorf("%s is %q here, want %q", e, roles[e], r)
				}
			}

			// Once more, as text: nobody is made, and no list is printed.
			out, errOut, err = importCLI(st, src.Key, into...)
			if err != nil || strings.Contains(out, "people made members") {
				t.Errorf("the second run: %v\n%s%s", err, out, errOut)
			}
		})
	}
}
