package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
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
			s := testsite.On(b, testdb.New(b, backend))
			by, empty, big, tags := benchProjects(b, s, "To do", "Doing", "Review")
			fillProject(b, s, by, big.ID, tags)

			u := s.SignedIn(testsite.OwnerEmail)
			base := s.Base + "/a/" + s.Slug
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
						p := u.Get(base + tc.path)
						if p.Status != 200 || !strings.Contains(p.Body, "</html>") {
							b.Fatalf("%s: %d", tc.path, p.Status)
						}
						size = len(p.Body)
					}
					b.ReportMetric(float64(size), "bytes/page")
				})
			}
		})
	}
}

// fillProject adds 5,000 tasks to the project through the store.
func fillProject(b *testing.B, s *testsite.Site, by taskd.Actor, projectID int64, tags []taskd.Tag) {
	ctx := context.Background()
	var parents []int64
	for i := range 5000 {
		in := taskd.TaskInput{Name: new(fmt.Sprintf("Task %d: draft the quarterly report section", i)), Priority: new(i % 11),
			DateEnd: new(fmt.Sprintf("2027-%02d-%02d", 1+i%12, 1+i%28))}
		if i%5 == 0 {
			in.Tags = &[]string{fmt.Sprint(tags[i%len(tags)].ID)}
		}
		var parent int64
		if i >= 4000 {
			parent = parents[i%len(parents)]
		}
		t, err := s.Store.CreateTask(ctx, by, projectID, parent, in)
		if err != nil {
			b.Fatal(err)
		}
		if parent == 0 {
			parents = append(parents, t.ID)
		}
	}
	for i, id := range parents {
		if i%3 == 0 && i%4 != 0 { // a parent with subtasks cannot be done
			if _, err := s.Store.CompleteTask(ctx, by, id); err != nil && !strings.Contains(err.Error(), "children") {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTimeline serves a project's timeline of 500 tasks (400 tasks,
// 100 subtasks, dates around today: bars, milestones, a tenth without
// dates, every third task done; 133 finish-to-start dependencies between
// top-level tasks) over HTTP on loopback to a signed-in
// owner, at each scale and grouped by assignee. "list" is the same
// project's list page, the baseline the timelines are read against; the
// target is 100 ms a timeline (docs/performance.md).
func BenchmarkTimeline(b *testing.B) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			s := testsite.On(b, testdb.New(b, backend))
			ctx := context.Background()
			_, by := s.Owner()
			p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Plan")})
			if err != nil {
				b.Fatal(err)
			}
			today := time.Now().UTC()
			day := func(n int) *string { return new(today.AddDate(0, 0, n).Format(taskd.DateLayout)) }
			var parents []int64
			for i := range 500 {
				in := taskd.TaskInput{Name: new(fmt.Sprintf("Task %d: draft the quarterly report section", i)),
					AssigneeEmail: new([]string{testsite.OwnerEmail, testsite.UserEmail, "NOONE"}[i%3])}
				switch first := i%60 - 20; {
				case i%10 == 9: // no dates
				case i%10 == 8: // a milestone
					in.DateEnd = day(first)
				default:
					in.DateStart, in.DateEnd = day(first), day(first+i%14)
				}
				var parent int64
				if i >= 400 {
					parent = parents[i%len(parents)]
				}
				t, err := s.Store.CreateTask(ctx, by, p.ID, parent, in)
				if err != nil {
					b.Fatal(err)
				}
				if parent == 0 {
					parents = append(parents, t.ID)
				}
				if i >= 400 && i%3 == 0 {
					if _, err := s.Store.CompleteTask(ctx, by, t.ID); err != nil {
						b.Fatal(err)
					}
				}
			}
			// 133 dependencies, every third top-level task (from the second)
			// waiting for the one before it: arrows to draw.
			for i := 1; i < len(parents) && i < 450; i += 3 {
				if err := s.Store.AddRelation(ctx, by, taskd.Relation{From: parents[i-1], To: parents[i], Type: taskd.RelationFinishToStart}); err != nil {
					b.Fatal(err)
				}
			}
			u := s.SignedIn(testsite.OwnerEmail)
			base := s.Base + "/a/" + s.Slug + p.Page()
			for _, tc := range []struct{ name, path string }{
				{"list", ""},
				{"timeline week", "timeline"},
				{"timeline day", "timeline?scale=day"},
				{"timeline month", "timeline?scale=month"},
				{"timeline month by assignee", "timeline?scale=month&group=assignee"},
			} {
				b.Run(tc.name, func(b *testing.B) {
					var size, bars int
					for b.Loop() {
						page := u.Get(base + tc.path)
						if page.Status != 200 || !strings.Contains(page.Body, "</html>") {
							b.Fatalf("%s: %d", tc.path, page.Status)
						}
						size = len(page.Body)
						bars = strings.Count(page.Body, `<a class="tl-bar`) + strings.Count(page.Body, `<a class="tl-point`)
					}
					b.ReportMetric(float64(size), "bytes/page")
					b.ReportMetric(float64(bars), "bars")
				})
			}
		})
	}
}

// benchProjects makes the page benchmarks' two projects, "Empty" and
// "Big", and a status group "Stage" with these tags, as the owner.
func benchProjects(b *testing.B, s *testsite.Site, tagTitles ...string) (by taskd.Actor, empty, big taskd.Project, tags []taskd.Tag) {
	b.Helper()
	ctx := context.Background()
	_, by = s.Owner()
	empty, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Empty")})
	if err != nil {
		b.Fatal(err)
	}
	big, err = s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Big")})
	if err != nil {
		b.Fatal(err)
	}
	groups, err := s.Store.AddTagGroups(ctx, by, taskd.TagsOfTasks, "status", "public", []string{"Stage"})
	if err != nil {
		b.Fatal(err)
	}
	if tags, err = s.Store.AddTags(ctx, by, taskd.TagsOfTasks, groups[0].Title, tagTitles); err != nil {
		b.Fatal(err)
	}
	return by, empty, big, tags
}
