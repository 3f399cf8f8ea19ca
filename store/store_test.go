package store_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, now func() time.Time) taskd.Store {
		db, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir(), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	url := os.Getenv("TASKD_TEST_POSTGRES")
	if url == "" {
		t.Skip("TASKD_TEST_POSTGRES is not set")
	}
	storetest.Run(t, func(t *testing.T, now func() time.Time) taskd.Store {
		db, err := store.Open(context.Background(), store.Options{URL: url, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
