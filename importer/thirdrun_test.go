package importer_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// TestImportRunsAfterChanges (issue 47): an import run again and again
// while the source changes applies each change on the run after it, and
// makes nothing twice, on the third run as on the second: what one run
// updated (a project, a task and a comment renamed or edited, a
// dependency removed), the next finds by its mapping and updates again
// (the cost line changed too), with new objects under it (a subtask, a
// comment) made once, and leaves the removed dependency be until it comes
// back in the source; a run after nothing changed writes nothing. After each run the two accounts compare
// whole, and every mapping still names the object the first run made.
func TestImportRunsAfterChanges(t *testing.T) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			src := testsite.New(t)
			home := src.APIID(q("action", "post_project", "title", "Home"))
			paint := src.APIID(q("action", "post_task", "id_project", home, "title", "Paint"))
			src.APIID(q("action", "post_task", "id_project", home, "id_parent", paint, "title", "Walls"))
			tidy := src.APIID(q("action", "post_task", "id_project", home, "title", "Tidy"))
			src.APIOK(q("action", "add_task_relation", "id_task_from", paint, "id_task_to", tidy))
			note := src.APIID(q("action", "post_comment", "id_task", paint, "text", "Start with the primer"))
			line := src.APIOK(q("action", "add_costs", "id_task", paint, "time", "1:00", "comment", "Primer", "date", "02.03.2026",
				"email_user_from", testsite.OwnerEmail))["id"].(string)

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
			dst := (&pair{acct: acct}).dest(d.Store)
			// run imports, compares the accounts, and checks what each
			// family made and updated against want (family: {created,
			// updated}; families not named: none).
			run := func(step string, want map[string][2]int) {
				t.Helper()
				sum, err := importer.Run(ctx, client, dst, importer.Options{})
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				for _, sk := range sum.Skipped {
					t.Errorf("%s: skipped %+v", step, sk)
				}
				for _, c := range sum.Families {
					if got := [2]int{c.Created, c.Updated}; got != want[c.Family] {
						t.Errorf("%s: %s created %d and updated %d, want %d and %d", step, c.Family, got[0], got[1], want[c.Family][0], want[c.Family][1])
					}
				}
				same(t, step, read(t, movedURL, key), read(t, src.AccountURL(), src.Key))
			}
			// mapped is every mapping's local id, by family and source id.
			mapped := func() map[string]int64 {
				out := map[string]int64{}
				for _, family := range []string{"project", "task", "relation", "comment", "cost"} {
					ms, err := d.Store.ImportMappings(ctx, acct.ID, client.URL(), family)
					if err != nil {
						t.Fatal(err)
					}
					for id, m := range ms {
						out[family+" "+id] = m.LocalID
					}
				}
				return out
			}

			// The source's Uma is made a member; its owner, the owner here too, is found.
			run("the first run", map[string][2]int{importer.FamilyPeople: {1, 1}, importer.FamilyProjects: {1, 0},
				importer.FamilyTasks: {3, 0}, importer.FamilyRelations: {1, 0}, importer.FamilyComments: {1, 0}, importer.FamilyCosts: {1, 0}})
			first := mapped()

			// Renamed and edited, the dependency removed.
			src.APIOK(q("action", "update_project", "id_project", home, "title", "Home, again"))
			src.APIOK(q("action", "update_task", "id_task", paint, "title", "Paint twice"))
			src.APIOK(q("action", "update_comment", "id_comment", note, "text", "Start with the primer, twice"))
			src.APIOK(q("action", "delete_task_relation", "id_task_from", paint, "id_task_to", tidy))
			run("the second run, after a change", map[string][2]int{importer.FamilyProjects: {0, 1}, importer.FamilyTasks: {0, 1},
				importer.FamilyRelations: {0, 1}, importer.FamilyComments: {0, 1}})

			// The same again, the cost line changed, a subtask and a
			// comment added under the renamed task; the dependency, removed
			// already, is left as it is.
			src.APIOK(q("action", "update_project", "id_project", home, "title", "Home, at last"))
			src.APIOK(q("action", "update_task", "id_task", paint, "title", "Paint thrice"))
			src.APIOK(q("action", "update_comment", "id_comment", note, "text", "Start with the primer, thrice"))
			src.APIOK(q("action", "update_costs", "id_costs", line, "time", "2:00"))
			src.APIID(q("action", "post_task", "id_project", home, "id_parent", paint, "title", "Ceiling"))
			src.APIOK(q("action", "post_comment", "id_task", paint, "text", "Third coat"))
			run("the third run, after another change", map[string][2]int{importer.FamilyProjects: {0, 1}, importer.FamilyTasks: {1, 1},
				importer.FamilyComments: {1, 1}, importer.FamilyCosts: {0, 1}})

			// The dependency back, of the other type.
			src.APIOK(q("action", "add_task_relation", "id_task_from", paint, "id_task_to", tidy, "type", "start-to-start"))
			run("a fourth run, the dependency back", map[string][2]int{importer.FamilyRelations: {0, 1}})

			run("a fifth run, nothing changed", nil)
			after := mapped()
			for k, id := range first {
				if after[k] != id {
					t.Errorf("the mapping of %s names %d after the runs, want %d, the object the first run made", k, after[k], id)
				}
			}
			if len(after) != len(first)+2 {
				t.Errorf("%d mappings after the runs, want the first run's %d and 2 new: %v", len(after), len(first), after)
			}
		})
	}
}
