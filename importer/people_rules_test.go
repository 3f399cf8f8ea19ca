package importer_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
)

// The people of the source of TestImportPeopleRules.
const (
	sofia = "sofia@source.example" // the source's owner, new here
	adam  = "adam@source.example"  // an admin there, new here
	gina  = "gina@source.example"  // a user there, a guest here
	rita  = "rita@source.example"  // a user there, a reader here
	ivan  = "ivan@source.example"  // a user there, registered here in another account
	gus   = "gus@source.example"   // a guest there, new here
)

// rolesSource is a small source account (its history three days old):
// its owner, an admin, three users and a guest; a project with a task by
// Gina assigned to Ivan (who follows it) and with a comment each by Gina
// and Rita, a task by Rita, and a task Sofia assigned to Adam, who
// comments, and Gina follows.
func rolesSource(t *testing.T) *source.Client {
	t.Helper()
	src := testsite.New(t)
	src.Clock.Advance(-72 * time.Hour)
	s := src.In(t)
	s.Slug = "roles-src"
	s.Key = src.CreateAccount(s.Slug, "Roles", sofia, "Sofia", "Source")
	for email, role := range map[string]taskd.Role{adam: taskd.RoleAdmin, gina: taskd.RoleUser, rita: taskd.RoleUser,
		ivan: taskd.RoleUser, gus: taskd.RoleGuest} {
		src.AddMember(s.Slug, email, email[:1], "Source", role)
	}
	pid := s.APIID(q("action", "post_project", "title", "Roles", "members", gina+","+rita+","+ivan+","+gus))
	byGina := s.APIID(q("action", "post_task", "id_project", pid, "title", "By Gina", "email_user_from", gina, "email_user_to", ivan,
		"subscribe", ivan))
	s.APIOK(q("action", "post_comment", "id_task", byGina, "text", "Gina's note", "email_user_from", gina))
	s.APIOK(q("action", "post_comment", "id_task", byGina, "text", "Rita's note", "email_user_from", rita))
	s.APIID(q("action", "post_task", "id_project", pid, "title", "By Rita", "email_user_from", rita))
	forAdam := s.APIID(q("action", "post_task", "id_project", pid, "title", "For Adam", "email_user_from", sofia, "email_user_to", adam,
		"subscribe", gina))
	s.APIOK(q("action", "post_comment", "id_task", forAdam, "text", "Adam's reply", "email_user_from", adam))
	c, err := source.New(s.AccountURL(), s.Key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestImportPeopleRules imports rolesSource into an account whose owner
// is someone else, where Gina is a guest and Rita a reader, and where Ivan
// is registered (in another account). A dry run adds and invites nobody.
// The run makes the source's owner and its admin users (nobody named them
// admins, issue 46), the others members with their roles, and invites
// Ivan; a guest's or reader's task and comments are written by the owner,
// a user's in their name; what names Ivan is written without him until he accepts, then
// it is his; every object keeps the source's creation date; the imported
// history leaves no notification for a digest. The same source imported
// into a second account is made there in full: mappings are the
// account's own.
func TestImportPeopleRules(t *testing.T) {
	t.Parallel()
	client := rolesSource(t)
	srcDates := sourceDates(t, client)
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		d.CreateAccount("roles", "Roles here", testsite.OwnerEmail, "Olga", "Owner")
		d.AddMember("roles", gina, "Gina", "Guest", taskd.RoleGuest)
		d.AddMember("roles", rita, "Rita", "Reader", taskd.RoleReader)
		d.AddMember(d.Slug, ivan, "Ivan", "Elsewhere", taskd.RoleUser)
		acct, err := d.Store.AccountBySlug(ctx, "roles")
		if err != nil {
			t.Fatal(err)
		}
		dst := importer.Dest{Account: acct, Store: d.Store}
		roles := func() map[string]taskd.Role {
			t.Helper()
			ms, err := d.Store.Members(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]taskd.Role{}
			for _, m := range ms {
				out[m.Email] = m.Role
			}
			return out
		}
		invited := func() map[string]taskd.Role {
			t.Helper()
			invs, err := d.Store.AccountInvitations(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]taskd.Role{}
			for _, inv := range invs {
				out[inv.Person.Email] = inv.Role
			}
			return out
		}
		before := map[string]taskd.Role{testsite.OwnerEmail: taskd.RoleOwner, gina: taskd.RoleGuest, rita: taskd.RoleReader}

		// A dry run counts the people it would add and invite, and adds
		// and invites nobody.
		dry, err := importer.Run(ctx, client, dst, importer.Options{DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if c := family(dry, importer.FamilyPeople); c.Created != 4 {
			t.Errorf("the dry run's people: %+v, want 4 to create (Sofia, Adam, Gus; Ivan invited)", c)
		}
		eq(t, "members after the dry run", roles(), before)
		eq(t, "invitations after the dry run", invited(), map[string]taskd.Role{})

		if _, err := importer.Run(ctx, client, dst, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		want := maps.Clone(before)
		want[sofia], want[adam], want[gus] = taskd.RoleUser, taskd.RoleUser, taskd.RoleGuest
		eq(t, "members after the run", roles(), want)
		eq(t, "invitations after the run", invited(), map[string]taskd.Role{ivan: taskd.RoleUser})

		owner, err := d.Store.Owner(ctx, acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		v := taskd.Actor{AccountID: acct.ID, Person: owner.Ref(), Role: taskd.RoleOwner}.Viewer()
		look := func() map[string]string {
			t.Helper()
			return imported(t, d, v, acct.ID)
		}
		eq(t, "before Ivan accepts", look(), map[string]string{
			// The writer follows what they write; Gina, a member, follows
			// her task as in the source; Ivan does not yet.
			"By Gina":                 "by " + testsite.OwnerEmail + ", assigned to nobody, followed by [" + gina + " " + testsite.OwnerEmail + "]",
			"By Gina: Gina's note":    "by " + testsite.OwnerEmail,
			"By Gina: Rita's note":    "by " + testsite.OwnerEmail,
			"By Rita":                 "by " + testsite.OwnerEmail + ", assigned to nobody, followed by [" + testsite.OwnerEmail + " " + rita + "]",
			"For Adam":                "by " + sofia + ", assigned to " + adam + ", followed by [" + adam + " " + gina + " " + sofia + "]",
			"For Adam: Adam's reply":  "by " + adam,
			"project Roles":           "by " + sofia,
			"project Roles's members": "[" + gina + " " + gus + " " + rita + "]",
		})
		eq(t, "the dates kept", importedDates(t, d, v), srcDates)
		// Imported history tells nobody: no notification waits for a digest.
		if due, err := d.Store.DigestsDue(ctx, time.Now().Add(48*time.Hour), 100); err != nil || len(due) != 0 {
			t.Errorf("people with notifications of the imported history: %v %v", due, err)
		}

		// Ivan accepts: the task is assigned to him, he follows it and is
		// on the project's team.
		accept(t, d, ivan)
		got := look()
		eq(t, "Ivan's task once he accepted", got["By Gina"], "by "+testsite.OwnerEmail+", assigned to "+ivan+", followed by ["+gina+" "+ivan+" "+testsite.OwnerEmail+"]")
		eq(t, "the team once Ivan accepted", got["project Roles's members"], "["+gina+" "+gus+" "+ivan+" "+rita+"]")

		// The same source into a second account: all of it is made there.
		d.CreateAccount("roles-two", "Roles again", testsite.OwnerEmail, "Olga", "Owner")
		two, err := d.Store.AccountBySlug(ctx, "roles-two")
		if err != nil {
			t.Fatal(err)
		}
		dst.Account = two
		sum, err := importer.Run(ctx, client, dst, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p, tk, cm := family(sum, importer.FamilyProjects), family(sum, importer.FamilyTasks), family(sum, importer.FamilyComments); p.Created != 1 || tk.Created != 3 || cm.Created != 3 {
			t.Errorf("into a second account: projects %+v, tasks %+v, comments %+v", p, tk, cm)
		}
		v2 := taskd.Actor{AccountID: two.ID, Person: owner.Ref(), Role: taskd.RoleOwner}.Viewer()
		if got := imported(t, d, v2, two.ID); len(got) != 8 {
			t.Errorf("the second account has %v", got)
		}
	})
}

// imported describes an account's projects, tasks and comments: who
// wrote each, who a task is assigned to and who follows it, and who is on
// a project's team.
func imported(t *testing.T, d *testsite.Site, v taskd.Viewer, accountID int64) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	projects, err := d.Store.Projects(ctx, v, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		out["project "+p.Name] = "by " + p.Author.Email
		team, err := d.Store.ProjectMembers(ctx, accountID, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		out["project "+p.Name+"'s members"] = sortedEmails(team)
		tasks, err := d.Store.Tasks(ctx, taskd.TaskQuery{Viewer: v, ProjectID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tasks {
			subs, err := d.Store.Subscribers(ctx, accountID, tk.ID)
			if err != nil {
				t.Fatal(err)
			}
			to := tk.Assignee.Email
			if tk.Assignee == taskd.Nobody {
				to = "nobody"
			}
			out[tk.Name] = "by " + tk.Author.Email + ", assigned to " + to + ", followed by " + sortedEmails(subs)
			comments, err := d.Store.Comments(ctx, v, tk.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range comments {
				out[tk.Name+": "+c.Text] = "by " + c.Author.Email
			}
		}
	}
	return out
}

func sortedEmails(refs []taskd.PersonRef) string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Email)
	}
	slices.Sort(out)
	return "[" + strings.Join(out, " ") + "]"
}

// sourceDates are the creation dates of the source's projects, tasks and
// comments, by name (a comment's: its task's name and its text).
func sourceDates(t *testing.T, c *source.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	projects, err := c.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		out["project "+p.Name] = p.Added.UTC().Format(time.RFC3339)
		tasks, err := c.Tasks(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		source.Walk(tasks, func(x *source.Task) {
			out[x.Name] = x.Added.UTC().Format(time.RFC3339)
			comments, err := c.Comments(ctx, x.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range comments {
				out[x.Name+": "+cm.Text] = cm.Added.UTC().Format(time.RFC3339)
			}
		})
	}
	// The source's history is older than the import: a date not kept
	// shows.
	for k, added := range out {
		if at, _ := time.Parse(time.RFC3339, added); time.Since(at) < 48*time.Hour {
			t.Fatalf("the source's %s is dated %s, not three days ago", k, added)
		}
	}
	return out
}

// importedDates are the creation dates of what the account has, named as
// sourceDates names them.
func importedDates(t *testing.T, d *testsite.Site, v taskd.Viewer) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	projects, err := d.Store.Projects(ctx, v, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		out["project "+p.Name] = p.DateAdded.UTC().Format(time.RFC3339)
		tasks, err := d.Store.Tasks(ctx, taskd.TaskQuery{Viewer: v, ProjectID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tasks {
			out[tk.Name] = tk.DateAdded.UTC().Format(time.RFC3339)
			comments, err := d.Store.Comments(ctx, v, tk.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range comments {
				out[tk.Name+": "+c.Text] = c.DateAdded.UTC().Format(time.RFC3339)
			}
		}
	}
	return out
}
