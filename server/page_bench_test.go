package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// BenchmarkProjectPage serves the pages of a project of 5,000 tasks (4,000
// top-level, 1,000 subtasks, every third done, every fifth with a status
// tag) over HTTP on loopback to a signed-in owner: the default list, a
// text search, a tag filter, the last page in due-date order and the
// board. "empty" is the same page of a project without tasks, the baseline
// the others are read against; bytes/page is the size of the HTML.
func BenchmarkProjectPage(b *testing.B) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			s := newOAuthSite(b, testdb.New(b, backend))
			ctx := context.Background()
			_, by := s.owner()
			empty, err := s.setup.CreateProject(ctx, by, taskd.ProjectInput{Name: ptr("Empty")})
			if err != nil {
				b.Fatal(err)
			}
			big, err := s.setup.CreateProject(ctx, by, taskd.ProjectInput{Name: ptr("Big")})
			if err != nil {
				b.Fatal(err)
			}
			groups, err := s.setup.AddTagGroups(ctx, by, taskd.TagsOfTasks, "status", "public", []string{"Stage"})
			if err != nil {
				b.Fatal(err)
			}
			tags, err := s.setup.AddTags(ctx, by, taskd.TagsOfTasks, groups[0].Title, []string{"To do", "Doing", "Review"})
			if err != nil {
				b.Fatal(err)
			}
			fillProject(b, s, by, big.ID, tags)

			u := s.signedIn(ownerEmail)
			base := s.base + "/a/" + s.slug
			for _, tc := range []struct{ name, path string }{
				{"empty", empty.Page()},
				{"default", big.Page()},
				{"search", big.Page() + "?q=report&status=all"},
				{"tag", big.Page() + fmt.Sprintf("?tag=%d", tags[1].ID)},
				{"last page by due date", big.Page() + "?sort=due&page=54"},
				{"board", big.Page() + "board"},
			} {
				b.Run(tc.name, func(b *testing.B) {
					var size int
					for b.Loop() {
						p := u.get(base + tc.path)
						if p.status != 200 || !strings.Contains(p.body, "</html>") {
							b.Fatalf("%s: %d", tc.path, p.status)
						}
						size = len(p.body)
					}
					b.ReportMetric(float64(size), "bytes/page")
				})
			}
		})
	}
}

// fillProject adds 5,000 tasks to the project through the store.
func fillProject(b *testing.B, s *oauthSite, by taskd.Actor, projectID int64, tags []taskd.Tag) {
	ctx := context.Background()
	var parents []int64
	for i := range 5000 {
		in := taskd.TaskInput{Name: ptr(fmt.Sprintf("Task %d: draft the quarterly report section", i)), Priority: ptr(i % 11),
			DateEnd: ptr(fmt.Sprintf("2027-%02d-%02d", 1+i%12, 1+i%28))}
		if i%5 == 0 {
			in.Tags = &[]string{fmt.Sprint(tags[i%len(tags)].ID)}
		}
		var parent int64
		if i >= 4000 {
			parent = parents[i%len(parents)]
		}
		t, err := s.setup.CreateTask(ctx, by, projectID, parent, in)
		if err != nil {
			b.Fatal(err)
		}
		if parent == 0 {
			parents = append(parents, t.ID)
		}
	}
	for i, id := range parents {
		if i%3 == 0 && i%4 != 0 { // a parent with subtasks cannot be done
			if _, err := s.setup.CompleteTask(ctx, by, id); err != nil && !strings.Contains(err.Error(), "children") {
				b.Fatal(err)
			}
		}
	}
}
func ptr[T any](v T) *T { return &v }
