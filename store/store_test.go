package store_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// TestConformance runs the store suite on each database, every subtest on
// a fresh one.
func TestConformance(t *testing.T) {
	for _, backend := range testdb.Backends() {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
				return testdb.New(t, backend).OpenWith(t, store.Options{Now: now})
			})
		})
	}
}
