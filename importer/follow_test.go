package importer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestImportFollowsTheSource imports a small source into an account of a
// taskd where nobody of the source is registered (so everyone becomes a
// member and the two accounts compare whole), and checks the rules of a
// second run: a task whose status was changed here is brought back to
// the source's, either way; a subscriber added in the source is
// subscribed here; the source's new order of tags is followed; a task
// added to a project archived in the source is added here too (the
// project is opened for the run, and archived again at its end). The
// first run writes a done task with a done subtask, both done here, and
// does not say the source shows no hidden lists (taskd shows them); a
// run limited to one family (Options.Only) runs that family alone.
func TestImportFollowsTheSource(t *testing.T) {
	t.Parallel()
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			src := testsite.New(t)
			src.AddMember(src.Slug, nina, "Nina", "New", taskd.RoleUser)
			src.APIOK(q("action", "add_task_tag_groups", "title", "Steps"))
			src.APIOK(q("action", "add_task_tags", "group", "Steps", "title", "One,Two,Three"))
			home := src.APIID(q("action", "post_project", "title", "Home"))
			paint := src.APIID(q("action", "post_task", "id_project", home, "title", "Paint", "tags", "Two"))
			walls := src.APIID(q("action", "post_task", "id_project", home, "id_parent", paint, "title", "Walls"))
			src.APIOK(q("action", "complete_task", "id_task", walls))
			src.APIOK(q("action", "complete_task", "id_task", paint))
			tidy := src.APIID(q("action", "post_task", "id_project", home, "title", "Tidy"))
			src.APIOK(q("action", "complete_task", "id_task", tidy))
			plan := src.APIID(q("action", "post_task", "id_project", home, "title", "Plan"))
			src.APIID(q("action", "post_task", "id_project", home, "title", "Sweep"))
			shed := src.APIID(q("action", "post_project", "title", "Shed"))
			src.APIID(q("action", "post_task", "id_project", shed, "title", "Floor"))
			src.APIOK(q("action", "close_project", "id_project", shed))

			d := testsite.Start(t, testdb.New(t, backend), testsite.Options{Idle: true})
			key := d.CreateAccount("moved", "Moved", testsite.OwnerEmail, "Olga", "Owner")
			movedURL := d.Base + "/a/moved"
			acct, err := d.Store.AccountBySlug(ctx, "moved")
			if err != nil {
				t.Fatal(err)
			}
			client, err := source.New(src.AccountURL(), src.Key, source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := &pair{acct: acct}
			dst := p.dest(d.Store)
			run := func(step string, only ...string) importer.Summary {
				t.Helper()
				sum, err := importer.Run(ctx, client, dst, importer.Options{Only: only})
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				return sum
			}

			// One family alone: the people, and nothing else.
			sum := run("people alone", importer.FamilyPeople)
			var ran []string
			for _, c := range sum.Families {
				ran = append(ran, c.Family)
			}
			eq(t, "the families of a run of people alone", ran, []string{importer.FamilyPeople})
			if got := read(t, movedURL, key); len(got.Projects) != 0 || len(got.TaskTags) != 0 || len(got.People) != 3 {
				t.Fatalf("a run of people alone made %d projects and %d tags, and %d people", len(got.Projects), len(got.TaskTags), len(got.People))
			}

			// Everything: a done parent and its done subtask are both done.
			first := run("first import")
			// taskd's API shows hidden lists (extra=hidden): the run says
			// nothing of them.
			for _, sk := range first.Skipped {
				if sk.Family == "hidden" {
					t.Errorf("the first run reported of hidden lists: %+v", sk)
				}
			}
			same(t, "after the first run", read(t, movedURL, key), read(t, src.AccountURL(), src.Key))

			// Here, a task done in the source is reopened and an open one
			// completed (each otherwise unchanged in the source); the
			// source subscribes Nina to Plan, orders its tags anew and adds
			// a task to its archived project.
			local := localTasks(t, movedURL, key)
			testsite.APICall(t, movedURL, key, q("action", "reopen_task", "id_task", local["Tidy"]))
			testsite.APICall(t, movedURL, key, q("action", "complete_task", "id_task", local["Sweep"]))
			if l := localTasks(t, movedURL, key); l["Tidy:status"] != "active" || l["Sweep:status"] != "done" {
				t.Fatalf("the changes here did not take: %v", l)
			}
			src.APIOK(q("action", "subscribe", "id_task", plan, "email_user", nina))
			src.APIOK(q("action", "sort_task_tags", "group", "Steps", "order", "Three,One,Two"))
			src.APIOK(q("action", "activate_project", "id_project", shed))
			src.APIID(q("action", "post_task", "id_project", shed, "title", "Roof"))
			src.APIOK(q("action", "close_project", "id_project", shed))

			again := run("second import")
			for _, sk := range again.Skipped {
				if sk.Family == importer.FamilyTasks || sk.Family == importer.FamilyTags || sk.Family == importer.FamilyProjects {
					t.Errorf("the second run skipped: %+v", sk)
				}
			}
			same(t, "after the second run", read(t, movedURL, key), read(t, src.AccountURL(), src.Key))
		})
	}
}

// localTasks are the ids of an account's tasks by name, and their
// statuses by name + ":status", every project's (archived ones too).
func localTasks(t *testing.T, accountURL, key string) map[string]string {
	t.Helper()
	c, err := source.New(accountURL, key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range ps {
		ts, err := c.Tasks(context.Background(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		source.Walk(ts, func(x *source.Task) {
			out[x.Name], out[x.Name+":status"] = x.ID, x.Status
		})
	}
	if len(out) == 0 || slices.Contains([]string{out["Tidy"], out["Sweep"]}, "") {
		t.Fatalf("the tasks here: %v", out)
	}
	return out
}
