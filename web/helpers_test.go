package web_test

import (
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/web"
	"github.com/taskd/taskd/webhook"
	"github.com/taskd/taskd/work"
)

// pagesOf builds the pages on the site's store, every one of them (the
// webhook pages too), for the tests that walk their routes.
func pagesOf(t *testing.T, s *testsite.Site) *web.Server {
	t.Helper()
	st := s.Store
	pages, err := web.New(web.Config{Reads: st, Accounts: st, Directory: st, Invitations: st, Sessions: st, Apps: st,
		Webhooks: st, Counts: st, Hooks: webhook.NewService(st, s.Sealer, nil, nil, nil), Work: work.New(st, taskd.DefaultFileLimits), Calendar: st})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}
