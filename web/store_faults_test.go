package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/web"
)

// pagesWith serves the pages on the site's store, on a server of its own
// (the site's cookies hold for every port of the host), with the
// configuration changed by adjust: another store in a part, a log, a
// heartbeat.
func pagesWith(t *testing.T, s *testsite.Site, adjust func(*web.Config)) string {
	t.Helper()
	cfg := pagesConfig(s)
	adjust(&cfg)
	pages, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	pages.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// syncBuffer is a log's buffer that requests may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// racingActivity reads the activity, then runs between before the page
// looks up the names of the events' tasks: a change made by someone else
// between the two reads.
type racingActivity struct {
	web.CalendarStore
	between func()
}

func (r racingActivity) Activity(ctx context.Context, q taskd.ActivityQuery) ([]taskd.StoredEvent, error) {
	evs, err := r.CalendarStore.Activity(ctx, q)
	if r.between != nil {
		r.between()
	}
	return evs, err
}

// TestActivityFeedsNamesAsViewer: the feed's task names and links are
// looked up as the viewer. A guest taken off the project's team (and the
// task renamed) between the read of the events and that of the names
// gets neither the new name nor a link: the events' own names at most.
func TestActivityFeedsNamesAsViewer(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	ctx := context.Background()
	_, owner := s.Owner()
	const guestEmail = "guest@acme.example"
	s.AddMember(s.Slug, guestEmail, "Gil", "Guest", taskd.RoleGuest)
	p, err := s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Launch")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SetProjectMembers(ctx, owner, p.ID, []string{guestEmail}, true); err != nil {
		t.Fatal(err)
	}
	task, err := s.Store.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Plain name")})
	if err != nil {
		t.Fatal(err)
	}
	due := "2030-12-06"
	if _, err := s.Store.UpdateTask(ctx, owner, task.ID, taskd.TaskInput{DateEnd: &due}); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	race := racingActivity{CalendarStore: s.Store, between: func() {
		once.Do(func() {
			if _, err := s.Store.SetProjectMembers(ctx, owner, p.ID, []string{guestEmail}, false); err != nil {
				t.Error(err)
			}
			if _, err := s.Store.UpdateTask(ctx, owner, task.ID, taskd.TaskInput{Name: new("secret-new-name")}); err != nil {
				t.Error(err)
			}
		})
	}}
	base := pagesWith(t, s, func(c *web.Config) { c.Calendar = race })
	g := s.SignedIn(guestEmail)
	page := g.In(t).Get(fmt.Sprintf("%s/a/%s/project/%d/activity", base, s.Slug, p.ID))
	if page.Status != 200 || !strings.Contains(page.Body, "changed the due date of") {
		t.Fatalf("the guest's feed: %d\n%s", page.Status, page.Body)
	}
	if strings.Contains(page.Body, "secret-new-name") {
		t.Errorf("the guest, off the team, reads the task's new name:\n%s", page.Body)
	}
	if link := "/project/" + strconv.FormatInt(p.ID, 10) + "/" + strconv.FormatInt(task.ID, 10) + "/"; strings.Contains(page.Body, link) {
		t.Errorf("the guest, off the team, gets a link to the task:\n%s", page.Body)
	}
}

// failingMemberships is the account store with a person's memberships
// that cannot be read.
type failingMemberships struct{ web.AccountStore }

func (failingMemberships) Memberships(context.Context, int64) ([]taskd.Membership, error) {
	return nil, errors.New("the database is gone")
}

// TestICalFeedErrorLogsNoSecret: a feed that fails answers 500 and logs
// the person's id, never the path, which holds the secret
// (docs/security.md).
func TestICalFeedErrorLogsNoSecret(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	ctx := context.Background()
	_, owner := s.Owner()
	var logs syncBuffer
	base := pagesWith(t, s, func(c *web.Config) {
		c.Accounts, c.Log = failingMemberships{s.Store}, slog.New(slog.NewTextHandler(&logs, nil))
	})
	token := secret.Token(32)
	if _, err := s.Store.SetICalToken(ctx, owner.Person.ID, secret.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	status, body, _ := getFeed(t, base+"/ical/"+token+".ics")
	if status != http.StatusInternalServerError || strings.Contains(body, token) {
		t.Fatalf("a failing feed: %d %q", status, body)
	}
	log := logs.String()
	if !strings.Contains(log, "calendar feed failed") || !strings.Contains(log, "person="+strconv.FormatInt(owner.Person.ID, 10)) {
		t.Errorf("the log does not name the person %d:\n%s", owner.Person.ID, log)
	}
	for _, part := range []string{token, token[:12], token[len(token)-12:], "/ical/"} {
		if strings.Contains(log, part) {
			t.Errorf("the log holds %q of the feed's path:\n%s", part, log)
		}
	}
}
