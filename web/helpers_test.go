package web_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/live"
	"github.com/taskd/taskd/web"
	"github.com/taskd/taskd/webhook"
)

// pagesConfig is the pages' configuration on the site's store, every part
// of it the store's. Its live hub does not run: its streams open, replay
// and beat, and are handed nothing new.
func pagesConfig(s *testsite.Site) web.Config {
	st := s.Store
	return web.Config{Projects: st, Tasks: st, Comments: st, Costs: st, Tags: st, Fields: st, Files: st, Teams: st, Relations: st,
		Accounts: st, Directory: st, Invitations: st, Sessions: st, Apps: st,
		Webhooks: st, Counts: st, Sealer: s.Sealer, Calendar: st, Live: live.New(st, live.Config{}),
		Passwords: testaccount.Hasher()}
}

// runningHub is a live hub on the site's store that hands out new events
// until the test ends, as the server's does.
func runningHub(t *testing.T, s *testsite.Site) *live.Hub {
	t.Helper()
	h := live.New(s.Store, live.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// pagesOf builds the pages on the site's store, every one of them (the
// webhook pages too), for the tests that walk their routes.
func pagesOf(t *testing.T, s *testsite.Site) *web.Server {
	t.Helper()
	cfg := pagesConfig(s)
	cfg.Hooks = webhook.NewService(s.Store, s.Sealer, nil, nil, nil)
	pages, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}
