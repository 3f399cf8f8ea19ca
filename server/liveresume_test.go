package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// newLiveTask makes a task in a fresh project of the owner's, by the store.
func newLiveTasks(t *testing.T, s *testsite.Site, p taskd.Project, names ...string) {
	t.Helper()
	_, owner := s.Owner()
	for _, n := range names {
		if _, err := s.Store.CreateTask(context.Background(), owner, p.ID, 0, taskd.TaskInput{Name: new(n)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLiveResumes: a stream reconnecting with Last-Event-ID gets what it
// missed, each once and in order, then the new changes; one resuming
// from an event older than the window, or not of the account, is told to
// reload.
func TestLiveResumes(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		_, owner := s.Owner()
		p, err := s.Store.CreateProject(context.Background(), owner, taskd.ProjectInput{Name: new("Resume")})
		if err != nil {
			t.Fatal(err)
		}
		b := s.SignedIn(testsite.UserEmail)
		url := s.AccountURL() + "/live"
		first := openLive(t, b, url, "")
		newLiveTasks(t, s, p, "before")
		got := first.until(t, "the first task", func(m liveMsg) bool { return m.data.Title == "before" })
		last := got[len(got)-1].id
		first.close()
		var missed []string
		for i := range 5 {
			missed = append(missed, fmt.Sprintf("missed %d", i))
		}
		pageMade := s.Clock.Now()
		newLiveTasks(t, s, p, missed...)
		// A page made before the missed changes, opening its first stream
		// after them, hears of them (and maybe of a change a second older).
		fromPage := openLive(t, b, fmt.Sprintf("%s?since=%d", url, pageMade.UnixMilli()), "")
		seen := fromPage.until(t, "the missed tasks", func(m liveMsg) bool { return m.data.Title == missed[len(missed)-1] })
		if got := titles(seen); !strings.Contains(got, "missed 0|") {
			t.Errorf("the page's first stream: %s", got)
		}
		fromPage.close()
		again := openLive(t, b, url, last)
		newLiveTasks(t, s, p, "after")
		got = again.until(t, "the task after", func(m liveMsg) bool { return m.data.Title == "after" })
		got = append(got, again.rest(200*time.Millisecond)...)
		var names []string
		for _, m := range got {
			names = append(names, m.data.Title)
		}
		if want := fmt.Sprint(append(missed, "after")); fmt.Sprint(names) != want {
			t.Errorf("resumed stream: %v, want %v", names, want)
		}
		for i := 1; i < len(got); i++ {
			if mustID(t, got[i].id) <= mustID(t, got[i-1].id) {
				t.Errorf("ids out of order: %s after %s", got[i].id, got[i-1].id)
			}
		}
		// Not an event of the account: reload.
		for _, bad := range []string{"999999999", "x"} {
			l := openLive(t, b, url, bad)
			if bad == "x" { // not a number: a fresh stream
				newLiveTasks(t, s, p, "fresh")
				l.until(t, "a fresh stream's task", func(m liveMsg) bool { return m.data.Title == "fresh" })
				continue
			}
			l.until(t, "reload", func(m liveMsg) bool { return m.event == "reload" })
		}
		// Older than the window, with changes missed: reload.
		s.Clock.Advance(time.Hour)
		newLiveTasks(t, s, p, "later")
		l := openLive(t, b, url, last)
		l.until(t, "reload", func(m liveMsg) bool { return m.event == "reload" })
	})
}

// TestLiveAcrossReplicas: a change made through one replica reaches a
// stream served by another, woken by LISTEN/NOTIFY.
func TestLiveAcrossReplicas(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		if s.DB.URL == "" {
			t.Skip("SQLite is served by one process")
		}
		second := s.Replica()
		b := s.SignedIn(testsite.UserEmail)
		l := openLive(t, b, second+"/a/"+s.Slug+"/live", "")
		// Through the first replica's pages: the owner makes a project.
		owner := s.SignedIn(testsite.OwnerEmail)
		page := owner.Get(s.AccountURL() + "/")
		owner.Submit(s.Base, page, "/a/"+s.Slug+"/projects", map[string][]string{"title": {"Made on replica 1"}})
		start := time.Now()
		l.until(t, "the project made on the first replica", func(m liveMsg) bool { return m.data.Title == "Made on replica 1" })
		t.Logf("replica 1 → stream on replica 2: %v", time.Since(start))
	})
}
