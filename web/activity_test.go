package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestActivityFeeds puts a project's and a person's changes in words with
// links, newest first, a page at a time, and leaves out the events of a
// task hidden from the reader.
func TestActivityFeeds(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	c := newCalSite(t, s)
	ctx := context.Background()
	u, o := s.SignedIn(testsite.UserEmail), s.SignedIn(testsite.OwnerEmail)
	pid := strconv.FormatInt(c.project, 10)
	// The user moves a due date and completes a task; the owner comments
	// on the hidden task.
	due := "2030-12-06"
	if _, err := s.Store.UpdateTask(ctx, c.user, c.write, taskd.TaskInput{DateEnd: &due}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CompleteTask(ctx, c.user, c.old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CreateComment(ctx, c.owner, c.secret, "a word about the plan"); err != nil {
		t.Fatal(err)
	}
	writeLink := `href="/a/` + s.Slug + `/project/` + pid + `/` + strconv.FormatInt(c.write, 10) + `/"`

	t.Run("the project's activity in words, newest first", func(t *testing.T) {
		p := u.In(t).Get(c.page("/project/" + pid + "/activity"))
		body := html.UnescapeString(p.Body)
		if p.Status != 200 {
			t.Fatalf("status %d", p.Status)
		}
		moved := `Uma User</span> changed the due date of <a ` + html.UnescapeString(writeLink) + `>Write copy, v2; final</a> to Fri 6 Dec 2030`
		completed := `Uma User</span> completed <a`
		added := `Olga Owner</span> added <a`
		for _, want := range []string{moved, completed, added, "Old thing", `Olga Owner</span> created the project <a`} {
			if !strings.Contains(body, want) {
				t.Errorf("no %q in:\n%s", want, body)
			}
		}
		if i, j := strings.Index(body, completed), strings.Index(body, added); i < 0 || j < 0 || i > j {
			t.Error("not newest first")
		}
		if strings.Contains(body, "Secret plan") || strings.Contains(body, "commented on") {
			t.Errorf("the user reads of the hidden task:\n%s", body)
		}
		if p := o.In(t).Get(c.page("/project/" + pid + "/activity")); !strings.Contains(p.Body, "commented on <a") || !strings.Contains(p.Body, "Secret plan") {
			t.Errorf("the owner does not read of the hidden task's comment:\n%s", p.Body)
		}
	})
	t.Run("a person's activity", func(t *testing.T) {
		p := o.In(t).Get(c.page(fmt.Sprintf("/people/%d/activity", c.user.Person.ID)))
		if !strings.Contains(p.Body, "completed") || strings.Contains(p.Body, "Olga Owner</span>") {
			t.Errorf("the user's activity:\n%s", p.Body)
		}
		for _, bad := range []string{"/people/0/activity", "/people/abc/activity", "/people/999999/activity", "/project/999999/activity"} {
			if p := o.In(t).Get(c.page(bad)); p.Status != http.StatusNotFound {
				t.Errorf("%s: %d", bad, p.Status)
			}
		}
		if p := o.In(t).Get(c.page(fmt.Sprintf("/people/%d/activity?before=-1", c.user.Person.ID))); p.Status != 200 {
			t.Errorf("a bad page: %d", p.Status)
		}
	})
	t.Run("a page at a time", func(t *testing.T) {
		for i := range 60 {
			name := fmt.Sprintf("Bulk %02d", i)
			if _, err := s.Store.CreateTask(ctx, c.owner, c.project, 0, taskd.TaskInput{Name: &name}); err != nil {
				t.Fatal(err)
			}
		}
		first := o.In(t).Get(c.page("/project/" + pid + "/activity"))
		if !strings.Contains(first.Body, "Bulk 59") || strings.Contains(first.Body, ">Bulk 09<") || !strings.Contains(first.Body, `rel="next">Older<`) {
			t.Fatalf("first page:\n%s", first.Body)
		}
		_, rest, _ := strings.Cut(first.Body, `<nav class="pager" aria-label="Pages"><a href="`)
		older, _, _ := strings.Cut(rest, `"`)
		second := o.In(t).Get(s.Base + html.UnescapeString(older))
		if !strings.Contains(second.Body, ">Bulk 09<") || strings.Contains(second.Body, ">Bulk 59<") || !strings.Contains(second.Body, ">Newest<") {
			t.Errorf("second page (%s):\n%s", older, second.Body)
		}
	})
}
