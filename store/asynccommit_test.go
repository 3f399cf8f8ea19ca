package store_test

import (
	"context"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
)

// TestAsyncCommit: on PostgreSQL, AsyncCommit turns synchronous_commit
// off for the store's own connections only; without it, the server's
// setting (on) holds. SQLite commits with synchronous NORMAL either way.
func TestAsyncCommit(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		for _, async := range []bool{true, false} {
			o := d.Options()
			o.AsyncCommit = async
			db, err := store.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			// Several at once: each connection of the pool has it.
			want := map[bool]string{true: "off", false: "on"}[async]
			if d.URL == "" {
				want = "1" // SQLite: WAL with synchronous NORMAL, either way
			}
			for range 3 {
				if v, err := db.SyncForTest(ctx); err != nil || v != want {
					t.Errorf("AsyncCommit %v: synchronous_commit %q %v, want %q", async, v, err, want)
				}
			}
			db.Close()
		}
	})
}
