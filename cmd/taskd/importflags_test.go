package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/mail"
)

// importCLI runs "taskd import" with the source's key in TASKD_KEY (and
// the storage's master key), returning stdout, stderr and the error.
func importCLI(st storage, key string, args ...string) (string, string, error) {
	env := func(name string) string {
		if name == "TASKD_KEY" {
			return key
		}
		return st.getenv(name)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), append(append([]string{"import"}, args...), st.where()...), env, &out, &errOut)
	return out.String(), errOut.String(), err
}

// importFamilies runs an import with --json and returns the families its
// summary counts.
func importFamilies(t *testing.T, st storage, key string, args ...string) []string {
	t.Helper()
	out, errOut, err := importCLI(st, key, append(args, "--json")...)
	if err != nil {
		t.Fatalf("import %v: %v\n%s", args, err, errOut)
	}
	var sum importer.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("import %v: %v\n%s", args, err, out)
	}
	var ran []string
	for _, c := range sum.Families {
		ran = append(ran, c.Family)
	}
	return ran
}

// TestImportFlags: --only runs the families named (one, or several in
// the import's order) and no other; a --from refused names neither the
// key given with --key nor the one in TASKD_KEY.
func TestImportFlags(t *testing.T) {
	src := testsite.New(t)
	st := storage{data: filepath.Join(t.TempDir(), "data")}
	to := []string{"--from", src.AccountURL(), "--account", "moved", "--owner-email", "new.owner@example.com"}
	for _, tc := range []struct {
		only string
		want []string
	}{
		{"people", []string{importer.FamilyPeople}},
		{"projects, tags", []string{importer.FamilyTags, importer.FamilyProjects}},
	} {
		if got := importFamilies(t, st, src.Key, append(to, "--only", tc.only)...); !slices.Equal(got, tc.want) {
			t.Errorf("--only %q ran %v, want %v", tc.only, got, tc.want)
		}
	}
	if got := importFamilies(t, st, src.Key, to...); !slices.Equal(got, importer.Families) {
		t.Errorf("without --only: %v, want every family", got)
	}

	const key = "fedcba9876543210fedcba9876543210"
	for _, from := range []string{"ftp://example.com/a/acme", "https://someone:" + key + "@example.com/a/acme", "example.com/a/acme"} {
		for _, viaFlag := range []bool{false, true} {
			args := []string{"--from", from, "--account", "moved"}
			envKey := key
			if viaFlag {
				args, envKey = append(args, "--key", key), ""
			}
			out, errOut, err := importCLI(st, envKey, args...)
			if err == nil || !strings.Contains(err.Error(), "--from") {
				t.Errorf("--from %s: %v, want it refused", from, err)
				continue
			}
			if strings.Contains(err.Error()+out+errOut, "fedcba9876543210") {
				t.Errorf("--from %s (key by flag %v): the key is printed: %v %q %q", from, viaFlag, err, out, errOut)
			}
		}
	}
}

// TestImportMailsOnlyWithInvite: without --invite an import mails nobody
// (a new person becomes a member, a known one is invited, all in
// silence); with it, someone new to this taskd is mailed the link to set
// a password at --public-url, and someone it knows the invitation.
func TestImportMailsOnlyWithInvite(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			src := testsite.New(t) // Olga (owner@acme.example) and Uma (user@acme.example)
			// Uma is registered in this taskd.
			cliJSON(t, st, "account", "create", "--slug", "uma", "--owner-email", testsite.UserEmail, "--owner-password", password)
			db := openStore(t, st)
			outbox := func() []string {
				t.Helper()
				ms, err := db.Mail(ctx, 100)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range ms {
					got = append(got, m.Kind+" "+m.To)
				}
				slices.Sort(got)
				return got
			}
			if got := outbox(); len(got) != 0 {
				t.Fatalf("mail before the import: %v", got)
			}

			// Without --invite: Olga joins, Uma is invited, no one is mailed.
			if _, errOut, err := importCLI(st, src.Key, "--from", src.AccountURL(), "--account", "quiet", "--owner-email", "quiet@example.com",
				"--only", "people"); err != nil {
				t.Fatalf("import: %v\n%s", err, errOut)
			}
			acct, err := db.AccountBySlug(ctx, "quiet")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.MemberByEmail(ctx, acct.ID, testsite.OwnerEmail); err != nil {
				t.Errorf("Olga is not a member: %v", err)
			}
			if invs, err := db.AccountInvitations(ctx, acct.ID); err != nil || len(invs) != 1 || invs[0].Person.Email != testsite.UserEmail {
				t.Errorf("invitations %+v %v, want Uma's", invs, err)
			}
			if got := outbox(); len(got) != 0 {
				t.Fatalf("mailed without --invite: %v", got)
			}

			// With --invite: Nina, new, gets the link; Olga (registered by
			// the first import) and Uma get invitations.
			const nina = "nina@new.example"
			src.AddMember(src.Slug, nina, "Nina", "New", "user")
			const public = "https://tasks.example.com"
			if _, errOut, err := importCLI(st, src.Key, "--from", src.AccountURL(), "--account", "loud", "--owner-email", "loud@example.com",
				"--only", "people", "--invite", "--public-url", public); err != nil {
				t.Fatalf("import --invite: %v\n%s", err, errOut)
			}
			want := []string{"invitation " + testsite.OwnerEmail, "invitation " + testsite.UserEmail, "reset " + nina}
			if got := outbox(); !slices.Equal(got, want) {
				t.Fatalf("mailed with --invite: %v, want %v", got, want)
			}
			ms, err := db.Mail(ctx, 100)
			if err != nil {
				t.Fatal(err)
			}
			open := &mail.Outbox{Sealer: testdb.Sealer(t)}
			for _, m := range ms {
				msg, err := open.Open(m)
				if err != nil {
					t.Fatal(err)
				}
				if link := public + map[string]string{"reset": "/reset/password", "invitation": "/join"}[m.Kind]; !strings.Contains(msg.Text, link) {
					t.Errorf("the %s mail to %s has no link %s…:\n%s", m.Kind, m.To, link, msg.Text)
				}
			}
		})
	}
}
