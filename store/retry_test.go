package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestLostConnectionsAreRetried: after PostgreSQL ends every pooled
// connection (as pg_terminate_backend, a restart or a failover does), reads,
// write transactions and leases made at once on those connections succeed,
// tried again on new connections, each exactly once, and retries are
// counted.
func TestLostConnectionsAreRetried(t *testing.T) {
	t.Parallel()
	if !slices.Contains(testdb.Backends(), "postgres") {
		t.Skip("needs PostgreSQL (" + testdb.EnvPostgres + ")")
	}
	d := testdb.New(t, "postgres")
	var retried atomic.Int64
	db := d.OpenWith(t, store.Options{Retried: func(string) { retried.Add(1) }})
	ctx := context.Background()
	acct, owner := storetest.NewAccount(t, db, "retry")
	p, err := db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("P")})
	if err != nil {
		t.Fatal(err)
	}
	w, err := db.CreateWebhook(ctx, taskd.Webhook{AccountID: acct.ID, URL: "https://hooks.example/in", Events: []string{"post_task"}, Secret: []byte("s")})
	if err != nil {
		t.Fatal(err)
	}

	for round := range 3 {
		fillPool(t, db, acct.ID)
		if testdb.EndConnections(t, d.URL, true) == 0 {
			t.Fatal("no connection to end")
		}
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 8 {
			wg.Go(func() {
				if _, err := db.Projects(ctx, taskd.AccountViewer(acct.ID), ""); err != nil {
					errs <- fmt.Errorf("read: %w", err)
				}
				if _, err := db.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new(fmt.Sprintf("r%d-%d", round, i))}); err != nil {
					errs <- fmt.Errorf("write: %w", err)
				}
				if _, err := db.Lease(ctx, w.ID, fmt.Sprintf("owner-%d", i), time.Now().Add(time.Second)); err != nil {
					errs <- fmt.Errorf("lease: %w", err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
	// Some failures database/sql retries itself (a write that failed before
	// anything was sent); the rest are taskd's, and counted.
	if retried.Load() == 0 {
		t.Fatal("no retry counted after the connections were ended three times")
	}
	tasks, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: p.ID, Limit: 100})
	if err != nil || len(tasks) != 24 {
		t.Fatalf("tasks after three rounds: %d, %v; want 24 (each written once)", len(tasks), err)
	}
}

// fillPool makes the store hold several open connections.
func fillPool(t *testing.T, db *store.DB, accountID int64) {
	t.Helper()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := db.Projects(context.Background(), taskd.AccountViewer(accountID), ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
